// The static pass over a repository: walk, read, pre-filter, dispatch each file to its engine,
// in parallel, with a content-hash cache. One bad file never stops a scan: it is listed as skipped.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyzer/cuda/clang_engine.hpp"
#include "analyzer/checkpoints/checkpoint.hpp"
#include "analyzer/configs/config_facts.hpp"
#include "core/finding.hpp"
#include "core/mps_tables.hpp"
#include "core/program_facts.hpp"
#include "core/rule_catalogue.hpp"
#include "core/scan_result.hpp"
#include "core/walker.hpp"

namespace mpsport {
namespace program {
struct FileRecord;
class ProgramModel;
struct ModelOptions;
}  // namespace program

namespace python { class PythonEngine; }
namespace manifests { class ManifestEngine; }
namespace cuda { class ClangEngine; }
namespace checkpoints { class CheckpointEngine; }
namespace lines { class LineEngine; }

struct ScanOptions {
    WalkOptions walk;
    unsigned jobs = 0;                             // 0: one per core
    std::optional<std::filesystem::path> cache_dir;  // nullopt: no cache
    // The roots are a few files of the repository at `base` (check): the cache keeps every other
    // file's entry, and the program model reads their facts from it.
    bool partial = false;
    std::vector<std::string> entries;  // --entry: the program model's entry points, relative to base
    // Whether to read base/.mpsport.toml (entry points and tooling folders of the repository).
    bool project_config = true;
    unsigned clang_timeout_s = 60;                   // per C++/CUDA translation unit
    // Parse every C++/CUDA file, also those that name no rule's trigger (the prefilter's reference).
    bool parse_every_native_file = false;
    bool full_parse = false;  // --full-parse: tree-sitter parses whole Python files, never only regions
    checkpoints::Limits checkpoints;
    // Asked, for a full scan with a cache whose inputs are all as the last full scan's, whether the
    // caller already holds what it wants from a scan of the inputs with that id (a report it
    // rendered then). When it answers true, the scan returns at once: `inputs_id`, `reused`, no findings.
    std::function<bool(std::uint64_t inputs_id)> unchanged;
};


struct FileOutcome {
    std::vector<Finding> findings;
    FileFacts facts;
    std::optional<std::string> skip_reason;
    std::size_t lines = 0;
    cuda::TuFacts native;  // C++/CUDA: registrations and functions, linked across files after the scan
    configs::PythonConfigFacts config_facts;  // Python files: the configs they name and the keys they read
    bool unread = false;  // a config file that no Python file names: not read, not reported, not counted
    // Python files that import a compiled extension: the calls through the imports on these lines,
    // as last found (the file is parsed whole for them; the cache keeps them with the file).
    std::set<int> extension_import_lines;
    std::vector<ImportedCall> extension_calls;
    // Python files: the calls of functions the caller-guard pass asked about, by its query (the file is
    // parsed whole for them; the cache keeps them with the file, as the calls through extensions).
    std::map<std::string, FunctionUses> function_uses;
};

// The caller-guard pass's memo: what the cache knows of a file's function uses, and where to keep
// what the pass found anew.
struct FunctionUsesMemo {
    std::function<const std::map<std::string, FunctionUses>*(const std::string& path)> known;
    std::function<void(const std::string& path, std::map<std::string, FunctionUses> uses)> keep;
};

class Scanner {
public:
    // `target_torch`: the PyTorch version whose MPS op tables (rules/mps/) the op-support rules read.
    explicit Scanner(const RuleCatalogue& catalogue, std::string target_torch = kDefaultTargetTorch);
    ~Scanner();

