// The warm-scan cache: per file (size, mtime, content hash) -> its outcome. Keyed by the tool
// version and the rule catalogue's digest, so a changed rule invalidates everything.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_map>

#include "analyzer/scanner.hpp"

namespace mpsport {

class ScanCache {
public:
    struct Entry {
        std::uintmax_t size = 0;
        std::int64_t mtime_ns = 0;
        std::uint64_t hash = 0;
        FileOutcome outcome;
    };

    ScanCache() = default;
    explicit ScanCache(std::uint64_t key) : m_key(key) {}

    // A missing, stale or corrupt cache file loads as empty: the cache is only ever an optimisation.
    static ScanCache load(const std::filesystem::path& dir, std::uint64_t key);
    // Throws std::runtime_error naming the file when it cannot be written.
    void save(const std::filesystem::path& dir) const;

    const Entry* find(const std::string& path) const;
    void put(const std::string& path, Entry entry);
    std::size_t size() const { return m_entries.size(); }
    template <typename F>
    void for_each(F&& f) const {
        for (const auto& [path, entry] : m_entries) f(path, entry);
    }

private:
    std::uint64_t m_key = 0;
    std::unordered_map<std::string, Entry> m_entries;
};

}  // namespace mpsport
