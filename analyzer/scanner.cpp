#include "analyzer/scanner.hpp"

#include <strings.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "analyzer/checkpoints/checkpoint_engine.hpp"
#include "analyzer/checkpoints/zip_reader.hpp"
#include "analyzer/configs/config_link.hpp"
#include "analyzer/lines/line_engine.hpp"
#include "analyzer/lines/shell_guards.hpp"
#include "analyzer/manifests/includes.hpp"
#include "analyzer/manifests/manifest_engine.hpp"
#include "analyzer/match.hpp"
#include "analyzer/notebooks/notebook.hpp"
#include "analyzer/program/data_reach.hpp"
#include "analyzer/program/entry_refs.hpp"
#include "analyzer/program/program_model.hpp"
#include "analyzer/program/project_config.hpp"
#include "analyzer/python/python_engine.hpp"
#include "analyzer/scan_cache.hpp"
#include "core/hash.hpp"
#include "core/parallel.hpp"
#include "core/paths.hpp"
#include "core/source_text.hpp"

namespace fs = std::filesystem;

namespace mpsport {
namespace {

// The command lines of shell, Slurm, Docker and Make files that run a Python script of this scan
// with file paths as arguments (`python train.py --config configs/x.yaml`).
// `unwalked`: for a partial scan (check), the cache's entries of the files it did not walk, whose
// launch lines count as well.
std::vector<configs::Launch> data_launches(const WalkResult& walked, const std::vector<ScanCache::Entry>& entries,
                                           const std::vector<std::pair<const std::string*, const ScanCache::Entry*>>& unwalked) {
    std::vector<configs::FileWithFacts> files;
    std::set<std::string> python;
    for (std::size_t i = 0; i < walked.files.size(); ++i) {
        if (walked.files[i].kind == FileKind::python) python.insert(walked.files[i].path);
        if (!entries[i].outcome.facts.entry_refs.empty()) files.push_back({&walked.files[i].path, &entries[i].outcome.facts});
    }
    for (const auto& [path, entry] : unwalked) {
        FileKind kind;
        if (classify_file(*path, kind) && kind == FileKind::python) python.insert(*path);
        if (!entry->outcome.facts.entry_refs.empty()) files.push_back({path, &entry->outcome.facts});
    }
    return configs::launches_with_paths(files, python);
}

// What the scan memo is keyed on besides the cache key: the folder, every walked file's path, kind,
// size and mtime (or why it cannot be read), the walk's skipped files and its count of ignored
// folders. nullopt when a file has no mtime: then size and mtime cannot stand for its content.
std::optional<std::uint64_t> digest_of_walk(const fs::path& base, const WalkResult& walked, const std::vector<SkippedFile>& skipped,
                                            const std::vector<std::optional<std::string>>& problems) {
    std::string k = base.generic_string() + "|" + std::to_string(walked.ignored_dirs);
    k.reserve(walked.files.size() * 64);
    for (std::size_t i = 0; i < walked.files.size(); ++i) {
        const FileEntry& f = walked.files[i];
        const auto& problem = problems[i];
        if (!problem && f.mtime_ns == 0) return std::nullopt;
        k += "|" + f.path + ":" + std::to_string(static_cast<int>(f.kind)) + ":" +
             (problem ? *problem : std::to_string(f.size) + ":" + std::to_string(f.mtime_ns));
    }
    for (const auto& sk : skipped) k += "|skipped:" + sk.path + ":" + sk.reason;
    for (const auto& d : walked.licensed_dirs) k += "|licensed:" + d.dir + ":" + std::to_string(d.licence);
    return fnv1a64(k);
}

// A float64 tensor whose device its own file cannot tell, taken from a call of a function of the
// repository's whose `device` (or `map_location`) defaults to "cpu" and which the call leaves out:
// timm's avg_checkpoints.py casts the tensors of `load_state_dict(c, args.use_ema)`, whose
// `device='cpu'` reads the checkpoint onto the CPU. Made on the CPU, so not reported, as a float64
// tensor made on the CPU in its own file is not. Only where the file imports that name, and one
// function of the project by that name says so. A package's loader does too where the float64 rule's
// `cpu_loaders` data names it ("MODULE.FUNCTION PARAMETER POSITION") and the file imports it from that
// module: efficientdet-pytorch's avg_checkpoints.py takes timm's load_state_dict, whose device
// defaults to "cpu".
void drop_cpu_loaded_float64(const std::vector<program::FileRecord>& records, const program::ProgramModel& model, const Rule* float64_rule,
                             std::vector<Finding>& findings) {
    std::map<std::string, std::vector<std::pair<const program::FileRecord*, const CpuDefaultFunction*>>> loaders;
    std::map<std::string, const program::FileRecord*, std::less<>> by_path;
    for (const auto& r : records) {
        by_path.emplace(r.path, &r);
        if (r.facts)
            for (const auto& f : r.facts->cpu_default_functions) loaders[f.function].emplace_back(&r, &f);
    }
    struct PackageLoader {
        std::string module;
        CpuDefaultFunction fn;
    };
    std::map<std::string, std::vector<PackageLoader>> package_loaders;  // function -> where it comes from
    if (float64_rule)
        if (const auto it = float64_rule->params.find("cpu_loaders"); it != float64_rule->params.end())
            for (const auto& entry : it->second) {
                std::istringstream in(entry);
                std::string dotted, parameter;
                int position = -1;
                if (!(in >> dotted >> parameter >> position) || dotted.find('.') == std::string::npos) continue;
                const std::string function = dotted.substr(dotted.rfind('.') + 1);
                package_loaders[function].push_back({dotted.substr(0, dotted.rfind('.')), {function, parameter, position, 0}});
            }
    if (loaders.empty() && package_loaders.empty()) return;
    auto not_passed = [](const Finding& f, const CpuDefaultFunction& fn) {
        const auto& passed = f.origin->keywords;
        return std::find(passed.begin(), passed.end(), fn.parameter) == passed.end() && !(fn.position >= 0 && f.origin->positional > fn.position);
    };
    findings.erase(std::remove_if(findings.begin(), findings.end(), [&](const Finding& f) {
        if (!f.origin || f.origin->spread) return false;
        const auto file = by_path.find(f.location.path);
        if (file == by_path.end() || !file->second->facts) return false;
        const auto& imports = file->second->facts->imports;
        if (const auto pkg = package_loaders.find(f.origin->function); pkg != package_loaders.end())
            for (const auto& loader : pkg->second)
                if (std::any_of(imports.begin(), imports.end(), [&](const ImportFact& imp) {
                        return imp.level == 0 && imp.module == loader.module &&
                               std::find(imp.names.begin(), imp.names.end(), f.origin->function) != imp.names.end();
                    }))
                    return not_passed(f, loader.fn);
        const auto by = loaders.find(f.origin->function);
        if (by == loaders.end()) return false;
        if (std::none_of(imports.begin(), imports.end(), [&](const ImportFact& imp) {
                return std::find(imp.names.begin(), imp.names.end(), f.origin->function) != imp.names.end();
            }))
            return false;
        std::vector<const CpuDefaultFunction*> same;
        for (const auto& [r, fn] : by->second)
            if (model.same_project(r->path, f.location.path)) same.push_back(fn);
        if (same.size() != 1) return false;
        return not_passed(f, *same.front());
    }), findings.end());
}

}  // namespace

Scanner::Scanner(const RuleCatalogue& catalogue, std::string target_torch)
    : m_catalogue(catalogue), m_target_torch(std::move(target_torch)) {
    require_bundled_torch_version(m_target_torch);
}

Scanner::~Scanner() = default;

// Ops registered in one file and implemented in another are joined once every file is read.
void Scanner::link_native(const std::map<std::string, cuda::TuFacts>& native, bool any_native, ScanResult& result) const {
    cuda::LinkedOps linked = cuda::link_native_ops(native, m_catalogue);
    result.native_modules = std::move(linked.modules);
    result.findings.insert(result.findings.end(), linked.findings.begin(), linked.findings.end());
    if (any_native && m_clang && !m_clang->unavailable().empty())
        result.warnings.push_back("rules with engine: clang were not run on the C++/CUDA files: " + m_clang->unavailable());
    if (any_native && !cuda::ClangEngine::available()) {
        std::size_t n = 0;
        for (const auto& r : m_catalogue.rules()) n += r.engine == "clang";
        if (n > 0)
            result.warnings.push_back(std::to_string(n) + " rules with engine: clang were not run on the C++/CUDA files: " +
                                      cuda::ClangEngine::description());
    }
}

void Scanner::build_engines() const {
    std::call_once(m_engines_once, [this] {
        m_python = std::make_unique<python::PythonEngine>(m_catalogue, m_target_torch);
        m_manifests = std::make_unique<manifests::ManifestEngine>(m_catalogue);
        m_clang = std::make_unique<cuda::ClangEngine>(m_catalogue);
        m_lines = std::make_unique<lines::LineEngine>(m_catalogue);
        m_checkpoints = std::make_unique<checkpoints::CheckpointEngine>(m_catalogue);
    });
}

FileOutcome Scanner::scan_text(const std::string& path, FileKind kind, std::string text, bool full_parse) const {
    FileEntry file;
    file.path = path;
    file.absolute = fs::absolute(path);
    file.kind = kind;
    build_engines();
    if (m_clang->reads(kind)) m_clang->prepare();  // a bad matcher throws here, not as the file's skip reason
    if (m_lines->reads(kind)) m_lines->prepare();  // and a bad line pattern
    FileOutcome out = analyze_file(file, std::move(text), cuda::CompileFlags(), ScanOptions().clang_timeout_s, false, full_parse);
    if (!out.native.empty()) {
        auto linked = cuda::link_native_ops({{path, out.native}}, m_catalogue);
        out.findings.insert(out.findings.end(), linked.findings.begin(), linked.findings.end());
    }
    for (auto& f : out.findings) program::weigh(f, program::Level::core, {}, m_catalogue.program());
    return out;
}

FileOutcome Scanner::analyze_file(const FileEntry& file, std::string text, const cuda::CompileFlags& flags, unsigned clang_timeout_s,
                                  bool parse_native, bool full_parse) const {
    build_engines();
    const std::string& path = file.path;
    const FileKind kind = file.kind;
    FileOutcome out;
    if (is_binary(text)) {
        out.skip_reason = "binary file (contains NUL bytes)";
        return out;
    }
    // Bad UTF-8 (a Latin-1 comment) does not hide the rest of the file: read it with replacement
    // characters and mark what it yields as approximate.
    if (text_problem(text)) {
        text = decode_utf8_lossy(text);
        out = analyze_file(file, std::move(text), flags, clang_timeout_s, parse_native, full_parse);
        for (auto& f : out.findings) f.approximate = true;
        return out;
    }
    try {
        if (kind == FileKind::notebook) {
            const ProgramVocabulary& vocab = m_catalogue.program();
            notebooks::NotebookSource nb = notebooks::notebook_to_python(text, {vocab.hosted_notebook_metadata, vocab.hosted_notebook_strings});
            const SourceText source(std::move(nb.python));
            out.lines = source.line_count();
            auto analysed = m_python->analyze(source.text(), full_parse);
            append_findings(analysed.matches, source, path, Suppressions::parse(source), out.findings, &nb.cell_lines);
            out.facts = std::move(analysed.facts);
            if (!nb.hosted.empty()) out.facts.hosted_demo = "notebook made for a hosted GPU service (" + nb.hosted + "): a demo";
            else if (!nb.nbdev.empty())
                out.facts.hosted_demo = "nbdev notebook (" + nb.nbdev + "): its exported cells are the package's modules, the rest development runs";
            out.config_facts = std::move(analysed.config_facts);
            return out;
        }
        const SourceText source(std::move(text));
        out.lines = source.line_count();
        const Suppressions suppressions = Suppressions::parse(source);
        if (kind == FileKind::python) {
            auto analysed = m_python->analyze(source.text(), full_parse);
            append_findings(analysed.matches, source, path, suppressions, out.findings);
            out.facts = std::move(analysed.facts);
            out.config_facts = std::move(analysed.config_facts);
        }
        const FileKind manifest = manifests::manifest_kind(path, kind);
        if (m_manifests->reads(manifest))
            append_findings(m_manifests->analyze(manifest, source), source, path, suppressions, out.findings);
        if (m_lines->reads(kind)) {
            std::vector<Match> matches = m_lines->analyze(kind, source);
            if (kind == FileKind::shell) lines::guard_shell_matches(source.text(), m_catalogue.program().guards, matches);
            append_findings(matches, source, path, suppressions, out.findings);
        }
        if (kind != FileKind::python) out.facts = program::entry_facts(kind, source.text());
        if (m_clang->reads(kind)) {
            cuda::TuResult tu = m_clang->analyze(path, file.absolute, kind, source.text(), flags, clang_timeout_s, parse_native);
            if (tu.skip_reason) throw std::runtime_error(*tu.skip_reason);
            append_findings(tu.matches, source, path, suppressions, out.findings);
            out.native = std::move(tu.facts);
        }
    } catch (const std::exception& e) {
        out.findings.clear();
        out.skip_reason = e.what();
    }
    return out;
}

FileOutcome Scanner::scan_checkpoint(const FileEntry& file, const checkpoints::Limits& limits) const {
    build_engines();
    FileOutcome out;
    try {
        out.findings = m_checkpoints->analyze(file, limits);
    } catch (const checkpoints::FormatError& e) {
        out.skip_reason = e.what();
    }
    return out;
}

namespace {

// A scan's clock: the seconds of each phase, in `timings`, and of the whole scan.
class PhaseClock {
public:
    explicit PhaseClock(std::vector<std::pair<std::string, double>>& timings) : m_timings(timings) {}
    void operator()(const char* name) {
        const auto now = std::chrono::steady_clock::now();
        m_timings.emplace_back(name, std::chrono::duration<double>(now - m_last).count());
        m_last = now;
    }
    double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count(); }

private:
    std::vector<std::pair<std::string, double>>& m_timings;
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now(), m_last = m_start;
};

// The start of every scan: the walk, a stat of each file (on every core), and for a full scan with
// a cache folder the digest of what was walked, with the memo it keys when there is one (its timings
// those of this scan).
struct Walked {
    WalkResult walked;
    std::vector<ScanCache::Entry> entries;  // size and mtime, or why the file cannot be read
    std::optional<std::uint64_t> digest;
    std::optional<ScanResult> memo;
};

Walked walk_and_stat(const fs::path& base, const std::vector<fs::path>& roots, const ScanOptions& options, std::uint64_t cache_key,
                     unsigned jobs, ScanResult& result, PhaseClock& phase) {
    Walked w;
    WalkOptions walk_options = options.walk;
    walk_options.stat_files = false;  // stat()ed below, on every core
    w.walked = walk(base, roots, walk_options);
    manifests::follow_requirement_includes(base, w.walked);
    result.skipped = std::move(w.walked.skipped);
    result.ignored_dirs = w.walked.ignored_dirs;
    phase("walk");

    const std::size_t n = w.walked.files.size();
    // What stat() finds wrong, by file; the cache entries are made only where the memo misses (made
    // for every file first, they were a tenth of a warm scan).
    std::vector<std::optional<std::string>> problems(n);
    parallel_for(n, [&](std::size_t i) { problems[i] = stat_file(w.walked.files[i], options.walk.max_file_size); },
                 static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(1, n))));
    phase("stat");
    // A full scan that walks the very files the last one did, each with the same size and mtime,
    // gives the last one's result (the memo); everything else that decides it is in the cache key.
    if (options.cache_dir && !options.partial) {
        w.digest = digest_of_walk(base, w.walked, result.skipped, problems);
        if (w.digest) w.memo = ScanCache::load_result(*options.cache_dir, cache_key, *w.digest, base, options.unchanged);
    }
    if (w.memo) {
        phase("memo");
        w.memo->timings = std::move(result.timings);
        w.memo->seconds = phase.seconds();
        return w;
    }
    w.entries.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        w.entries[i].outcome.skip_reason = std::move(problems[i]);
        w.entries[i].size = w.walked.files[i].size;
        w.entries[i].mtime_ns = w.walked.files[i].mtime_ns;
    }
    return w;
}

