#include "analyzer/scan_cache.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#endif

#include "core/hash.hpp"
#include "core/mps_tables.hpp"
#include "core/paths.hpp"
#include "core/walker.hpp"

namespace fs = std::filesystem;

namespace mpsport {
namespace {

constexpr std::size_t kKeptFiles = 8;  // cache and memo files of other keys beyond these are removed, oldest first

std::string file_name(std::uint64_t key) { return "scan-cache-" + hex64(key) + ".bin"; }
std::string memo_name(std::uint64_t key) { return "scan-result-" + hex64(key) + ".bin"; }

// An exclusive lock on the cache folder for the life of the object (flock: released if we die).
class FolderLock {
public:
    explicit FolderLock(const fs::path& dir) {
#if defined(__unix__) || defined(__APPLE__)
        m_fd = ::open((dir / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (m_fd < 0) throw std::runtime_error((dir / "lock").generic_string() + ": cannot open (" + std::strerror(errno) + ")");
        while (::flock(m_fd, LOCK_EX) != 0)
            if (errno != EINTR) {
                ::close(m_fd);
                throw std::runtime_error((dir / "lock").generic_string() + ": cannot lock (" + std::strerror(errno) + ")");
            }
#endif
    }
    ~FolderLock() {
#if defined(__unix__) || defined(__APPLE__)
        ::close(m_fd);  // releases the lock
#endif
    }
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

private:
    int m_fd = -1;
};

// Keeps the cache folder small: the newest few cache files of other keys (another --select, target).
void remove_old_files(const fs::path& dir, std::uint64_t key) {
    std::error_code ec;
    std::vector<std::pair<fs::file_time_type, fs::path>> others;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("scan-", 0) != 0 || name == file_name(key) || name == memo_name(key)) continue;
        if (name.find(".tmp-mpsport-") != std::string::npos) continue;  // another process's write in flight
        others.emplace_back(it->last_write_time(ec), it->path());
    }
    if (others.size() < kKeptFiles) return;
    std::sort(others.begin(), others.end());
    for (std::size_t i = 0; i + kKeptFiles - 1 < others.size(); ++i) fs::remove(others[i].second, ec);
}

constexpr std::uint32_t kMagic = 0x4d505343;  // "MPSC"
constexpr std::uint32_t kFormat = 139;  // 139: a README import written over several lines names its module; 138: a registered class a shipped run config names is called; 137: a flag an import error handler sets to False is a package test; 136: gpu_ids and a device flag called as a method are device checks; 135: a config rule's `unread` severity; 134: a nested config key read outside its loaders must be written with the key above it; 133: FunctionUses::foreign_based; 132: a package that runs on macOS in part is said to, and one that installs there declares at info; 131: a module-level `NAME=value` written without spaces binds NAME for the regions to parse; 130: ... that return or raise without the tensor; 129: ... or in the one arm of an if whose other arms return or raise; 128: a float64 conversion is a CPU one by a later .numpy() only where that use runs whenever the conversion did; 127: the callers' pass parses a large script's option declarations; 126: a binding in another function or class is not the module-level name's; 125: gui and viewer are sampling entry words; 124: an import in a try whose handler imports it again stops an arm as an import does; 123: a name bound once at module level to an option off by default is that option; 122: a skip decorator imported under a name of its own (FileFacts::skip_aliases, HelperSkip::alias); 121: a try whose handler goes on as one process (world_size = 1) is a distributed gate; 120: a notebook named for a test is tooling; 119: a float64 receiver is made where the last assignment before it (in the text, done before it) makes it; 118: CollectSkip::via as written, resolved through the import graph; 117: the declaration of a package whose heaviest use is a toggle is minor; 116: an unguarded package toggle is major (it raises where the package is missing); 115: a program of its own in a folder named for CUDA weighs as cuda_named_tooling; 114: a function defined in a function or the `__main__` block that nothing names is never called; 113: the rest of a test past a call of a helper of its file that skips without CUDA; 112: a skip decorator comparing what a function of another file returns (FileFacts::helper_skips, ReturnWithoutCuda::falsy); 111: every module of `import a, b` counts past an import a Mac never has; 110: an object's own attribute (self.x) is no read of an option; 109: past an import of a package a Mac never has, an arm never runs on a Mac; 108: a count of devices compared with one is a distributed gate (device_count_names); 107: an option's default is guarded where every read of it is; 106: a sparse tensor read back at once is info where the target has both kernels; 105: an arm beside a CPU arm is guarded whatever the else refuses; 104: the value a flag off by default picks in a conditional expression is off by default; 103: a factory passed device="cpu" makes its tensor there; 102: `Class.method()` is no use of the class; 101: a CUDA device index compared with -1 (device_index_names) is a device check; 100: a subscript key names a distributed flag (distributed_keys), a class-built object binds no flag; 99: content hashes are XXH3; 98: an ImportError handler that only leaves None for a name called untested holds no fallback; 97: a dtype in a tuple, list or set of three or more is a vocabulary (not-in-table-of); 96: ImportFact::config_key, a module a config value names for import_module(cfg.model.type); 95: HyperPyYAML tags name config targets (readers.config_target_tags); 94: a module-level predicate answering False without CUDA is a device check; 93: CMake files name the Python modules they build (FileFacts::extensions); 92: getattr(x, "name", False), an enumeration member and a dataclass field default as guards; 91: `pkg.fn()` through a package that re-exports fn is a call of it, FunctionUses::classes; 90: a float64 in a tuple value of a dtype table is no tensor; 89: a call of a class the module defines under a library's name is no use of it; 88: a loop over range(torch.cuda.device_count()) is a device check; 87: an arm after a test naming MPS, a value replaced under one; 86: float64 of a tensor moved to the CPU in the expression, accepted_dtypes; 85: a top-level module is package API where no entry point is found; 84: a command's script is looked for in the folders above its file; 83: a name in a type annotation is no use of a function (FunctionUses::other_uses); 82: `"RANK" not in os.environ` is the single-process test; a name bound from the device count compared with 0 is the branch without CUDA; 81: a float64 tensor that a module-level function returns is followed to its calls in the file; 80: a flag named cuda on an options object (`if args.cuda:`) is a device check; 79: a value an unset device falls back to is a default (none-default); 78: a sub-project's package that the code outside it imports is no entry; 77: attribute_names blank comments line by line (python_comment_start); 76: a parameter off by default is turned on by a command passing its name; 75: `device_count() == 0` is the branch without CUDA; 74: FileFacts::hosted_demo holds the whole reason, nbdev notebooks; 73: ImportFact of an f-string import_module is a pattern; 72: FileFacts::attribute_names without comments; 71: a function named for CUDA and for being enabled is a device check; 70: an export of one machine's conda environment is one finding; 69: a declaration no file of its folder imports is tooling; 68: a check for a package a Mac never has is a device check; 67: a test named for CUDA is info; 66: a helper only CUDA-bound files import is CUDA-bound; 65: a merged finding's labels on one line, its related uses once; 64: a declared package whose wheel installs on macOS is info; 63: a shell test of a variable against "cuda" guards its branch; 62: an environment switch defaulting to False, None or 0 is off by default; 61: a CUDA index searched beside PyPI is info; 60: ExtensionFact::built_in_function, ImportedCall::module_level; 59: a JIT load named through its helper function's parameters, pathlib source paths; 58: one finding per rule, line and subject (a memo keeps the merged findings); 57: a branch under a flag its function sets to False is dead code (never-called); an op registered through a macro sits where the macro is used; 56: FileFacts::module_call_line; 55: a name a function binds once to False or None is off by default; 54: an f-string under a folder a name binds is a source path; 53: an option off by default around an import fallback decides, the fallback in its note; 52: an early return under a negated test that names MPS leaves MPS-aware code; 51: a flag compared with False (or not with True) is its test negated; 50: an `and` with an operand off by default is off by default; 49: ImportFact::in_string, a class a config target names in a dict of the code; 48: an import with a fallback inside one arm of a choice keeps import-fallback; 47: a test whose name says MPS (`mps_mode()`) knows MPS, also past an early return; 46: an import under a test named for its package is optional; 45: launch arguments take their script's variables, an unset one is a placeholder; 44: default-arm, the arm of a choice a parameter's default takes; 43: a package toggle (enable_xformers_memory_efficient_attention) is minor; 42: a method called by its own name takes those calls' guards, not its class's; distributed names in any case; 41: a definition a registry decorator stores is chosen; `self.X` off by default through __init__, `not X` on by default; a lazy import under one named option; 40: a function passed to a registry is chosen, not called; a keyword passing on a parameter off by default loads nothing; 39: a skip whose condition says nothing of a Mac is no guard; 38: `if TYPE_CHECKING:` never runs, an import past an early return naming its package; 37: a stay package used only on CUDA paths, and a device check leaving None for a called name (package imports); 36: `x = True if <test> else False` binds the test; 35: an extension kind taken from a table of both kinds is cuda_optional; 34: EntryRef::cwd; 33: ImportFact::end_line, FunctionUses::class_at and spans; 32: FunctionUses::Call::arms; 31: ExtensionFact::build_flag; 30: FileFacts::remote_code_line; 29: FunctionUses::selections; 28: EntryRef::documented_import; 27: FileFacts::script_end_line; 26: a function's import in one arm of an if is alternative-branch; 25: FileFacts::sys_path_folders; 24: FunctionUses::Call::branch; 23: EntryRef::end_line; 22: fields of dataclasses and attrs classes as constructor parameters (FunctionUses); 21: a function passed to a call is a call of it there (FunctionUses); 20: config and checkpoint references from the syntax tree, with their guards; 19: Finding::origin, FileFacts::cpu_default_functions; 18: a class's __init__ in FunctionUses::function_at under the class's name; 17: what each call passes, FunctionUses::parameter_defaults; 16: FileFacts::attribute_names; 15: FileOutcome::function_uses; 14: FileFacts::hosted_demo; 13: a checksum of the content

// The content and its checksum, appended; the content back when the checksum holds (a cache file
// is only ever an optimisation: a damaged one is read as missing).
std::string with_checksum(std::string bytes) {
    const std::uint64_t sum = content_hash(bytes);
    bytes.append(reinterpret_cast<const char*>(&sum), sizeof sum);
    return bytes;
}
std::optional<std::string_view> checked(std::string_view bytes) {
    if (bytes.size() < 8) return std::nullopt;
    std::uint64_t sum;
    std::memcpy(&sum, bytes.data() + bytes.size() - 8, 8);
    bytes.remove_suffix(8);
    if (content_hash(bytes) != sum) return std::nullopt;
    return bytes;
}

// A flat little binary format: loading it is most of a warm scan, and a JSON/msgpack DOM of every
// finding costs several times more than reading the fields straight into place.
class Writer {
public:
    void u64(std::uint64_t v) { m_out.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
    void str(const std::string& s) {
        u64(s.size());
        m_out += s;
    }
    void raw(const std::string& bytes) { m_out += bytes; }
    const std::string& bytes() const { return m_out; }

private:
    std::string m_out;
};

class Reader {
public:
    explicit Reader(std::string_view in) : m_in(in) {}
    std::uint64_t u64() {
        need(8);
        std::uint64_t v;
        std::memcpy(&v, m_in.data() + m_pos, 8);
        m_pos += 8;
        return v;
    }
    std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
    // An element count: never more than the bytes left, so a corrupt file cannot ask for huge memory.
    std::size_t count() {
        const std::uint64_t n = u64();
        need(n);
        return static_cast<std::size_t>(n);
    }
    std::string str() {
        const std::uint64_t n = u64();
        need(n);
        std::string s(m_in.substr(m_pos, n));
        m_pos += n;
        return s;
    }
    bool done() const { return m_pos == m_in.size(); }

private:
    void need(std::uint64_t n) const {
        if (n > m_in.size() - m_pos) throw std::runtime_error("truncated cache");
    }
    std::string_view m_in;
    std::size_t m_pos = 0;
};

void write_location(Writer& w, const Location& l) {
    w.str(l.path);
    for (int v : {l.line, l.col, l.end_line, l.end_col, l.cell}) w.i64(v);
}

Location read_location(Reader& r) {
    Location l;
    l.path = r.str();
    for (int* v : {&l.line, &l.col, &l.end_line, &l.end_col, &l.cell}) *v = static_cast<int>(r.i64());
    return l;
}

void write_strings(Writer& w, const std::vector<std::string>& v) {
    w.u64(v.size());
    for (const auto& s : v) w.str(s);
}

std::vector<std::string> read_strings(Reader& r) {
    std::vector<std::string> v(r.count());
    for (auto& s : v) s = r.str();
    return v;
}

// Only what an engine decides is cached: reach, chains and the final weight depend on the whole
// repository and are recomputed by the program model on every scan.
void write_finding(Writer& w, const Finding& f) {
    w.str(f.rule_id);
    w.u64(static_cast<std::uint64_t>(f.rule_severity));
    w.str(f.category);
    w.u64(static_cast<std::uint64_t>(f.rule_impact));
    w.u64(static_cast<std::uint64_t>(f.guard));
    w.str(f.guard_note);
    w.str(f.subject);
    w.u64(f.related.size());
    for (const auto& rel : f.related) {
        write_location(w, rel.location);
        w.str(rel.label);
    }
    write_location(w, f.location);
    w.str(f.snippet);
    w.str(f.matched);
    w.str(f.message);
    w.str(f.fix);
    w.str(f.source);
    w.str(f.note);
    w.i64(f.lines);
    w.u64(f.ops.size());
    for (const auto& op : f.ops) w.str(op);
    w.u64(f.approximate ? 1 : 0);
    w.u64(f.origin ? 1 : 0);
    if (f.origin) {
        w.str(f.origin->function);
        write_strings(w, f.origin->keywords);
        w.i64(f.origin->positional);
        w.u64(f.origin->spread ? 1 : 0);
        w.i64(f.origin->line);
    }
}

Finding read_finding(Reader& r) {
    Finding f;
    f.rule_id = r.str();
    f.severity = f.rule_severity = static_cast<Severity>(r.u64());
    f.category = r.str();
    f.impact = f.rule_impact = static_cast<VerdictImpact>(r.u64());
    f.guard = static_cast<GuardKind>(r.u64());
    f.guard_note = r.str();
    f.subject = r.str();
    for (std::uint64_t n = r.u64(); n > 0; --n) {
        RelatedLocation rel;
        rel.location = read_location(r);
        rel.label = r.str();
        f.related.push_back(std::move(rel));
    }
    f.location = read_location(r);
    f.snippet = r.str();
    f.matched = r.str();
    f.message = r.str();
    f.fix = r.str();
    f.source = r.str();
    f.note = r.str();
    f.lines = static_cast<int>(r.i64());
    for (std::uint64_t n = r.u64(); n > 0; --n) f.ops.push_back(r.str());
    f.approximate = r.u64() != 0;
    if (r.u64() != 0) {
        CallOrigin o;
        o.function = r.str();
        o.keywords = read_strings(r);
        o.positional = static_cast<int>(r.i64());
        o.spread = r.u64() != 0;
        o.line = static_cast<int>(r.i64());
        f.origin = std::move(o);
    }
    return f;
}

// A finding as a whole scan leaves it (weighed, reached, fingerprinted): for the scan memo.
void write_final_finding(Writer& w, const Finding& f) {
    write_finding(w, f);
    w.u64(static_cast<std::uint64_t>(f.severity));
    w.u64(static_cast<std::uint64_t>(f.impact));
    w.u64(static_cast<std::uint64_t>(f.reach));
    w.str(f.native_op);
    write_strings(w, f.chain);
    w.str(f.fingerprint);
    write_strings(w, f.observed);
}

Finding read_final_finding(Reader& r) {
    Finding f = read_finding(r);
    f.severity = static_cast<Severity>(r.u64());
    f.impact = static_cast<VerdictImpact>(r.u64());
    f.reach = static_cast<Reach>(r.u64());
    f.native_op = r.str();
    f.chain = read_strings(r);
    f.fingerprint = r.str();
    f.observed = read_strings(r);
    return f;
}

void write_facts(Writer& w, const FileFacts& facts) {
    w.u64(facts.script ? 1 : 0);
    w.i64(facts.script_line);
    w.i64(facts.script_end_line);
    w.i64(facts.module_call_line);
    w.u64(static_cast<std::uint64_t>(facts.file_guard));
    w.str(facts.hosted_demo);
    // one block of 4-byte hashes: a file has a hundred or so, and a warm scan reads them all
    w.str(std::string(reinterpret_cast<const char*>(facts.attribute_names.data()), facts.attribute_names.size() * sizeof(std::uint32_t)));
    w.u64(facts.imports.size());
    for (const auto& i : facts.imports) {
        w.str(i.module);
        w.i64(i.level);
        write_strings(w, i.names);
        w.i64(i.line);
        w.i64(i.end_line);
        w.u64(static_cast<std::uint64_t>(i.guard));
        w.str(i.guard_note);
        w.u64((i.lazy ? 1 : 0) | (i.in_string ? 2 : 0));
        w.str(i.config_key);
    }
    w.u64(facts.extensions.size());
    for (const auto& e : facts.extensions) {
        w.str(e.name);
        w.u64(e.cuda ? 1 : 0);
        write_strings(w, e.sources);
        w.u64(e.conditional ? 1 : 0);
        w.u64(e.cuda_optional ? 1 : 0);
        w.str(e.build_flag);
        w.u64(e.built_when_passed ? 1 : 0);
        w.i64(e.build_flag_line);
        w.i64(e.line);
        w.str(e.built_in_function);
    }
    w.u64(facts.ops_calls.size());
    for (const auto& c : facts.ops_calls) {
        w.str(c.ns);
        w.str(c.op);
        w.i64(c.line);
        w.u64(static_cast<std::uint64_t>(c.guard));
        w.str(c.guard_note);
    }
    w.u64(facts.entry_refs.size());
    for (const auto& e : facts.entry_refs) {
        w.str(e.target);
        w.u64(e.module ? 1 : 0);
        w.i64(e.line);
        write_strings(w, e.path_args);
        write_strings(w, e.overrides);
        w.i64(e.end_line);
        w.u64(e.documented_import ? 1 : 0);
        w.str(e.cwd);
    }
    write_strings(w, facts.project_names);
    w.u64(facts.collect_skips.size());
    for (const auto& c : facts.collect_skips) {
        w.i64(c.line);
        w.str(c.note);
        write_strings(w, c.globs);
        w.str(c.via);
        w.u64(c.fixture ? 1 : 0);
    }
    w.u64(facts.returns_without_cuda.size());
    for (const auto& f : facts.returns_without_cuda) {
        w.str(f.function);
        w.i64(f.line);
        w.str(f.note);
        write_strings(w, f.strings);
        w.u64(f.falsy ? 1 : 0);
    }
    w.u64(facts.helper_skips.size());
    for (const auto& h : facts.helper_skips) {
        w.i64(h.line);
        w.i64(h.end_line);
        w.str(h.note);
        w.str(h.via);
        w.u64(h.alias ? 1 : 0);
    }
    w.u64(facts.skip_aliases.size());
    for (const auto& a : facts.skip_aliases) {
        w.str(a.name);
        w.i64(a.line);
        w.str(a.note);
    }
    w.u64(facts.cpu_default_functions.size());
    for (const auto& f : facts.cpu_default_functions) {
        w.str(f.function);
        w.str(f.parameter);
        w.i64(f.position);
        w.i64(f.line);
    }
    write_strings(w, facts.sys_path_folders);
    w.i64(facts.remote_code_line);
}

FileFacts read_facts(Reader& r) {
    FileFacts facts;
    facts.script = r.u64() != 0;
    facts.script_line = static_cast<int>(r.i64());
    facts.script_end_line = static_cast<int>(r.i64());
    facts.module_call_line = static_cast<int>(r.i64());
    facts.file_guard = static_cast<GuardKind>(r.u64());
    facts.hosted_demo = r.str();
    const std::string hashes = r.str();
    facts.attribute_names.resize(hashes.size() / sizeof(std::uint32_t));
    if (!facts.attribute_names.empty())  // memcpy from an empty vector's null data() is undefined (UBSan)
        std::memcpy(facts.attribute_names.data(), hashes.data(), facts.attribute_names.size() * sizeof(std::uint32_t));
    facts.imports.resize(r.count());
    for (auto& i : facts.imports) {
        i.module = r.str();
        i.level = static_cast<int>(r.i64());
        i.names = read_strings(r);
        i.line = static_cast<int>(r.i64());
        i.end_line = static_cast<int>(r.i64());
        i.guard = static_cast<GuardKind>(r.u64());
        i.guard_note = r.str();
        const std::uint64_t bits = r.u64();
        i.lazy = (bits & 1) != 0;
        i.in_string = (bits & 2) != 0;
        i.config_key = r.str();
    }
    facts.extensions.resize(r.count());
    for (auto& e : facts.extensions) {
        e.name = r.str();
        e.cuda = r.u64() != 0;
        e.sources = read_strings(r);
        e.conditional = r.u64() != 0;
        e.cuda_optional = r.u64() != 0;
        e.build_flag = r.str();
        e.built_when_passed = r.u64() != 0;
        e.build_flag_line = static_cast<int>(r.i64());
        e.line = static_cast<int>(r.i64());
        e.built_in_function = r.str();
    }
    facts.ops_calls.resize(r.count());
    for (auto& c : facts.ops_calls) {
        c.ns = r.str();
        c.op = r.str();
        c.line = static_cast<int>(r.i64());
        c.guard = static_cast<GuardKind>(r.u64());
        c.guard_note = r.str();
    }
    facts.entry_refs.resize(r.count());
    for (auto& e : facts.entry_refs) {
        e.target = r.str();
        e.module = r.u64() != 0;
        e.line = static_cast<int>(r.i64());
        e.path_args = read_strings(r);
        e.overrides = read_strings(r);
        e.end_line = static_cast<int>(r.i64());
        e.documented_import = r.u64() != 0;
        e.cwd = r.str();
    }
    facts.project_names = read_strings(r);
    facts.collect_skips.resize(r.count());
    for (auto& c : facts.collect_skips) {
        c.line = static_cast<int>(r.i64());
        c.note = r.str();
        c.globs = read_strings(r);
        c.via = r.str();
        c.fixture = r.u64() != 0;
    }
    facts.returns_without_cuda.resize(r.count());
    for (auto& f : facts.returns_without_cuda) {
        f.function = r.str();
        f.line = static_cast<int>(r.i64());
        f.note = r.str();
        f.strings = read_strings(r);
        f.falsy = r.u64() != 0;
    }
    facts.helper_skips.resize(r.count());
    for (auto& h : facts.helper_skips) {
        h.line = static_cast<int>(r.i64());
        h.end_line = static_cast<int>(r.i64());
        h.note = r.str();
        h.via = r.str();
        h.alias = r.u64() != 0;
    }
    facts.skip_aliases.resize(r.count());
    for (auto& a : facts.skip_aliases) {
        a.name = r.str();
        a.line = static_cast<int>(r.i64());
        a.note = r.str();
    }
    facts.cpu_default_functions.resize(r.count());
    for (auto& f : facts.cpu_default_functions) {
        f.function = r.str();
        f.parameter = r.str();
        f.position = static_cast<int>(r.i64());
        f.line = static_cast<int>(r.i64());
    }
    facts.sys_path_folders = read_strings(r);
    facts.remote_code_line = static_cast<int>(r.i64());
    return facts;
}

void write_extension_calls(Writer& w, const FileOutcome& o) {
    w.u64(o.extension_import_lines.size());
    for (int line : o.extension_import_lines) w.i64(line);
    w.u64(o.extension_calls.size());
    for (const auto& c : o.extension_calls) {
        w.i64(c.import_line);
        w.str(c.dotted);
        w.i64(c.line);
        w.u64(static_cast<std::uint64_t>(c.guard));
        w.str(c.guard_note);
        w.str(c.function);
        w.u64((c.function_used_here ? 1 : 0) | (c.module_level ? 2 : 0));
    }
}

void read_extension_calls(Reader& r, FileOutcome& o) {
    for (std::uint64_t n = r.u64(); n > 0; --n) o.extension_import_lines.insert(static_cast<int>(r.i64()));
    o.extension_calls.resize(r.count());
    for (auto& c : o.extension_calls) {
        c.import_line = static_cast<int>(r.i64());
        c.dotted = r.str();
        c.line = static_cast<int>(r.i64());
        c.guard = static_cast<GuardKind>(r.u64());
        c.guard_note = r.str();
        c.function = r.str();
        const std::uint64_t bits = r.u64();
        c.function_used_here = (bits & 1) != 0;
        c.module_level = (bits & 2) != 0;
    }
}

void write_function_uses(Writer& w, const FileOutcome& o) {
    w.u64(o.function_uses.size());
    for (const auto& [key, u] : o.function_uses) {
        w.str(key);
        w.u64(u.calls.size());
        for (const auto& c : u.calls) {
            w.str(c.name);
            w.i64(c.line);
            w.u64(static_cast<std::uint64_t>(c.guard));
            w.u64(c.mps_aware ? 1 : 0);
            w.str(c.note);
            write_strings(w, c.keywords);
            w.i64(c.positional);
            w.u64(c.spread ? 1 : 0);
            w.str(c.branch);
            w.u64(c.arms.size());
            for (const auto& arm : c.arms) {
                w.i64(arm.first);
                w.i64(arm.last);
                w.str(arm.note);
            }
        }
        w.u64(u.selections.size());
        for (const auto& c : u.selections) {
            w.str(c.name);
            w.i64(c.line);
            w.str(c.branch);
        }
        w.u64(u.other_uses.size());
        for (const auto& name : u.other_uses) w.str(name);
        w.u64(u.function_at.size());
        for (const auto& [line, name] : u.function_at) {
            w.i64(line);
            w.str(name);
        }
        w.u64(u.class_at.size());
        for (const auto& [line, name] : u.class_at) {
            w.i64(line);
            w.str(name);
        }
        w.u64(u.spans.size());
        for (const auto& [name, span] : u.spans) {
            w.str(name);
            w.i64(span.first);
            w.i64(span.second);
        }
        w.u64(u.classes.size());
        for (const auto& name : u.classes) w.str(name);
        w.u64(u.foreign_based.size());
        for (const auto& name : u.foreign_based) w.str(name);
        w.u64(u.parameter_defaults.size());
        for (const auto& p : u.parameter_defaults) {
            w.str(p.name);
            for (int v : {p.position, p.line, p.col, p.end_line, p.end_col}) w.i64(v);
        }
    }
}

void read_function_uses(Reader& r, FileOutcome& o) {
    for (std::uint64_t n = r.u64(); n > 0; --n) {
        std::string key = r.str();
        FunctionUses u;
        u.calls.resize(r.count());
        for (auto& c : u.calls) {
            c.name = r.str();
            c.line = static_cast<int>(r.i64());
            c.guard = static_cast<GuardKind>(r.u64());
            c.mps_aware = r.u64() != 0;
            c.note = r.str();
            c.keywords = read_strings(r);
            c.positional = static_cast<int>(r.i64());
            c.spread = r.u64() != 0;
            c.branch = r.str();
            c.arms.resize(r.count());
            for (auto& arm : c.arms) {
                arm.first = static_cast<int>(r.i64());
                arm.last = static_cast<int>(r.i64());
                arm.note = r.str();
            }
        }
        u.selections.resize(r.count());
        for (auto& c : u.selections) {
            c.name = r.str();
            c.line = static_cast<int>(r.i64());
            c.branch = r.str();
        }
        for (std::uint64_t k = r.u64(); k > 0; --k) u.other_uses.insert(r.str());
        for (std::uint64_t k = r.u64(); k > 0; --k) {
            const int line = static_cast<int>(r.i64());
            u.function_at[line] = r.str();
        }
        for (std::uint64_t k = r.u64(); k > 0; --k) {
            const int line = static_cast<int>(r.i64());
            u.class_at[line] = r.str();
        }
        for (std::uint64_t k = r.u64(); k > 0; --k) {
            std::string name = r.str();
            const int first = static_cast<int>(r.i64());
            u.spans[std::move(name)] = {first, static_cast<int>(r.i64())};
        }
        for (std::uint64_t k = r.u64(); k > 0; --k) u.classes.insert(r.str());
        for (std::uint64_t k = r.u64(); k > 0; --k) u.foreign_based.insert(r.str());
        for (std::uint64_t k = r.u64(); k > 0; --k) {
            FunctionUses::ParameterDefault& p = u.parameter_defaults.emplace_back();
            p.name = r.str();
            for (int* v : {&p.position, &p.line, &p.col, &p.end_line, &p.end_col}) *v = static_cast<int>(r.i64());
        }
        o.function_uses.emplace(std::move(key), std::move(u));
    }
}

void write_config_facts(Writer& w, const configs::PythonConfigFacts& c) {
    for (const auto* list : {&c.files, &c.directories, &c.checkpoints}) {
        w.u64(list->size());
        for (const auto& s : *list) {
            w.str(s.path);
            w.i64(s.line);
            w.str(s.hydra_name);
            w.u64(static_cast<std::uint64_t>(s.guard));
            w.str(s.guard_note);
        }
    }
    w.u64(c.reads.size());
    for (const auto& r : c.reads) {
        w.str(r.key);
        w.i64(r.line);
        w.str(r.text);
    }
    w.u64(c.loads.size());
    for (const auto& l : c.loads) {
        w.str(l.call);
        w.str(l.path);
        w.i64(l.line);
        w.u64(l.remap ? 1 : 0);
        w.str(l.remap.value_or(""));
        w.u64(l.folder ? 1 : 0);
        w.u64(static_cast<std::uint64_t>(l.guard));
        w.str(l.guard_note);
    }
}

void read_config_facts(Reader& r, configs::PythonConfigFacts& c) {
    for (auto* list : {&c.files, &c.directories, &c.checkpoints})
        for (std::uint64_t n = r.u64(); n > 0; --n) {
            configs::PathRef p;
            p.path = r.str();
            p.line = static_cast<int>(r.i64());
            p.hydra_name = r.str();
            p.guard = static_cast<GuardKind>(r.u64());
            p.guard_note = r.str();
            list->push_back(std::move(p));
        }
    for (std::uint64_t n = r.u64(); n > 0; --n) {
        configs::KeyRead k;
        k.key = r.str();
        k.line = static_cast<int>(r.i64());
        k.text = r.str();
        c.reads.push_back(std::move(k));
    }
    for (std::uint64_t n = r.u64(); n > 0; --n) {
        configs::CheckpointLoad l;
        l.call = r.str();
        l.path = r.str();
        l.line = static_cast<int>(r.i64());
        const bool remap = r.u64() != 0;
        std::string value = r.str();
        if (remap) l.remap = std::move(value);
        l.folder = r.u64() != 0;
        l.guard = static_cast<GuardKind>(r.u64());
        l.guard_note = r.str();
        c.loads.push_back(std::move(l));
    }
}

}  // namespace

std::uint64_t ScanCache::key_for(const RuleCatalogue& catalogue, const std::string& target_torch, const ScanOptions& options) {
    return key_for(catalogue.digest(), catalogue.root(), target_torch, options);
}

std::uint64_t ScanCache::key_for(std::uint64_t rules_digest, const fs::path& rules_dir, const std::string& target_torch,
                                 const ScanOptions& options) {
    std::string k = std::string(MPSPORT_VERSION) + "|" + build_identity() + "|" + hex64(rules_digest) + "|" + target_torch + "|" +
                    hex64(op_tables_digest(rules_dir));
    const WalkOptions& w = options.walk;
    k += "|ignore:" + std::to_string(w.respect_gitignore) + std::to_string(w.follow_symlinks) + ":" + std::to_string(w.max_file_size);
    for (const auto& e : w.exclude) k += "|exclude:" + e;
    for (const auto& e : options.entries) k += "|entry:" + e;
    k += "|config:" + std::to_string(options.project_config) + "|clang:" + std::to_string(options.clang_timeout_s) +
         "|ckpt:" + std::to_string(options.checkpoints.header_bytes) + "|full-parse:" + std::to_string(options.full_parse);
    return fnv1a64(k);
}

ScanCache ScanCache::load(const fs::path& dir, std::uint64_t key) {
    std::error_code ec;
    if (!fs::exists(dir / file_name(key), ec)) return ScanCache(key);
    try {
        const std::string bytes = read_file(dir / file_name(key));
        const std::optional<std::string_view> content = checked(bytes);
        constexpr std::size_t kHeader = 3 * sizeof(std::uint64_t);
        if (!content || content->size() < kHeader) return ScanCache(key);
        Reader r(content->substr(0, kHeader));
        if (r.u64() != kMagic || r.u64() != kFormat || r.u64() != key) return ScanCache(key);
        return parse_entries(content->substr(kHeader), key);
    } catch (const std::exception&) {
        return ScanCache(key);  // unreadable: start cold
    }
}

ScanCache ScanCache::parse_entries(std::string_view entries, std::uint64_t key) {
    ScanCache cache(key);
    try {
        Reader r(entries);
        for (std::uint64_t files = r.u64(); files > 0; --files) {
            std::string path = r.str();
            Entry e;
            e.size = r.u64();
            e.mtime_ns = r.i64();
            e.hash = r.u64();
            e.outcome.lines = r.u64();
            e.outcome.unread = r.u64() != 0;
            if (r.u64()) e.outcome.skip_reason = r.str();
            for (std::uint64_t n = r.u64(); n > 0; --n) e.outcome.findings.push_back(read_finding(r));
            e.outcome.facts = read_facts(r);
            if (std::string native = r.str(); !native.empty()) e.outcome.native = cuda::facts_from_json(native);
            read_config_facts(r, e.outcome.config_facts);
            read_extension_calls(r, e.outcome);
            read_function_uses(r, e.outcome);
            cache.m_entries.emplace(std::move(path), std::move(e));
        }
        if (!r.done()) throw std::runtime_error("trailing bytes");
    } catch (const std::exception&) {
        cache.m_entries.clear();  // corrupt or from another version: start cold
    }
    return cache;
}

void ScanCache::save(const fs::path& dir, const std::set<std::string>* touched) const {
    std::error_code ec;
    fs::create_directories(dir, ec);
    // Like other tools' caches: ignore ourselves so the cache never shows up in `git status`.
    if (!fs::exists(dir / ".gitignore", ec)) write_file_atomically(dir / ".gitignore", "# created by mpsport\n*\n");
    const FolderLock lock(dir);
    // What another process saved since we loaded: its entries for files we did not read survive.
    std::map<std::string, const Entry*> merged;
    for (const auto& [path, e] : m_entries) merged[path] = &e;
    const ScanCache on_disk = touched ? load(dir, m_key) : ScanCache(m_key);
    on_disk.for_each([&](const std::string& path, const Entry& e) {
        if (!touched->count(path)) merged[path] = &e;
    });
    Writer w;
    w.u64(kMagic);
    w.u64(kFormat);
    w.u64(m_key);
    w.u64(merged.size());
    for (const auto& [path, entry] : merged) {
        const Entry& e = *entry;
        w.str(path);
        w.u64(e.size);
        w.i64(e.mtime_ns);
        w.u64(e.hash);
        w.u64(e.outcome.lines);
        w.u64(e.outcome.unread ? 1 : 0);
        w.u64(e.outcome.skip_reason ? 1 : 0);
        if (e.outcome.skip_reason) w.str(*e.outcome.skip_reason);
        w.u64(e.outcome.findings.size());
        for (const auto& f : e.outcome.findings) write_finding(w, f);
        write_facts(w, e.outcome.facts);
        w.str(e.outcome.native.empty() ? std::string() : cuda::facts_to_json(e.outcome.native));
        write_config_facts(w, e.outcome.config_facts);
        write_extension_calls(w, e.outcome);
        write_function_uses(w, e.outcome);
    }
    write_file_atomically(dir / file_name(m_key), with_checksum(w.bytes()));
    remove_old_files(dir, m_key);
}

const ScanCache::Entry* ScanCache::find(const std::string& path) const {
    auto it = m_entries.find(path);
    return it == m_entries.end() ? nullptr : &it->second;
}

ScanCache::Entry* ScanCache::find_to_take(const std::string& path) {
    auto it = m_entries.find(path);
    return it == m_entries.end() ? nullptr : &it->second;
}

void ScanCache::put(const std::string& path, Entry entry) { m_entries[path] = std::move(entry); }

// ---- The scan memo: a full scan's result, for the next full scan whose inputs are all unchanged ----

namespace {

constexpr std::uint32_t kMemoMagic = 0x4d50534d;  // "MPSM"

// The walk's digest joined with the size and mtime of each file the scan read outside the walk
// (absent: -1), as they are now.
std::uint64_t with_extras(std::uint64_t walk_digest, const fs::path& base, const std::vector<std::string>& extras) {
    std::string k = hex64(walk_digest);
    for (const auto& path : extras) {
        FileEntry file;  // stat()ed as the walk stats its files
        file.absolute = base / path;
        const bool absent = stat_file(file, UINTMAX_MAX).has_value();
        k += "|" + path + ":" + (absent ? std::string("-1") : std::to_string(file.size) + ":" + std::to_string(file.mtime_ns));
    }
    return fnv1a64(k);
}

void write_result(Writer& w, const ScanResult& r) {
    w.str(r.target_torch);
    w.u64(r.files_scanned);
    w.u64(r.lines_scanned);
    w.u64(r.ignored_dirs);
    w.u64(r.skipped.size());
    for (const auto& sk : r.skipped) {
        w.str(sk.path);
        w.str(sk.reason);
    }
    w.u64(r.findings.size());
    for (const auto& f : r.findings) write_final_finding(w, f);
    write_strings(w, r.warnings);
    w.u64(r.file_lines.size());
    for (const auto& [path, lines] : r.file_lines) {
        w.str(path);
        w.u64(lines);
    }
    const ProgramSummary& p = r.program;
    w.u64(p.entry_points.size());
    for (const auto& e : p.entry_points) {
        w.str(e.path);
        w.str(e.why);
        w.u64(e.tooling ? 1 : 0);
    }
    write_strings(w, p.own_packages);
    for (std::size_t n : p.files) w.u64(n);
    w.u64(p.complete ? 1 : 0);
    w.str(p.incomplete_reason);
    w.u64(r.native_modules.size());
    for (const auto& m : r.native_modules) {
        w.str(m.source_path);
        w.str(m.module_name);
        w.u64(m.ops.size());
        for (const auto& op : m.ops) {
            w.str(op.name);
            w.u64(op.devices.size());
            for (NativeDevice d : op.devices) w.u64(static_cast<std::uint64_t>(d));
            write_location(w, op.location);
        }
    }
}

ScanResult read_result(Reader& r) {
    ScanResult out;
    out.target_torch = r.str();
    out.files_scanned = r.u64();
    out.lines_scanned = r.u64();
    out.ignored_dirs = r.u64();
    for (std::size_t n = r.count(); n > 0; --n) {
        SkippedFile sk;
        sk.path = r.str();
        sk.reason = r.str();
        out.skipped.push_back(std::move(sk));
    }
    out.findings.reserve(r.count());
    for (std::size_t n = out.findings.capacity(); n > 0; --n) out.findings.push_back(read_final_finding(r));
    out.warnings = read_strings(r);
    for (std::size_t n = r.count(); n > 0; --n) {
        std::string path = r.str();
        out.file_lines[std::move(path)] = r.u64();
    }
    ProgramSummary& p = out.program;
    for (std::size_t n = r.count(); n > 0; --n) {
        EntryPoint e;
        e.path = r.str();
        e.why = r.str();
        e.tooling = r.u64() != 0;
        p.entry_points.push_back(std::move(e));
    }
    p.own_packages = read_strings(r);
    for (std::size_t& n : p.files) n = r.u64();
    p.complete = r.u64() != 0;
    p.incomplete_reason = r.str();
    for (std::size_t n = r.count(); n > 0; --n) {
        NativeModule m;
        m.source_path = r.str();
        m.module_name = r.str();
        for (std::size_t k = r.count(); k > 0; --k) {
            NativeOp op;
            op.name = r.str();
            for (std::size_t d = r.count(); d > 0; --d) op.devices.push_back(static_cast<NativeDevice>(r.u64()));
            op.location = read_location(r);
            m.ops.push_back(std::move(op));
        }
        out.native_modules.push_back(std::move(m));
    }
    return out;
}

}  // namespace

std::optional<ScanResult> ScanCache::load_result(const fs::path& dir, std::uint64_t key, std::uint64_t walk_digest, const fs::path& base,
                                                 const std::function<bool(std::uint64_t)>& unchanged) {
    // The header (what the result was made from) is read first and alone: when the caller holds
    // what it needs, the result itself is never read (reading it was half of a warm scan).
    std::ifstream in(dir / memo_name(key), std::ios::binary);
    if (!in) return std::nullopt;
    try {
        std::string bytes(16, '\0');
        if (!in.read(bytes.data(), 16)) return std::nullopt;
        Reader first(bytes);
        if (first.u64() != kMemoMagic) return std::nullopt;
        const std::uint64_t header_size = first.u64();
        if (header_size > (1u << 26)) return std::nullopt;
        bytes.resize(header_size);
        if (!in.read(bytes.data(), static_cast<std::streamsize>(header_size))) return std::nullopt;
        Reader header(bytes);
        if (header.u64() != kFormat || header.u64() != key || header.u64() != walk_digest) return std::nullopt;
        const std::vector<std::string> extras = read_strings(header);
        const std::uint64_t inputs = with_extras(walk_digest, base, extras);
        if (header.u64() != inputs || !header.done()) return std::nullopt;
        const std::uint64_t id = fnv1a64(hex64(key) + ":" + hex64(inputs));
        if (unchanged && unchanged(id)) {
            ScanResult reused;
            reused.inputs_id = id;
            reused.reused = true;
            return reused;
        }
        const std::streamoff here = in.tellg();
        in.seekg(0, std::ios::end);
        bytes.resize(static_cast<std::size_t>(in.tellg() - here));
        if (!in.seekg(here) || !in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) return std::nullopt;
        const std::optional<std::string_view> body = checked(bytes);
        if (!body) return std::nullopt;
        std::optional<ScanResult> parsed = parse_result(*body);
        if (!parsed) return std::nullopt;
        ScanResult result = std::move(*parsed);
        result.files_cached = result.files_scanned;  // every file is as the cache holds it
        result.inputs_id = id;
        return result;
    } catch (const std::exception&) {
        return std::nullopt;  // corrupt or cut short: scan
    }
}

std::optional<ScanResult> ScanCache::parse_result(std::string_view body) {
    try {
        Reader r(body);
        ScanResult result = read_result(r);
        if (!r.done()) return std::nullopt;
        return result;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::uint64_t ScanCache::save_result(const fs::path& dir, std::uint64_t key, std::uint64_t walk_digest, const fs::path& base,
                                     const std::vector<std::string>& extras, const ScanResult& result) {
    const std::uint64_t inputs = with_extras(walk_digest, base, extras);
    Writer header;
    header.u64(kFormat);
    header.u64(key);
    header.u64(walk_digest);
    write_strings(header, extras);
    header.u64(inputs);
    Writer w;
    w.u64(kMemoMagic);
    w.u64(header.bytes().size());
    w.raw(header.bytes());
    Writer body;
    write_result(body, result);
    w.raw(with_checksum(body.bytes()));
    write_file_atomically(dir / memo_name(key), w.bytes());
    return fnv1a64(hex64(key) + ":" + hex64(inputs));
}

}  // namespace mpsport
