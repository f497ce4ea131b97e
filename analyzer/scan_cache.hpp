// The warm-scan cache: per file (size, mtime, content hash) -> its outcome. Keyed by everything that
// changes an outcome (key_for), so a changed rule, option or build never serves a stale result.
// One file per key: a `--select` scan or another target torch neither reads nor replaces the
// full scan's entries. Saving merges, under a lock, with what another process saved meanwhile.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyzer/scanner.hpp"
#include "core/scan_result.hpp"

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

    // The key of a scan: tool version and build, the effective rule set (after --select), the op
    // tables and target torch, and the options that change what a file yields or what is walked.
    static std::uint64_t key_for(const RuleCatalogue& catalogue, const std::string& target_torch, const ScanOptions& options);
    // The same key from a rules folder's digest (RuleCatalogue::digest_of) and path, before any rule is loaded.
    static std::uint64_t key_for(std::uint64_t rules_digest, const std::filesystem::path& rules_dir, const std::string& target_torch,
                                 const ScanOptions& options);
    // A missing, stale or corrupt cache file loads as empty: the cache is only ever an optimisation.
    static ScanCache load(const std::filesystem::path& dir, std::uint64_t key);
    // Writes atomically under an exclusive lock on the cache folder. Without `touched`, this cache
    // holds every file of the repository (a full scan): files it lacks are gone. With it (check),
    // only the entries of the touched files are ours; for every other file what is on disk now
    // (perhaps saved by another process meanwhile) wins over what we loaded. Throws
    // std::runtime_error naming the file when it cannot be written.
    void save(const std::filesystem::path& dir, const std::set<std::string>* touched = nullptr) const;

    // The scan memo: the whole result of the last full scan under `key`, kept beside the cache. It is
    // served when the walk finds the same files with the same sizes, mtimes and stat problems
    // (`walk_digest`, made by the scanner) and each file the scan read outside the walk (`extras`,
    // relative to `base`: .mpsport.toml, Hydra configs an ignore rule hides) is as it was. A
    // missing, stale or corrupt memo is nullopt. Every result is one a scan would give again: the
    // same inputs, rules, options and build. The result's `inputs_id` names those inputs; when
    // `unchanged(inputs_id)` returns true the result is not read (ScanOptions::unchanged).
    static std::optional<ScanResult> load_result(const std::filesystem::path& dir, std::uint64_t key, std::uint64_t walk_digest,
                                                 const std::filesystem::path& base, const std::function<bool(std::uint64_t)>& unchanged);
    // Returns the inputs' id, as load_result will give it.
    static std::uint64_t save_result(const std::filesystem::path& dir, std::uint64_t key, std::uint64_t walk_digest,
                                     const std::filesystem::path& base, const std::vector<std::string>& extras, const ScanResult& result);

    // The readers of the two files' bodies (after their headers and checksums), for the fuzz target:
    // any bytes give an empty cache or nullopt, never a crash.
    static ScanCache parse_entries(std::string_view entries, std::uint64_t key);
    static std::optional<ScanResult> parse_result(std::string_view body);

    const Entry* find(const std::string& path) const;
    // The entry itself, for a scan that takes what it holds (by move) instead of copying it; safe
    // from several threads for different paths, as find is.
    Entry* find_to_take(const std::string& path);
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
