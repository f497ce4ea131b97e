#include "analyzer/scan_cache.hpp"

#include <nlohmann/json.hpp>

#include "core/finding_json.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"

namespace fs = std::filesystem;

namespace mpsport {
namespace {
constexpr const char* kFile = "scan-cache.msgpack";
constexpr int kFormat = 1;
}  // namespace

ScanCache ScanCache::load(const fs::path& dir, std::uint64_t key) {
    ScanCache cache(key);
    std::error_code ec;
    if (!fs::exists(dir / kFile, ec)) return cache;
    try {
        const std::string bytes = read_file(dir / kFile);
        const nlohmann::json j = nlohmann::json::from_msgpack(bytes);
        if (j.at("format").get<int>() != kFormat || j.at("key").get<std::string>() != hex64(key)) return cache;
        for (const auto& [path, e] : j.at("files").items()) {
            Entry entry;
            entry.size = e.at(0).get<std::uintmax_t>();
            entry.mtime_ns = e.at(1).get<std::int64_t>();
            entry.hash = e.at(2).get<std::uint64_t>();
            entry.outcome.lines = e.at(3).get<std::size_t>();
            if (!e.at(4).is_null()) entry.outcome.skip_reason = e.at(4).get<std::string>();
            for (const auto& f : e.at(5)) entry.outcome.findings.push_back(finding_from_json(f));
            cache.m_entries.emplace(path, std::move(entry));
        }
    } catch (const std::exception&) {
        cache.m_entries.clear();  // corrupt or from another version: start cold
    }
    return cache;
}

void ScanCache::save(const fs::path& dir) const {
    nlohmann::json files = nlohmann::json::object();
    for (const auto& [path, e] : m_entries) {
        nlohmann::json findings = nlohmann::json::array();
        for (const auto& f : e.outcome.findings) findings.push_back(finding_to_json(f));
        files[path] = nlohmann::json::array({e.size, e.mtime_ns, e.hash, e.outcome.lines,
                                             e.outcome.skip_reason ? nlohmann::json(*e.outcome.skip_reason) : nlohmann::json(),
                                             std::move(findings)});
    }
    const nlohmann::json j = {{"format", kFormat}, {"key", hex64(m_key)}, {"files", std::move(files)}};
    const std::vector<std::uint8_t> bytes = nlohmann::json::to_msgpack(j);
    std::error_code ec;
    fs::create_directories(dir, ec);
    // Like other tools' caches: ignore ourselves so the cache never shows up in `git status`.
    if (!fs::exists(dir / ".gitignore", ec)) write_file_atomically(dir / ".gitignore", "# created by mpsport\n*\n");
    write_file_atomically(dir / kFile, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

const ScanCache::Entry* ScanCache::find(const std::string& path) const {
    auto it = m_entries.find(path);
    return it == m_entries.end() ? nullptr : &it->second;
}

void ScanCache::put(const std::string& path, Entry entry) { m_entries[path] = std::move(entry); }

}  // namespace mpsport
