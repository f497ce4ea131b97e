// The C++/CUDA engine (rules with `engine: clang`): each .cu/.cuh/.cpp/.cc/.h/.hpp file is parsed by
// Clang as its own translation unit, in a forked worker process so that a crash, a hang or a runaway
// parse costs that one file (listed as skipped with the reason) and never the scan. A worker parses
// one file after another until one ends it: forking once per file cost more system time than Clang
// spent parsing (the parent's page tables and copy-on-write faults on both sides).
//
// This header holds no Clang type: the driver (fork, time limit, include paths, compile_commands.json)
// is always built, the part that calls Clang (translation_unit.hpp) only with -DMPSPORT_WITH_CLANG=ON.
#pragma once

#include <filesystem>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyzer/match.hpp"
#include "core/native_facts.hpp"
#include "core/rule_catalogue.hpp"
#include "core/trigger_set.hpp"
#include "core/walker.hpp"

namespace mpsport::cuda {

// Where a call sits relative to a device test in the function that makes it: inside the
// `if (x.is_cuda())` branch, on the other (CPU) side of such a test, or not under one.
enum class Branch { any, cuda, cpu };

struct Callee {
    std::string name;  // qualified name of a function called but not defined in this translation unit
    Branch branch = Branch::any;
};

// One registration site, as written in one file; link_native_ops() joins them across files.
struct Registration {
    enum class Kind { library_def, library_impl, pybind_def };
    Kind kind = Kind::pybind_def;
    std::string module;        // TORCH_LIBRARY namespace, or the PYBIND11_MODULE name as written
    std::string op;            // op name without schema, or the binding's Python name
    std::string dispatch_key;  // TORCH_LIBRARY_IMPL / torch::dispatch key; empty: none given
    bool has_function = false; // a def that also gives an implementation (catch-all kernel)
    std::vector<NativeDevice> devices;  // what the bound function's own body shows
    std::vector<Callee> callees;        // resolved against the other files' functions
    int line = 0, col = 0;
    std::string snippet;
};

// A host function defined in a translation unit, for callers in other files.
struct DefinedFunction {
    std::string name;  // qualified
    bool cuda = false; // launches a kernel or calls the CUDA runtime, directly or through this file
    // Calls through a function pointer or a registry (mmcv's DISPATCH_DEVICE_IMPL): without CUDA
    // evidence its devices are unknown, not "CPU".
    bool indirect = false;
    // Has a CPU side besides (`if (x.is_cuda()) { launch } else { memcpy(...) }`): a caller in
    // another file gets both devices from it.
    bool cpu = false;
};

struct TuFacts {
    std::vector<Registration> registrations;
    std::vector<DefinedFunction> functions;
    // Not parsed: the file names nothing a rule looks for (ClangEngine::needs_parse). The scan parses
    // it after all, for its functions, when a binding calls a function no parsed file defines.
    bool unparsed = false;
    // Its includes passed the per-file budget (translation_unit.cpp): later headers were read as empty.
    bool includes_truncated = false;
    bool empty() const { return registrations.empty() && functions.empty() && !unparsed && !includes_truncated; }
};

// How much of the repository's header text one translation unit may read (translation_unit.cpp);
// the headers past it read as empty.
inline constexpr std::size_t kIncludeBudgetBytes = std::size_t(1) << 20;

struct TuResult {
    std::vector<Match> matches;
    TuFacts facts;
    std::optional<std::string> skip_reason;  // crashed, timed out, fatal error
};

// Include paths and macros for each file: compile_commands.json when the repository has one,
// otherwise the repository root and its include/ folders.
class CompileFlags {
public:
    // `trigger_literals`: the Clang rules' triggers (ClangEngine::trigger_literals()), for trigger_macros().
    static CompileFlags infer(const std::filesystem::path& base, const std::vector<std::string>& trigger_literals = {});
    std::vector<std::string> for_file(const std::filesystem::path& absolute) const;
    bool from_compile_commands() const { return !m_by_file.empty(); }
    // Every header of the repository (absolute, sorted): an include found on no include path is
    // looked up here by its path's tail ("utils/helpers.cuh"), as a setup.py's include_dirs would find it.
    const std::vector<std::string>& headers() const { return m_headers; }
    // The macros of the repository's headers and of the shim whose expansion holds a trigger literal,
    // directly or through another such macro (C10_CUDA_KERNEL_LAUNCH_CHECK -> C10_CUDA_CHECK ->
    // c10::cuda::): a file that uses one may match a rule without naming a trigger. nullptr: none.
    const TriggerSet* trigger_macros() const { return m_trigger_macros.get(); }

private:
    std::vector<std::string> m_common;                                  // -I for inferred include folders
    std::map<std::string, std::vector<std::string>> m_by_file;          // absolute path -> -I/-D/-std flags
    std::vector<std::string> m_headers;
    std::shared_ptr<const TriggerSet> m_trigger_macros;
};

struct ClangRules;  // the compiled matchers and checks (translation_unit.hpp)

class ClangEngine {
public:
    // Takes the `engine: clang` rules and their triggers. The Clang module is loaded and the
    // matchers compiled by prepare(), on first need: a scan without C++/CUDA files never pays for it.
    explicit ClangEngine(const RuleCatalogue& catalogue);
    ~ClangEngine();
    // True in AddressSanitizer builds: their allocator (GCC 12's libasan, LLVM 14) takes no lock
    // around fork(), so a Clang worker forked while another scan thread allocates deadlocks in the
    // child (seen with gdb: the child waits in SizeClassAllocator64::GetFromAllocator's mutex). Such
    // builds analyse on one thread when a C++/CUDA file is parsed, and the scan first waits for the
    // Python queries' compilation, which runs on a thread of its own.
    static bool forks_need_one_thread();