// Up to this many Python files to read, the Python engine compiles only the queries of the rules
// they name (PythonEngine::prepare).
constexpr std::size_t kFewFiles = 64;

unsigned default_jobs(const ScanOptions& options) { return options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace

std::optional<ScanResult> Scanner::kept(const fs::path& base, const std::vector<fs::path>& roots, const ScanOptions& options,
                                        std::uint64_t cache_key) {
    if (!options.cache_dir || options.partial || !options.unchanged) return std::nullopt;
    ScanResult result;
    PhaseClock phase(result.timings);
    Walked w = walk_and_stat(base, roots, options, cache_key, default_jobs(options), result, phase);
    if (!w.memo || !w.memo->reused) return std::nullopt;
    return std::move(w.memo);
}

void Scanner::start_queries(const std::vector<fs::path>& roots, std::uintmax_t max_size) const {
    std::vector<std::string> texts;
    for (const auto& root : roots) {
        FileKind kind;
        std::error_code ec;
        const fs::path path = fs::absolute(root, ec);
        if (ec || !classify_file(path.generic_string(), kind) || kind != FileKind::python || !fs::is_regular_file(path, ec)) return;
        const auto size = fs::file_size(path, ec);
        if (ec || size > max_size) return;
        try {
            texts.push_back(read_file(path));
        } catch (const std::exception&) {
            return;  // the scan reads it again and says why
        }
    }
    build_engines();
    m_python->prepare(std::vector<std::string_view>(texts.begin(), texts.end()));
}

ScanResult Scanner::scan(const fs::path& base, const std::vector<fs::path>& roots, const ScanOptions& options) const {
    // A check of a few Python files: the queries of the rules they name, the longest step of such a
    // check, start compiling now, beside the walk, which still decides what is read.
    if (options.partial && roots.size() <= kFewFiles) start_queries(roots, options.walk.max_file_size);
    ScanResult result;
    result.target_torch = m_target_torch;
    PhaseClock phase(result.timings);
    const std::uint64_t cache_key = options.cache_dir ? ScanCache::key_for(m_catalogue, m_target_torch, options) : 0;
    unsigned jobs = default_jobs(options);
    Walked w = walk_and_stat(base, roots, options, cache_key, jobs, result, phase);
    if (w.memo) return std::move(*w.memo);
    WalkResult& walked = w.walked;
    std::vector<ScanCache::Entry>& entries = w.entries;
    const std::optional<std::uint64_t>& walk_digest = w.digest;
    const std::size_t n = walked.files.size();
    std::vector<char> from_cache(n, 0);  // 1: same size and mtime; 2: same content, new mtime
    jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(1, n)));
    auto in_parallel = [&](auto&& body) { parallel_for(n, body, jobs); };
    ScanCache cache = options.cache_dir ? ScanCache::load(*options.cache_dir, cache_key) : ScanCache();
    phase("cache load");

    // Take what the cache still knows by size and mtime.
    std::atomic<bool> any_to_read{false};
    std::atomic<bool> any_native_to_read{false};  // Clang, its module and flags, only for these
    in_parallel([&](std::size_t i) {
        FileEntry& file = walked.files[i];
        ScanCache::Entry& entry = entries[i];
        if (entry.outcome.skip_reason) return;
        if (file.kind == FileKind::config) return;  // read after the Python files, if they name it
        // Taken, not copied (copying every outcome was a tenth of a warm scan): only this file's
        // worker looks at its entry again, and a partial scan keeps just the files it did not walk.
        ScanCache::Entry* cached = options.cache_dir ? cache.find_to_take(file.path) : nullptr;
        if (cached && options.parse_every_native_file && cached->outcome.native.unparsed) cached = nullptr;
        if (cached && cached->size == file.size && cached->mtime_ns == file.mtime_ns && file.mtime_ns != 0) {
            entry.hash = cached->hash;
            entry.outcome = std::move(cached->outcome);
            from_cache[i] = 1;
            return;
        }
        any_to_read = true;
        if (file.kind == FileKind::cuda || file.kind == FileKind::cpp) any_native_to_read = true;
    });
    phase("cache take");
    std::unordered_map<std::size_t, std::string> prefetched;  // file index -> text, read before phase 2
    if (any_to_read) {  // here, so a broken rule fails the scan rather than a worker
        build_engines();
        // A few Python files to read (a pre-commit check): the engine compiles the queries of the
        // rules they name only (PythonEngine::prepare). Read here, they are analysed from these texts below.
        std::vector<std::size_t> python_to_read;
        for (std::size_t i = 0; i < n && python_to_read.size() <= kFewFiles; ++i) {
            const FileEntry& file = walked.files[i];
            if (!from_cache[i] && !entries[i].outcome.skip_reason && (file.kind == FileKind::python || file.kind == FileKind::notebook))
                python_to_read.push_back(i);
        }
        if (python_to_read.size() <= kFewFiles) {
            std::vector<std::string_view> texts;
            for (std::size_t i : python_to_read) {
                try {
                    texts.emplace_back(prefetched.emplace(i, read_file(walked.files[i].absolute)).first->second);
                } catch (const std::exception&) {
                    // phase 2 reads it again and says why
                }
            }
            m_python->prepare(texts);
        } else {
            m_python->prepare();
        }
    }
    const bool any_native = std::any_of(walked.files.begin(), walked.files.end(), [](const FileEntry& f) {
        return f.kind == FileKind::cuda || f.kind == FileKind::cpp;
    });
    auto infer_flags = [&] { return cuda::CompileFlags::infer(base, m_clang->trigger_literals()); };
    cuda::CompileFlags flags = any_native_to_read ? infer_flags() : cuda::CompileFlags();
    if (any_native && cuda::ClangEngine::forks_need_one_thread()) {
        // See there: sanitizer builds only. The Python queries compile on a thread of their own
        // (PythonEngine::prepare), which allocates: it must end before a Clang worker is forked.
        jobs = 1;
        if (m_python) m_python->wait_for_queries();
    }
    if (any_native_to_read) m_clang->prepare();  // here too: a bad matcher fails the scan, not a worker
    // and a bad line pattern, where a file of a kind the line rules read is to be read
    for (std::size_t i = 0; any_to_read && i < n; ++i)
        if (!from_cache[i] && !entries[i].outcome.skip_reason && m_lines->reads(walked.files[i].kind)) {
            m_lines->prepare();
            break;
        }

    phase("engines");
    // Phase 2: read, hash and analyse the rest.
    in_parallel([&](std::size_t i) {
        const FileEntry& file = walked.files[i];
        ScanCache::Entry& entry = entries[i];
        if (from_cache[i] || entry.outcome.skip_reason || file.kind == FileKind::config) return;  // configs: below
        if (file.kind == FileKind::checkpoint) {  // headers only: the size and mtime stand for the content
            entry.hash = fnv1a64(std::to_string(file.size) + ":" + std::to_string(file.mtime_ns));
            entry.outcome = scan_checkpoint(file, options.checkpoints);
            return;
        }
        std::string text;
        try {
            // each worker takes only its own file's text: the map itself is not changed here
            const auto read = prefetched.find(i);
            text = read != prefetched.end() ? std::move(read->second) : read_file(file.absolute);
        } catch (const std::exception& e) {
            entry.outcome.skip_reason = std::string("unreadable: ") + e.what();
            return;
        }
        entry.hash = content_hash(text);
        const ScanCache::Entry* cached = options.cache_dir ? cache.find(file.path) : nullptr;
        if (cached && options.parse_every_native_file && cached->outcome.native.unparsed) cached = nullptr;
        if (cached && cached->hash == entry.hash && cached->size == file.size) {
            entry.outcome = cached->outcome;
            from_cache[i] = 2;
            return;
        }
        entry.outcome = analyze_file(file, std::move(text), flags, options.clang_timeout_s, options.parse_every_native_file, options.full_parse);
    });
    if (m_python) m_python->wait_for_queries();  // a bad query fails the scan, as before any file

    phase("analyse");
    // Phase 2b: a C++/CUDA file that names no trigger was not parsed; it is now, for its functions,
    // when it names a function that a binding calls and that no parsed file defines (its body says
    // which devices the op has). Each file is parsed so at most once: the cache keeps the result.
    if (any_native && m_clang) {
        std::map<std::string, cuda::TuFacts> parsed;
        std::vector<char> unparsed(n, 0);
        for (std::size_t i = 0; i < n; ++i) {
            const FileOutcome& o = entries[i].outcome;
            if (o.skip_reason) continue;
            if (o.native.unparsed) unparsed[i] = 1;
            else if (!o.native.empty()) parsed[walked.files[i].path] = o.native;
        }
        const std::set<std::string> wanted = std::count(unparsed.begin(), unparsed.end(), 1) ? cuda::unresolved_callees(parsed)
                                                                                               : std::set<std::string>();
        if (!wanted.empty()) {
            if (!any_native_to_read) flags = infer_flags();
            const TriggerSet names(std::vector<std::string>(wanted.begin(), wanted.end()));
            in_parallel([&](std::size_t i) {
                if (!unparsed[i]) return;
                std::string text;
                try {
                    text = read_file(walked.files[i].absolute);
                } catch (const std::exception&) {
                    return;  // read once already: what it said then stands
                }
                // As a whole name: `gn_cuda` wanted is not named by `#include "gn_cuda_host_template.cuh"`
                // (apex's fifteen generated instantiation files, 0.8 s of Clang each).
                const auto hits = names.find_each(text);
                if (std::none_of(hits.begin(), hits.end(), [&](const auto& hit) {
                        const std::size_t end = hit.first + names.literals()[hit.second].size();
                        return (hit.first == 0 || !is_word_char(text[hit.first - 1])) && (end == text.size() || !is_word_char(text[end]));
                    }))
                    return;
                entries[i].outcome = analyze_file(walked.files[i], std::move(text), flags, options.clang_timeout_s, true);
                from_cache[i] = 0;
            });
        }
    }

    phase("on-demand parse");
    std::map<std::string, cuda::TuFacts> native;
    // Phase 3: config files that some Python file names, or that a launch script passes to one. A
    // config's outcome depends on those files too: the cache reuses it while the config and all of
    // them are unchanged. Who reads a config or a checkpoint is found on every scan (it is cheap, and
    // decides the reach of cached findings too).
    std::vector<configs::PythonFile> python_files;
    std::string readers_key;
    for (std::size_t i = 0; i < n; ++i)
        if (!entries[i].outcome.config_facts.empty()) {
            python_files.push_back({&walked.files[i].path, &entries[i].outcome.config_facts});
            readers_key += walked.files[i].path + ":" + std::to_string(entries[i].hash) + "|";
        }
    // A check of a few files (a changed config, say) finds their readers among all the files the
    // cache knows, not only among the files it checks.
    // Only a partial scan asks which files it walked (100k paths: 13 MB).
    std::set<std::string> walked_paths;
    std::vector<std::pair<const std::string*, const ScanCache::Entry*>> unwalked;
    if (options.partial) {
        for (const auto& f : walked.files) walked_paths.insert(f.path);
        cache.for_each([&](const std::string& path, const ScanCache::Entry& e) {
            if (!walked_paths.count(path) && !e.outcome.skip_reason) unwalked.emplace_back(&path, &e);
        });
        std::sort(unwalked.begin(), unwalked.end(), [](const auto& a, const auto& b) { return *a.first < *b.first; });
        for (const auto& [path, e] : unwalked)
            if (!e->outcome.config_facts.empty()) {
                python_files.push_back({path, &e->outcome.config_facts});
                readers_key += *path + ":" + std::to_string(e->hash) + "|";
            }
    }
    const std::vector<configs::Launch> launches = data_launches(walked, entries, unwalked);
    for (const auto& l : launches)
        for (const auto* list : {&l.args, &l.overrides})
            for (const auto& arg : *list) readers_key += l.via + ">" + l.script + ":" + arg + "|";
    // The key paths the code imports modules from (`importlib.import_module(cfg.model.type)`).
    std::set<std::string> dispatch_keys;
    auto add_dispatch_keys = [&](const FileFacts& facts) {
        for (const auto& imp : facts.imports)
            if (!imp.config_key.empty()) dispatch_keys.insert(imp.config_key);
    };
    for (const auto& e : entries) add_dispatch_keys(e.outcome.facts);
    for (const auto& [path, e] : unwalked) add_dispatch_keys(e->outcome.facts);
    for (const auto& k : dispatch_keys) readers_key += "import_module(" + k + ")|";
    const std::uint64_t readers_hash = fnv1a64(readers_key);
    std::vector<std::vector<DataReader>> data_readers(n);
    const configs::NamedFiles names(python_files);
    const configs::HydraSelection hydra(base);
    in_parallel([&](std::size_t i) {
        const FileEntry& file = walked.files[i];
        ScanCache::Entry& entry = entries[i];
        if (entry.outcome.skip_reason) return;
        if (file.kind == FileKind::checkpoint) {
            data_readers[i] = configs::checkpoint_readers(file.path, python_files, launches);
            return;
        }
        if (file.kind != FileKind::config) return;
        data_readers[i] = configs::config_readers(file.path, names, python_files, launches, hydra);
        entry.hash = fnv1a64(std::to_string(readers_hash) + ":" + std::to_string(file.size) + ":" + std::to_string(file.mtime_ns));
        const ScanCache::Entry* cached = options.cache_dir ? cache.find(file.path) : nullptr;
        if (cached && cached->hash == entry.hash && cached->size == file.size && cached->mtime_ns == file.mtime_ns && file.mtime_ns != 0) {
            entry.outcome = cached->outcome;
            from_cache[i] = 1;
            return;
        }
        configs::ConfigOutcome c = configs::analyze_config(file, data_readers[i], python_files, m_catalogue, options.walk.max_file_size, dispatch_keys);
        FileOutcome& o = entry.outcome;
        o.unread = !c.referenced;
        o.findings = std::move(c.findings);
        o.skip_reason = std::move(c.skip_reason);
        o.lines = c.lines;
        o.facts.imports = std::move(c.targets);
    });
    program::DataReaders readers_of;
    for (std::size_t i = 0; i < n; ++i)
        if (!data_readers[i].empty()) readers_of[walked.files[i].path] = std::move(data_readers[i]);

    phase("configs");
    ScanCache fresh(cache_key);
    // Rewrite the cache only when something changed: a file was (re)read, added or removed.
    bool cache_changed = options.cache_dir && !options.partial && cache.size() != n;
    std::vector<program::FileRecord> records;
    std::size_t finding_count = 0;
    for (const auto& e : entries) finding_count += e.outcome.findings.size();
    result.findings.reserve(finding_count);
    for (std::size_t i = 0; i < n; ++i) {
        cache_changed = cache_changed || from_cache[i] != 1;
        FileOutcome& o = entries[i].outcome;
        if (o.unread) {  // a config no Python file names: not read, not counted
            if (options.cache_dir) fresh.put(walked.files[i].path, std::move(entries[i]));
            continue;
        }
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
    if (!options.cache_dir) {
        // without a cache the facts stay where the workers put them (a copy cost 44 MB at 100,000 files)
        for (std::size_t i = 0; i < n; ++i) {
            const FileOutcome& o = entries[i].outcome;
            FileKind kind;
            if (classify_file(walked.files[i].path, kind) && !o.skip_reason) records.push_back({walked.files[i].path, kind, &o.facts});
            if (!o.skip_reason && !o.native.empty()) native[walked.files[i].path] = o.native;
        }
    } else {
        known.for_each([&](const std::string& path, const ScanCache::Entry& e) {
            FileKind kind;
            if (!e.outcome.skip_reason && classify_file(path, kind)) records.push_back({path, kind, &e.outcome.facts});
            if (!e.outcome.skip_reason && !e.outcome.native.empty()) native[path] = e.outcome.native;
        });
    }
    std::sort(records.begin(), records.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    std::vector<std::string> truncated;
    for (const auto& [path, facts] : native)
        if (facts.includes_truncated) truncated.push_back(path);
    if (!truncated.empty())
        result.warnings.push_back(std::to_string(truncated.size()) + " C++/CUDA file(s) include more header text than one file may read (" +
                                  std::to_string(cuda::kIncludeBudgetBytes >> 20) +
                                  " MB); the headers past that were read as empty and the files' own lines analysed: " +
                                  truncated.front() + (truncated.size() > 1 ? " and others" : ""));
    phase("collect");
    link_native(native, any_native, result);  // before the model, which weighs these findings too
    program::ModelOptions model_options;
    if (options.project_config) {
        program::ProjectConfig config = program::load_project_config(base);
        model_options.entries = std::move(config.entries);
        model_options.tooling_dirs = std::move(config.tooling_dirs);
        model_options.tooling_files = std::move(config.tooling_files);
        model_options.not_tooling_dirs = std::move(config.not_tooling_dirs);
    }
    if (!options.entries.empty()) model_options.entries = options.entries;  // the command line wins
    model_options.data_readers = &readers_of;
    model_options.licensed_dirs = walked.licensed_dirs;
    options_commands_pass(base, records, model_options);
    for (const auto& r : records) {
        const std::size_t slash = r.path.rfind('/');
        const std::string dir = slash == std::string::npos ? std::string() : r.path.substr(0, slash);
        const std::string name = slash == std::string::npos ? r.path : r.path.substr(slash + 1);
        if (r.kind != FileKind::markdown || dir.find('/') != std::string::npos || strncasecmp(name.c_str(), "readme", 6) != 0) continue;
        try {
            model_options.readmes[dir] += read_file(base / r.path);
        } catch (const std::exception&) {
            // gone since the walk: it documents nothing
        }
    }
    // Cog's containers (Replicate): the predictor a cog.yaml names runs on Linux, never on a Mac.
    std::vector<const program::FileRecord*> cog_files;
    for (const auto& r : records)
        if (r.path == "cog.yaml" || (r.path.size() > 9 && r.path.compare(r.path.size() - 9, 9, "/cog.yaml") == 0)) cog_files.push_back(&r);
    std::set<std::string> paths;  // what a cog.yaml may name: only where there is one
    if (!cog_files.empty())
        for (const auto& r : records) paths.insert(r.path);
    for (const program::FileRecord* cog : cog_files) {
        const program::FileRecord& r = *cog;
        try {
            if (auto predictor = program::cog_predictor(r.path, read_file(base / r.path), [&](const std::string& p) { return paths.count(p) > 0; }))
                model_options.container_predictors.emplace(*predictor, r.path);
        } catch (const std::exception& e) {
            // It names no predictor, so the predictor's findings keep their weight; the file is listed
            // as skipped (and lowers the verdict's confidence), with where it fails to parse.
            result.skipped.push_back({r.path, std::string(e.what()) + " (fix the YAML, or its predictor is weighed as the training run's)"});
        }
    }
    phase("native links");
    program::ProgramModel model(records, m_catalogue.program(), model_options);
    phase("program model");
    // The calls through compiled extensions: the few files that import one are parsed again, whole,
    // unless the cache holds their calls through these very import lines.
    std::vector<std::pair<std::string, ScanCache::Entry>> memos;  // put after the model, which points into `fresh`
    // Each file's calls through those import lines, the files parsed side by side; nullopt for a file
    // that is gone since it was read (its imports still link the extension), or one `skip` marks.
    auto calls_in = [&](const std::vector<std::pair<std::string, std::set<int>>>& wanted, const std::vector<bool>& skip) {
        std::vector<std::optional<std::vector<ImportedCall>>> out(wanted.size());
        if (wanted.empty()) return out;
        build_engines();
        parallel_for(wanted.size(), [&](std::size_t i) {
            if (!skip.empty() && skip[i]) return;
            try {
                out[i] = m_python->calls_through_imports(read_file(base / wanted[i].first), wanted[i].second);
            } catch (const std::exception&) {
            }
        }, options.jobs);
        return out;
    };
    {
        // From the cache where it holds the calls through these very import lines, else parsed.
        const auto lines = model.extension_import_lines();
        const std::vector<std::pair<std::string, std::set<int>>> wanted(lines.begin(), lines.end());
        std::vector<const ScanCache::Entry*> entry(wanted.size(), nullptr);
        std::vector<bool> cached(wanted.size(), false);
        for (std::size_t i = 0; i < wanted.size(); ++i) {
            entry[i] = options.cache_dir ? fresh.find(wanted[i].first) : nullptr;
            cached[i] = entry[i] && entry[i]->outcome.extension_import_lines == wanted[i].second;
        }
        auto read = calls_in(wanted, cached);
        for (std::size_t i = 0; i < wanted.size(); ++i) {  // in the model's order, as when read one at a time
            const std::string& path = wanted[i].first;
            if (cached[i]) {
                model.add_imported_calls(path, entry[i]->outcome.extension_calls);
                continue;
            }
            if (!read[i]) continue;
            model.add_imported_calls(path, *read[i]);
            if (entry[i]) {
                ScanCache::Entry updated = *entry[i];
                updated.outcome.extension_import_lines = wanted[i].second;
                updated.outcome.extension_calls = std::move(*read[i]);
                memos.emplace_back(path, std::move(updated));
            }
        }
    }
    // Second round: the calls of the functions (and autograd.Function classes) those calls sit in,
    // in the files that import them by name. Few files; read again each scan, not memoised.
    {
        const auto lines = model.caller_import_lines();
        const std::vector<std::pair<std::string, std::set<int>>> wanted(lines.begin(), lines.end());
        auto read = calls_in(wanted, {});
        for (std::size_t i = 0; i < wanted.size(); ++i)
            if (read[i]) model.add_caller_calls(wanted[i].first, *read[i]);
    }
    phase("extension calls");
    weigh_backward_only_by_callers(records, model, base, result.findings);
    FunctionUsesMemo uses_memo;
    uses_memo.known = [&](const std::string& path) -> const std::map<std::string, FunctionUses>* {
        for (const auto& [memo_path, entry] : memos)
            if (memo_path == path) return &entry.outcome.function_uses;
        const ScanCache::Entry* e = options.cache_dir ? fresh.find(path) : nullptr;
        return e ? &e->outcome.function_uses : nullptr;
    };
    uses_memo.keep = [&](const std::string& path, std::map<std::string, FunctionUses> uses) {
        if (!options.cache_dir) return;
        // merged: one file may answer as a module and as an importer
        for (auto& [memo_path, entry] : memos)
            if (memo_path == path) {
                for (auto& [key, u] : uses) entry.outcome.function_uses[key] = std::move(u);
                return;
            }
        if (const ScanCache::Entry* e = fresh.find(path)) {
            ScanCache::Entry updated = *e;
            for (auto& [key, u] : uses) updated.outcome.function_uses[key] = std::move(u);
            memos.emplace_back(path, std::move(updated));
        }
    };
    guard_by_callers(records, model, base, uses_memo, options.full_parse, result.findings);
    drop_cpu_loaded_float64(records, model, m_catalogue.find("float64-dtype"), result.findings);
    phase("caller guards");
    // Configs and checkpoints take the reach of the code that reads them; the rest that of their file.
    std::vector<Finding> data_findings;
    const auto in_data_file = [&](const Finding& f) {
        const Rule* rule = m_catalogue.find(f.rule_id);
        return rule && (rule->engine == "config" || rule->engine == "checkpoint");
    };
    std::vector<Finding> code_findings;
    code_findings.reserve(result.findings.size());
    for (auto& f : result.findings) (in_data_file(f) ? data_findings : code_findings).push_back(std::move(f));
    result.findings = std::move(code_findings);
    weigh_options_declared_elsewhere(base, records, options.jobs, result.findings);
    keep_options_commands_turn_on(base, records, result.findings);
    read_import_uses(base, result.findings, model);
    std::set<std::string, std::less<>> no_mac_import;
    for (const auto& p : m_catalogue.packages())
        if (!p.imports_on_mac) no_mac_import.insert(p.import_name);
    program::apply_program_model(model, m_catalogue.program(), result.findings, no_mac_import);
    weigh_twin_definitions(records, model, base, result.findings);
    weigh_registry_choices(records, model, base, result.findings);
    weigh_kernel_twins(base, result.findings);
    program::apply_data_reach(model, readers_of, m_catalogue.program(), data_findings);
    result.findings.insert(result.findings.end(), data_findings.begin(), data_findings.end());
    result.program = model.summary();
    phase("weigh");
    for (auto& [path, entry] : memos) fresh.put(path, std::move(entry));
    cache_changed = cache_changed || !memos.empty();
    bool cache_saved = true;  // a memo is kept only beside the cache it came with
    if (options.cache_dir && cache_changed) {
        try {
            fresh.save(*options.cache_dir, options.partial ? &walked_paths : nullptr);
        } catch (const std::exception& e) {
            cache_saved = false;
            result.warnings.push_back(std::string("scan cache not saved: ") + e.what() + " (use --no-cache or --cache-dir)");
        }
    }
    phase("cache save");
    sort_findings(result.findings);
    merge_same_line(result.findings);
    assign_fingerprints(result.findings);
    std::sort(result.skipped.begin(), result.skipped.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    phase("sort");
    if (walk_digest && cache_saved) {
        std::set<std::string> read = hydra.files_read();
        std::vector<std::string> extras(read.begin(), read.end());
        if (options.project_config) extras.push_back(program::kProjectConfigFile);
        try {
            result.inputs_id = ScanCache::save_result(*options.cache_dir, cache_key, *walk_digest, base, extras, result);
        } catch (const std::exception& e) {
            result.warnings.push_back(std::string("scan memo not saved: ") + e.what() + " (use --no-cache or --cache-dir)");
        }
        phase("memo save");
    }
    result.seconds = phase.seconds();
    return result;
}

}  // namespace mpsport
