#include "analyzer/scanner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "analyzer/manifests/manifest_engine.hpp"
#include "analyzer/match.hpp"
#include "analyzer/notebooks/notebook.hpp"
#include "analyzer/program/entry_refs.hpp"
#include "analyzer/program/program_model.hpp"
#include "analyzer/program/project_config.hpp"
#include "analyzer/python/python_engine.hpp"
#include "analyzer/scan_cache.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/source_text.hpp"

namespace fs = std::filesystem;

namespace mpsport {

Scanner::Scanner(const RuleCatalogue& catalogue, std::string target_torch)
    : m_catalogue(catalogue), m_target_torch(std::move(target_torch)) {
    require_bundled_torch_version(m_target_torch);
}

Scanner::~Scanner() = default;

void Scanner::build_engines() const {
    std::call_once(m_engines_once, [this] {
        m_python = std::make_unique<python::PythonEngine>(m_catalogue, m_target_torch);
        m_manifests = std::make_unique<manifests::ManifestEngine>(m_catalogue);
    });
}

FileOutcome Scanner::scan_text(const std::string& path, FileKind kind, std::string text) const {
    FileOutcome out = analyze_file(path, kind, std::move(text));
    for (auto& f : out.findings) program::weigh(f, program::Level::core, {}, m_catalogue.program());
    return out;
}

FileOutcome Scanner::analyze_file(const std::string& path, FileKind kind, std::string text) const {
    build_engines();
    FileOutcome out;
    if (auto problem = text_problem(text)) {
        out.skip_reason = *problem;
        return out;
    }
    try {
        if (kind == FileKind::notebook) {
            notebooks::NotebookSource nb = notebooks::notebook_to_python(text);
            const SourceText source(std::move(nb.python));
            out.lines = source.line_count();
            auto analysed = m_python->analyze(source.text());
            append_findings(analysed.matches, source, path, Suppressions::parse(source), out.findings, &nb.cell_lines);
            out.facts = std::move(analysed.facts);
            return out;
        }
        const SourceText source(std::move(text));
        out.lines = source.line_count();
        const Suppressions suppressions = Suppressions::parse(source);
        if (kind == FileKind::python) {
            auto analysed = m_python->analyze(source.text());
            append_findings(analysed.matches, source, path, suppressions, out.findings);
            out.facts = std::move(analysed.facts);
        }
        if (m_manifests->reads(kind)) append_findings(m_manifests->analyze(kind, source), source, path, suppressions, out.findings);
        if (kind != FileKind::python) out.facts = program::entry_facts(kind, source.text());
    } catch (const std::exception& e) {
        out.findings.clear();
        out.skip_reason = e.what();
    }
    return out;
}

ScanResult Scanner::scan(const fs::path& base, const std::vector<fs::path>& roots, const ScanOptions& options) const {
    const auto start = std::chrono::steady_clock::now();
    ScanResult result;
    result.target_torch = m_target_torch;
    WalkOptions walk_options = options.walk;
    walk_options.stat_files = false;  // stat()ed by the workers below, on every core
    WalkResult walked = walk(base, roots, walk_options);
    result.skipped = std::move(walked.skipped);
    result.ignored_dirs = walked.ignored_dirs;

    // The op tables are rules too (the catalogue's digest leaves rules/mps/ out), and so is the version they are read for.
    const std::uint64_t cache_key = fnv1a64(std::string(MPSPORT_VERSION) + hex64(m_catalogue.digest()) + m_target_torch +
                                            hex64(op_tables_digest(m_catalogue.root())));
    ScanCache cache = options.cache_dir ? ScanCache::load(*options.cache_dir, cache_key) : ScanCache();

    const std::size_t n = walked.files.size();
    std::vector<ScanCache::Entry> entries(n);
    std::vector<char> from_cache(n, 0);  // 1: same size and mtime; 2: same content, new mtime
    unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
    jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(1, n)));
    auto in_parallel = [&](auto&& body) {
        std::atomic<std::size_t> next{0};
        auto worker = [&] {
            for (std::size_t i = next++; i < n; i = next++) body(i);
        };
        std::vector<std::thread> threads;
        for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
        worker();
        for (auto& t : threads) t.join();
    };

    // Phase 1: stat every file and take what the cache still knows by size and mtime.
    std::atomic<bool> any_to_read{false};
    in_parallel([&](std::size_t i) {
        FileEntry& file = walked.files[i];
        ScanCache::Entry& entry = entries[i];
        if (auto problem = stat_file(file, options.walk.max_file_size)) {
            entry.outcome.skip_reason = *problem;
            return;
        }
        entry.size = file.size;
        entry.mtime_ns = file.mtime_ns;
        const ScanCache::Entry* cached = options.cache_dir ? cache.find(file.path) : nullptr;
        if (cached && cached->size == file.size && cached->mtime_ns == file.mtime_ns && file.mtime_ns != 0) {
            entry.hash = cached->hash;
            entry.outcome = cached->outcome;
            from_cache[i] = 1;
            return;
        }
        any_to_read = true;
    });
    if (any_to_read) build_engines();  // here, so a broken rule fails the scan rather than a worker

    // Phase 2: read, hash and analyse the rest.
    in_parallel([&](std::size_t i) {
        const FileEntry& file = walked.files[i];
        ScanCache::Entry& entry = entries[i];
        if (from_cache[i] || entry.outcome.skip_reason) return;
        std::string text;
        try {
            text = read_file(file.absolute);
        } catch (const std::exception& e) {
            entry.outcome.skip_reason = std::string("unreadable: ") + e.what();
            return;
        }
        entry.hash = content_hash(text);
        const ScanCache::Entry* cached = options.cache_dir ? cache.find(file.path) : nullptr;
        if (cached && cached->hash == entry.hash && cached->size == file.size) {
            entry.outcome = cached->outcome;
            from_cache[i] = 2;
            return;
        }
        entry.outcome = analyze_file(file.path, file.kind, std::move(text));
    });

    ScanCache fresh(cache_key);
    // Rewrite the cache only when something changed: a file was (re)read, added or removed.
    bool cache_changed = options.cache_dir && !options.partial && cache.size() != n;
    std::vector<program::FileRecord> records;
    std::set<std::string> walked_paths;
    for (std::size_t i = 0; i < n; ++i) {
        if (from_cache[i] != 1) cache_changed = true;
        FileOutcome& o = entries[i].outcome;
        walked_paths.insert(walked.files[i].path);
        if (o.skip_reason) {
            result.skipped.push_back({walked.files[i].path, *o.skip_reason});
        } else {
            ++result.files_scanned;
            result.files_cached += from_cache[i] ? 1 : 0;
            result.lines_scanned += o.lines;
            if (!o.findings.empty()) result.file_lines[walked.files[i].path] = o.lines;
            result.findings.insert(result.findings.end(), o.findings.begin(), o.findings.end());
        }
        if (options.cache_dir) fresh.put(walked.files[i].path, std::move(entries[i]));
    }
    // A partial scan (check) keeps what the cache knows of the other files, for the next full scan
    // and for the program model.
    if (options.partial) cache.for_each([&](const std::string& path, const ScanCache::Entry& e) {
        if (!walked_paths.count(path)) fresh.put(path, e);
    });
    const ScanCache& known = options.cache_dir ? fresh : cache;
    std::vector<FileOutcome> uncached;  // without a cache, the facts of this scan's files
    if (!options.cache_dir) {
        for (std::size_t i = 0; i < n; ++i) uncached.push_back(std::move(entries[i].outcome));
        for (std::size_t i = 0; i < n; ++i) {
            FileKind kind;
            if (classify_file(walked.files[i].path, kind) && !uncached[i].skip_reason)
                records.push_back({walked.files[i].path, kind, &uncached[i].facts});
        }
    } else {
        known.for_each([&](const std::string& path, const ScanCache::Entry& e) {
            FileKind kind;
            if (!e.outcome.skip_reason && classify_file(path, kind)) records.push_back({path, kind, &e.outcome.facts});
        });
    }
    std::sort(records.begin(), records.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    program::ModelOptions model_options;
    if (options.project_config) {
        program::ProjectConfig config = program::load_project_config(base);
        model_options = {std::move(config.entries), std::move(config.tooling_dirs), std::move(config.tooling_files),
                         std::move(config.not_tooling_dirs)};
    }
    if (!options.entries.empty()) model_options.entries = options.entries;  // the command line wins
    const program::ProgramModel model(records, m_catalogue.program(), model_options);
    program::apply_program_model(model, m_catalogue.program(), result.findings);
    result.program = model.summary();
    if (options.cache_dir && cache_changed) {
        try {
            fresh.save(*options.cache_dir);
        } catch (const std::exception& e) {
            result.warnings.push_back(std::string("scan cache not saved: ") + e.what() + " (use --no-cache or --cache-dir)");
        }
    }
    sort_findings(result.findings);
    assign_fingerprints(result.findings);
    std::sort(result.skipped.begin(), result.skipped.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace mpsport