    static bool available();           // this build has the Clang engine
    // Loads the Clang module and compiles every rule's matchers, once; throws RuleError naming the
    // rule on a bad one. Without Clang in the build it does nothing.
    void prepare() const;
    // Why the engine cannot run although built (its module did not load); empty when it can.
    const std::string& unavailable() const {
        prepare();
        return m_unavailable;
    }
    static std::string description();  // for `mpsport doctor`: "Clang 14.0.6 (...)" or why not
    bool reads(FileKind kind) const;
    // The rules of this engine, for "not run" warnings in a build without Clang.
    const std::vector<const Rule*>& rules() const { return m_rules; }

    // The rules' trigger literals; empty when some rule has none (then every file is parsed).
    std::vector<std::string> trigger_literals() const;
    // Whether a file can hold a match: it names a trigger literal or a trigger macro. Matches are
    // reported in the file's own lines only, so what its headers contain does not count.
    bool needs_parse(const std::string& text, const CompileFlags& flags) const;

    // One translation unit in a forked child with a time limit. `text` is what is analysed (the
    // file's content as read by the scanner); `absolute` places it for its relative includes.
    // Unless `always`, a file that needs no parse is not parsed: its facts say `unparsed`.
    TuResult analyze(const std::string& path, const std::filesystem::path& absolute, FileKind kind, const std::string& text,
                     const CompileFlags& flags, unsigned timeout_s, bool always = false) const;

private:
    std::vector<const Rule*> m_rules;
    mutable std::once_flag m_prepared;
    mutable std::shared_ptr<const ClangRules> m_compiled;
    mutable std::string m_unavailable;
    // The rules' trigger literals: a file holding none of them is not parsed (nullptr: parse every file).
    std::unique_ptr<TriggerSet> m_triggers;
    std::shared_ptr<const TriggerSet> m_shim_macros;  // trigger macros when CompileFlags has none (lone files)
    // The precompiled prefix of each language (0: C++, 1: CUDA: translation_unit.hpp's
    // build_prefix), built in a child once a scan has parsed two files (building it costs about
    // that); empty when not built or when building failed, and then the file reads the same prefix
    // as text.
    const std::string& prefix(bool cuda) const;
    mutable std::once_flag m_prefix_built[2];
    mutable std::string m_prefix[2];
    mutable std::string m_prefix_dir;
    mutable std::mutex m_prefix_dir_mutex;
    mutable std::atomic<unsigned> m_parses{0};
    // Idle workers (clang_engine.cpp); a thread takes one, or forks one when none is idle.
    struct Worker;
    mutable std::mutex m_workers_mutex;
    mutable std::vector<std::unique_ptr<Worker>> m_idle_workers;
    std::unique_ptr<Worker> take_worker() const;
    void give_back(std::unique_ptr<Worker> worker) const;
};

// Every file's facts together: the native modules with their ops' device paths, and the findings
// of the rules whose check is `native-op-devices` (CUDA-only op, op with another path).
struct LinkedOps {
    std::vector<NativeModule> modules;
    std::vector<Finding> findings;
};
LinkedOps link_native_ops(const std::map<std::string, TuFacts>& facts_by_path, const RuleCatalogue& catalogue);
// The short names of the functions that bindings call and that no parsed file defines.
std::set<std::string> unresolved_callees(const std::map<std::string, TuFacts>& facts_by_path);

// Serialised form, for the scan cache and the pipe from the forked child.
std::string facts_to_json(const TuFacts& facts);
TuFacts facts_from_json(const std::string& json);

}  // namespace mpsport::cuda