    ScanResult scan(const std::filesystem::path& base, const std::vector<std::filesystem::path>& roots,
                    const ScanOptions& options) const;
    // What scan() gives when its memo holds the result and options.unchanged says the caller kept
    // that result's report (ScanResult::reused), found without the rules: `cache_key` is
    // ScanCache::key_for from the rules folder's digest. nullopt whenever scan() has more to do.
    static std::optional<ScanResult> kept(const std::filesystem::path& base, const std::vector<std::filesystem::path>& roots,
                                          const ScanOptions& options, std::uint64_t cache_key);
    // One file's findings from its text (no walking, no cache), weighed as if the file were core:
    // what `scan FILE` of a lone file reports, its native ops linked within the file. Used by tests
    // and the fixture runner.
    FileOutcome scan_text(const std::string& path, FileKind kind, std::string text, bool full_parse = false) const;
    // A checkpoint's findings from its headers (never the whole file, never through the text path).
    FileOutcome scan_checkpoint(const FileEntry& file, const checkpoints::Limits& limits) const;

private:
    // One file's raw findings and facts, before the program model weighs them (what the cache keeps).
    // `parse_native`: parse a C++/CUDA file even when it names no trigger (ClangEngine::needs_parse);
    // `full_parse`: tree-sitter parses a whole Python file, not only the regions that can match.
    FileOutcome analyze_file(const FileEntry& file, std::string text, const cuda::CompileFlags& flags, unsigned clang_timeout_s,
                             bool parse_native = false, bool full_parse = false) const;
    // The engines are built on first use: compiling the rules' queries is most of a warm scan's
    // cost when every file comes from the cache. Throws RuleError for a broken rule.
    void build_engines() const;
    // Starts compiling the Python queries of the rules `roots` name, where each is a Python file of
    // at most `max_size` bytes (a check); else leaves it to the scan.
    void start_queries(const std::vector<std::filesystem::path>& roots, std::uintmax_t max_size) const;
    void link_native(const std::map<std::string, cuda::TuFacts>& native, bool any_native, ScanResult& result) const;
    // A backward-only op fallback in a function nothing in its own file decides: the calls of that
    // function in the files that import it decide whether gradients flow (analyzer/grad_callers.cpp).
    void weigh_backward_only_by_callers(const std::vector<program::FileRecord>& records, const program::ProgramModel& model,
                                        const std::filesystem::path& base,
                                        std::vector<Finding>& findings) const;
    // What the repository's commands turn on before the model is built: where they pass each setup
    // script's build switch, and which off-by-default import options (option_flags.cpp).
    void options_commands_pass(const std::filesystem::path& base, const std::vector<program::FileRecord>& records,
                               program::ModelOptions& out) const;
    // A stay-on-CUDA import reached through an entry's import of names that another module of the
    // repository also defines, with nothing CUDA-only on load (analyzer/twin_definitions.cpp).
    void weigh_twin_definitions(const std::vector<program::FileRecord>& records, const program::ProgramModel& model,
                                const std::filesystem::path& base, std::vector<Finding>& findings) const;
    // A stay-on-CUDA finding reached through a name a module imports only to hold in a registry
    // (analyzer/registry_choices.cpp).
    void weigh_registry_choices(const std::vector<program::FileRecord>& records, const program::ProgramModel& model,
                                const std::filesystem::path& base, std::vector<Finding>& findings) const;
    // A CUDA-only extension op whose Python callers define its PyTorch twin (`*_pytorch`) beside the
    // call (analyzer/twin_definitions.cpp).
    void weigh_kernel_twins(const std::filesystem::path& base, std::vector<Finding>& findings) const;
    // An unguarded finding in a Python file under `if opt.X:` or `if self.opt.X:`, where another file
    // of the repository declares the option X off by default and the file declares no X of its own,
    // is under that option (analyzer/option_flags.cpp).
    void weigh_options_declared_elsewhere(const std::filesystem::path& base, const std::vector<program::FileRecord>& records, unsigned jobs,
                                          std::vector<Finding>& findings) const;
    // A finding under an option off by default (guard off-by-default, `--benchmark`) loses that guard
    // when a command of the repository passes the option (analyzer/option_flags.cpp).
    void keep_options_commands_turn_on(const std::filesystem::path& base, const std::vector<program::FileRecord>& records,
                                       std::vector<Finding>& findings) const;
    // What each file does with its stay-on-CUDA imports on load, for the program model to tell which
    // programs use them (analyzer/import_uses.cpp); only where the repository has several programs.
    void read_import_uses(const std::filesystem::path& base, const std::vector<Finding>& findings, program::ProgramModel& model) const;
    // A finding in a module-level function with no guard of its own takes the guard that every call
    // of that function has, in its file and in the files that import it (analyzer/call_guards.cpp).
    void guard_by_callers(const std::vector<program::FileRecord>& records, const program::ProgramModel& model, const std::filesystem::path& base,
                          const FunctionUsesMemo& memo, bool full_parse, std::vector<Finding>& findings) const;
    // A scale-or-speed package imported in a function the run calls only in branches, or that only
    // tooling calls (`api_function`: a module-level def, not a class): info (call_guards.cpp).
    bool on_demand_by_callers(Finding& f, const std::string& function, const std::vector<std::pair<std::string, FunctionUses::Call>>& calls,
                              const program::ProgramModel& model, bool api_function = false) const;
    // A finding in a module-level function that no parse saw called or used, or in a method of a
    // module-level class: the function's or class's name, and the lines of its definition.
    struct UnusedCandidate {
        Finding* finding;
        std::string name;
        std::pair<int, int> span;
        bool method = false;  // the finding is in a method of the class `name`
    };
    // Of those, the ones whose name no file of the project writes outside its own definition and
    // outside import statements take the never-called guard (analyzer/call_guards.cpp).
    void mark_never_called(const std::vector<program::FileRecord>& records, const program::ProgramModel& model, const std::filesystem::path& base,
                           const std::vector<UnusedCandidate>& candidates) const;

    const RuleCatalogue& m_catalogue;
    std::string m_target_torch;
    mutable std::once_flag m_engines_once;
    mutable std::unique_ptr<python::PythonEngine> m_python;
    mutable std::unique_ptr<manifests::ManifestEngine> m_manifests;
    mutable std::unique_ptr<cuda::ClangEngine> m_clang;
    mutable std::unique_ptr<lines::LineEngine> m_lines;
    mutable std::unique_ptr<checkpoints::CheckpointEngine> m_checkpoints;
};

}  // namespace mpsport
