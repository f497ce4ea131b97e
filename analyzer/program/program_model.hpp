// The program model: entry points, the import graph of the repository's own modules, the reach of
// every file (core / optional / tooling / unreached) with the import chain that proves it, the
// repository's own package names, and compiled extensions linked to the files that import them.
// Built from the FileFacts of every file (fresh or cached) after the per-file pass.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/finding.hpp"
#include "core/program_facts.hpp"
#include "core/rule.hpp"
#include "core/walker.hpp"

namespace mpsport::program {

struct FileRecord {
    std::string path;
    FileKind kind;
    const FileFacts* facts = nullptr;  // may be null: a file that names nothing
};

// How strongly a file is reached. Higher is stronger: an unconditional chain beats a guarded one.
enum class Level { unreached = -1, tooling = 0, optional_dead = 1, optional_fallback = 2, core = 3 };

// The reach a finding reports for a model level.
Reach reach_for(Level level);
// A C/C++/CUDA header (.h, .hh, .hpp, .hxx, .cuh, .inl): no source of its own, it belongs with the
// sources beside it.
bool is_native_header(const std::string& path);

// The path of the first folder of a relative path ('/' separated), outermost first, whose name
// `holds`: "runtime/triton_trtllm" for runtime/triton_trtllm/model.py and a name with the word triton.
std::optional<std::string> folder_where(const std::string& path, const std::function<bool(const std::string&)>& holds);
// The name of the first folder of a relative path whose name is one of `names`, or nullopt:
// "tests" for tests/unit/test_x.py and names {test, tests}.
std::optional<std::string> folder_named(const std::string& path, const std::vector<std::string>& names);

// A step of an import chain as FileReach::chain writes it: "train.py:3" -> ("train.py", 3); line 0
// when the step names no line ("ops/knn.py", a launch script's config).
std::pair<std::string, int> split_chain_step(const std::string& step);

struct FileReach {
    Level level = Level::unreached;
    GuardKind guard = GuardKind::none;  // for optional: the guard on the chain
    std::string guard_note;             // that guard as written; for unreached, why (a launch of a missing script)
    // Optional only because a program of its own beside the main one reaches it (mark_side_programs),
    // unconditionally from that program's entry: the side program needs it, where an arm of an if
    // would not.
    bool side_program = false;
    std::vector<std::string> chain;  // "train.py:3", "models/__init__.py:1", "ops/knn.py"
};

struct ImportSite {
    std::string path;
    int line = 0;
    GuardKind guard = GuardKind::none;  // around the import statement
    std::string guard_note;
};

// A Python call of an op of a compiled module: through the name an import binds (`_C.knn(x)`) or
// through the dispatcher (`torch.ops.geo.knn(x)`).
struct CallSite {
    std::string path;
    int line = 0;
    std::string op;  // "knn"; for torch.ops calls the op without its namespace
    GuardKind guard = GuardKind::none;  // around the call
    std::string guard_note;
    std::string function;  // the module-level function the call sits in, when only other files name it
};

struct ExtensionLink {
    ExtensionFact fact;
    std::string defined_in;
    std::vector<std::string> sources;  // repository paths
    std::vector<ImportSite> imports;
    std::vector<CallSite> calls;       // add_imported_calls()
    FileReach reach;
};

// Where the repository's commands and documents write a setup script's build switch (`--cuda_ext`),
// and an install of the checkout that does not (analyzer/option_flags.cpp).
struct BuildFlagUse {
    std::optional<std::pair<std::string, int>> passed;
    std::optional<std::pair<std::string, int>> install_without;
};

struct ModelOptions {
    std::vector<std::string> entries;  // --entry or .mpsport.toml: replaces discovery
    std::vector<std::string> tooling_dirs;      // .mpsport.toml: added to the vocabulary's
    std::vector<std::string> tooling_files;
    std::vector<std::string> not_tooling_dirs;  // .mpsport.toml: removed from the vocabulary's
    // Who reads each data file: a config that names repository modules (`target:`) links its readers
    // to them. Not owned; may be null.
    const std::map<std::string, std::vector<DataReader>>* data_readers = nullptr;
    // Folders that hold a licence file (WalkResult::licensed_dirs): where vendored projects start.
    std::vector<LicensedDir> licensed_dirs;
    // ExtensionFact::build_flag -> its uses in commands: whether the documented install builds it.
    std::map<std::string, BuildFlagUse> build_flags;
    // The guard notes of imports under an option off by default (`off by default: $USE_JIT`) that a
    // command of the repository turns on: those imports are unguarded.
    std::set<std::string> options_turned_on;
    // The text of the README of the top folder and of each folder right below it ("" for the top):
    // what a repository (or each checkout of a folder of them) documents.
    std::map<std::string, std::string> readmes;
    // A Cog predictor (cog.yaml `predict:`) -> the cog.yaml that names it.
    std::map<std::string, std::string> container_predictors;
};

// The words of a file's name, split at `_`, `-` and `.`, lower-cased. A word with digits inside also
// gives its parts: knn2img.py (latent-diffusion) is a "knn" script.
std::vector<std::string> name_words(const std::string& path);

class ProgramModel {
public:
    ProgramModel(const std::vector<FileRecord>& files, const ProgramVocabulary& vocabulary, const ModelOptions& options);

    const ProgramSummary& summary() const { return m_summary; }
    // Whether a script or a command runs the repository: an entry other than a package's API.
    bool has_training_entries() const { return m_training_entries; }
    // Where the checkout of `path` first runs model code from the Hugging Face Hub (`trust_remote_code=True`
    // outside tests and examples), as "file:line"; nullopt if it never does.
    std::optional<std::string> remote_code_in(const std::string& path) const {
        const auto it = m_remote_code.find(project_of(path));
        return it == m_remote_code.end() ? std::nullopt : std::optional<std::string>(it->second);
    }
    FileReach reach_of(const std::string& path) const;
    // The cog.yaml whose container runs `path` as its predictor; nullopt for any other file.
    std::optional<std::string> container_of(const std::string& path) const {
        const auto it = m_container_predictors.find(path);
        return it == m_container_predictors.end() ? std::nullopt : std::optional<std::string>(it->second);
    }
    // Whether `path` lies in a tests, examples or benchmarks folder (not a tooling file by its name alone:
    // setup.py is packaging, yet its install_requires is the project's install).
    bool in_tooling_folder(const std::string& path) const;
    bool is_tooling_path(const std::string& path) const;
    bool is_own_package(std::string_view top_level) const;
    // ... of the repository `path` lies in, in a folder of checkouts (m_projects)
    bool is_own_package(std::string_view top_level, const std::string& path) const;
    const ExtensionLink* extension_defined_at(const std::string& path, int line) const;
    // Whether the checkout of `path` holds any .cu or .cuh file.
    bool has_cuda_sources(const std::string& path) const;
    const ExtensionLink* extension_with_source(const std::string& path) const;
    // The strongest reach among the files that import this top-level package; nullopt if none does.
    // Only importers in the repository of `declared_in`, in a folder of checkouts.
    std::optional<FileReach> reach_of_importers(std::string_view package, const std::string& declared_in) const;
    // Where a manifest in a folder of Python code (CogView3's inference/requirements.txt) declares a
    // package that no file of that folder imports while a file elsewhere does (sat/arguments.py): that
    // importer, as "declared for inference/, whose code never imports it (only sat/arguments.py:72 does)".
    // The manifest installs for its own folder's program, which never loads the package.
    // nullopt for a manifest at the top of its repository, in a folder without Python code
    // (requirements/base.txt), or where a file of its folder imports the package.
    std::optional<std::string> imported_only_outside(std::string_view package, const std::string& declared_in) const;
    bool any_extension_sources() const { return m_any_sources; }
    // The files that import a compiled extension, with the lines of those imports: where the calls
    // through it are looked for (Scanner reads these files again, in full).
    std::map<std::string, std::set<int>> extension_import_lines() const;
    // Joins the calls found in `path` through its extension imports to the extensions and their ops.
    void add_imported_calls(const std::string& path, const std::vector<ImportedCall>& calls);
    // The files that import, by name, the function or autograd.Function class an extension call sits
    // in, with the lines of those imports: where the calls of that function are looked for (second
    // round, after add_imported_calls: a custom op's `MSDeformAttnFunction.apply(...)` under a
    // try/except with a pure-PyTorch twin beside it guards the extension call in its forward()).
    std::map<std::string, std::set<int>> caller_import_lines();
    // Joins the calls found in `path` through those imports to the functions they call.
    void add_caller_calls(const std::string& path, const std::vector<ImportedCall>& calls);
    // `torch.ops.<ns>.<op>(...)` calls anywhere in the repository (in a folder of checkouts, in the one of
    // `registered_in`); op "" for every op of the namespace.
    std::vector<CallSite> ops_calls(const std::string& ns, const std::string& op, const std::string& registered_in) const;
    // The strongest reach among call sites, each weakened by the guard around it; nullopt for none.
    std::optional<FileReach> reach_of_calls(const std::vector<CallSite>& calls) const;
    // The strongest reach among imports of the repository's own compiled modules that no Python file
    // or extension definition provides (`from geomops import _C` built by CMake); nullopt if none.
    // `path`: the C++/CUDA file asking; in a folder of checkouts, only its own checkout's imports count.
    std::optional<FileReach> reach_of_unbuilt_own_modules(const std::string& path) const {
        auto it = m_unbuilt_own.find(m_projects.empty() ? std::string() : project_of(path));
        return it == m_unbuilt_own.end() ? std::nullopt : std::optional<FileReach>(it->second);
    }
    // Whether the checkout of `path` is a C++/CUDA program or library, not a PyTorch one: its Python
    // run is scripts that import none of its own modules (ThunderKittens' gentests.py, which a Makefile
    // runs to make a kernel's inputs), or there is none, beside tests, benchmarks and demos. What it
    // delivers is then its native code, which no Python import reaches.
    bool native_is_the_product(const std::string& path) const {
        return m_native_product.count(m_projects.empty() ? std::string() : project_of(path)) > 0;
    }
    // Why the tests in `path` do not run without CUDA, when a conftest.py says so (an autouse fixture
    // that skips, collect_ignore_glob set without CUDA): "tests/conftest.py:12: ..."; nullopt otherwise.
    std::optional<std::string> test_skip_of(const std::string& path) const;
    // Why the test around `line` of `path` does not run without CUDA, when its skip decorator compares what
    // a function of the repository returns there (FileFacts::helper_skips): nanotron's
    // `@pytest.mark.skipif(available_gpus() < 4)`, available_gpus() returning 0 without CUDA; nullopt otherwise.
    std::optional<std::string> test_skip_at(const std::string& path, int line) const;
    // The folder of the third-party project that `path` sits in, copied into the repository: the
    // nearest folder above it named in the vocabulary's vendored dirs, or one that holds a licence
    // other than the project's around it and is no Python package. nullopt for the repository's own
    // code.
    std::optional<std::string> vendored_root(const std::string& path) const;
    // The dotted module a Python file of the repository is, below its import root ("im2mesh/dmc/__init__.py": "im2mesh.dmc").
    std::string module_name_of(const std::string& path) const;
    // Whether `path` imports something at `line` unguarded, at module level (it runs on import).
    bool imports_on_load(const std::string& path, int line) const { return m_imports_on_load.count({path, line}) > 0; }
    // The files that import one of `seeds` (path -> the CUDA-only package it imports on load and where:
    // "triton (a.py:3)") unguarded at module level, directly or through such imports of the
    // repository's own modules, seeds included: each with why ("imports triton (a.py:3)",
    // "imports pkg/ops.py, which needs triton (pkg/ops/k.py:3) to load"); and the helpers only such
    // files import ("is imported only by tests/test_kernels.py, which needs triton (...) to load").
    std::map<std::string, std::string> importing_on_load(const std::map<std::string, std::string>& seeds) const;
    // The files that import, unguarded at module level, a compiled module of the repository's own that
    // only builds with CUDA (CUDAExtension or .cu sources, with no C++ build beside it): path -> "the
    // CUDA extension fused_dense_lib (flash_attn/ops/fused_dense.py:9)". Seeds for importing_on_load.
    std::map<std::string, std::string> cuda_extension_importers() const;

    // The repository's Python script that the command on `line` of a shell, Slurm, Docker or Make file
    // runs (`torchrun --nproc_per_node=8 train.py` -> "train.py"); nullopt when none is found there.
    std::optional<std::string> launched_at(const std::string& path, int line) const {
        const auto it = m_launched.find({path, line});
        return it == m_launched.end() ? std::nullopt : std::optional<std::string>(it->second);
    }
    // The script that the command on `line` of a shell, Slurm, Docker or Make file runs when no file of
    // the repository is that script (a vendored experiment's `tools/train.py`): the command runs nothing
    // of this repository. nullopt when the command's script is found, or could be (a file ends with its path).
    std::optional<std::string> missing_launch_at(const std::string& path, int line) const {
        const auto it = m_missing_launches.find({path, line});
        return it == m_missing_launches.end() ? std::nullopt : std::optional<std::string>(it->second);
    }
    // Why `line` of `path` is a self-test: it lies in the __main__ block of a module that a file the run
    // reaches imports, and no command, console script or --entry runs the module. nullopt otherwise.
    std::optional<std::string> self_test_block(const std::string& path, int line) const;
    // A program of the repository (rules/program.yaml other_program) that does not reach `path`
    // unconditionally, while sharing an own module with a program that does; nullopt when every
    // program reaches it, or none does.
    std::optional<std::string> program_without(const std::string& path) const;
    // The same for the module-level import on `line` of `path`, given what `path` does with the names
    // it binds (set_import_use): a program that reaches `path` but takes from it only definitions that
    // do not use them (`from .utils import LayerNorm, GRN`) runs without the import, once it is moved.
    std::optional<std::string> program_without(const std::string& path, int line) const;
    void set_import_use(const std::string& path, int line, ImportUse use) { m_import_uses[{path, line}] = std::move(use); }
    bool has_import_use(const std::string& path, int line) const {
        const auto it = m_import_uses.find({path, line});
        return it != m_import_uses.end() && it->second.found;
    }
    // Whether two or more programs (rules/program.yaml other_program) were found: only then can one
    // run without what another needs.
    bool has_programs() const { return m_programs.size() > 1; }
    // Whether the program whose entry is `entry` reaches `path` by unconditional imports.
    bool program_reaches(const std::string& entry, const std::string& path) const {
        return std::any_of(m_programs.begin(), m_programs.end(), [&](const auto& p) { return p.first == entry && p.second.count(path); });
    }
    // Whether some program reaches `path` by unconditional imports: only then can what `path` does
    // with an import (set_import_use) change program_without's answer.
    bool any_program_reaches(const std::string& path) const {
        return std::any_of(m_programs.begin(), m_programs.end(), [&](const auto& p) { return p.second.count(path) > 0; });
    }
    // The files `path` imports unconditionally, directly or through other such imports, itself included.
    std::set<std::string> imported_from(const std::string& path) const;
    // Whether `from` imports `to` itself, by any import (guarded, lazy or not).
    bool imports_file(const std::string& from, const std::string& to) const;
    // For each of `paths`, the files that import it by any import, directly or through other files
    // (itself not included).
    std::map<std::string, std::set<std::string>> importers_of(const std::set<std::string>& paths) const;
    // The one import, inside a function, by which the project loads `path` (axolotl's
    // fix_mamba_attn_for_loss() holds the only import of modeling_mamba.py): (importer, line), the last
    // step of the file's chain. nullopt when another import, or a command, reaches the file.
    std::optional<std::pair<std::string, int>> only_import_in_function(const std::string& path) const;
    // Whether two paths belong to one checkout (always, unless the scan is of a folder of checkouts).
    bool same_project(const std::string& a, const std::string& b) const { return m_projects.empty() || project_of(a) == project_of(b); }
    // Whether any Python file or notebook of `defining`'s project writes `name` after a dot or as a
    // whole string (FileFacts::attribute_names), or imports it by name.
    bool names_in_python(const std::string& name, const std::string& defining) const;

private:
    std::map<std::pair<std::string, int>, std::string> m_launched;  // (launch file, line) -> the script it runs
    std::map<std::pair<std::string, int>, std::string> m_missing_launches;  // (launch file, line) -> a script not in the repository
    struct SkipScope {
        std::string dir;                 // the conftest.py's folder ("" at the top)
        std::vector<std::string> globs;  // pytest's collect_ignore(_glob) entries; empty: every file below
        std::string note;
    };
    void find_skip_scopes(const std::vector<FileRecord>& files);
    struct LineSkip {
        int first = 0, last = 0;
        std::string note;
    };
    std::map<std::string, std::vector<LineSkip>> m_line_skips;  // path -> tests skipped without CUDA through a helper
    // What the function `via` (as `path` calls it: "available_gpus", "utils.available_gpus") returns
    // without CUDA, when `path` defines it or imports it from a file of the repository (`defined_in`)
    // and it returns there; nullptr otherwise. Through the import graph's edges, as the file imports it.
    const ReturnWithoutCuda* returns_without_cuda_of(const std::string& path, const std::string& via, std::string& defined_in) const;
    // The skip decorator that the name `via` (as `path` writes it after `@`) is bound to, where `path`
    // imports it from a file of the repository (`defined_in`) that binds it; nullptr otherwise.
    const SkipAlias* skip_alias_of(const std::string& path, const std::string& via, std::string& defined_in) const;
    // The files where `path` may find the name `via` as it writes it: itself for a bare name, and the
    // files it imports it from by name (`from tests.helpers.utils import available_gpus`), or whole
    // (`from helpers import utils`) for `utils.available_gpus`. The name's last segment in `name`.
    std::vector<std::string> files_defining(const std::string& path, const std::string& via, std::string& name) const;
    // The fact of `files_defining` whose name (`name_of`) is the name `via` writes, and its file; with
    // `elsewhere`, not one of `path` itself.
    template <typename Fact>
    const Fact* defined_for(const std::string& path, const std::string& via, std::string& defined_in, std::vector<Fact> FileFacts::*facts_of,
                            std::string Fact::*name_of, bool elsewhere) const;
    struct Edge {
        std::string to;
        int line = 0;
        GuardKind guard = GuardKind::none;
        std::string guard_note;
        bool lazy = false;  // inside a function: runs when that function does
        // What the importer takes from the module by name (`from m import a, b`); none taken for a
        // package that `from pkg.sub import x` only loads; nullopt for the whole module (`import m`,
        // `from m import *`, a submodule imported by name), whose every name it may use.
        std::optional<std::vector<std::string>> names;
    };
    void add_sys_path_roots(const std::vector<FileRecord>& files);
    void index_files(const std::vector<FileRecord>& files);
    std::optional<std::string> find_module(const std::string& base, const std::string& dotted) const;
    // An import's guard as the repository's commands run it: under an option they turn on, none.
    std::pair<GuardKind, std::string> guard_as_commanded(const ImportFact& imp) const;
    std::set<std::string> m_options_turned_on;
    // A dotted module of the repository, under the import roots of `from`'s checkout; nullopt if none.
    std::optional<std::string> module_in_project(const std::string& dotted, const std::string& from) const;
    bool binds_name(const std::string& init, const std::string& name) const;
    // Whether the module file at `path` builds no extension and imports nothing from the repository's
    // own packages (nor relatively): a name it binds is no compiled module of the repository's.
    bool binds_no_own_module(const std::string& path) const;
    void add_edges(const FileRecord& file);
    void link_config_dispatch(const std::vector<FileRecord>& files);
    // Whether `importer` also imports a module that builds a CUDA extension just in time from sources
    // `ext` lists too: then the try/except around `ext`'s import falls back to the same CUDA code.
    bool jit_builds_same_sources(const std::string& importer, const ExtensionLink& ext) const;
    void find_entry_points(const std::vector<FileRecord>& files, const ModelOptions& options);
    void mark_sampling_entries();
    void mark_side_programs(const std::vector<FileRecord>& files, const std::vector<std::string>& declared_dirs,
                            const std::map<std::string, std::string>& readmes);
    // Whether the README of `project` names `folder` as a path or a folder to enter (true when it has none).
    bool readme_names_folder(const std::map<std::string, std::string>& readmes, const std::string& project, const std::string& folder) const;
    void compute_reach();
    void link_extensions(const std::vector<FileRecord>& files);
    // The dotted name of the package a relative import with `level` dots starts from, in `path`.
    std::string relative_base(const std::string& path, int level) const;
    // A file's reach seen from one line of it under `guard` (an import or a call site).
    FileReach reach_at(const std::string& path, int line, GuardKind guard, const std::string& guard_note) const;
    // A call site's reach: its file's at its line, or, for a call inside a module-level function that
    // its file never names again, the strongest reach among the imports of that function by name.
    FileReach reach_of_call(const CallSite& call) const;
    std::map<std::string, FileReach> find_unbuilt_own_modules() const;  // once, after reach: every C++/CUDA finding asks
    std::set<std::string> find_native_products() const;                 // once, after reach
    std::vector<std::string> chain_to(const std::string& path, const std::map<std::string, std::pair<std::string, int>>& pred) const;

    const ProgramVocabulary& m_vocab;
    std::vector<SkipScope> m_skip_scopes;
    std::vector<std::string> m_tooling_dirs;   // the vocabulary's, with the repository's own settings
    std::vector<std::string> m_tooling_files;
    std::vector<LicensedDir> m_licensed_dirs;  // sorted
    // A folder of checkouts (two or more licensed folders right below a base with no licence): each
    // one's folder. Imports do not cross from one to another. Empty for one repository.
    std::vector<std::string> m_projects;
    const std::string& project_of(const std::string& path) const;
    std::map<std::string, std::pair<std::string, int>> m_run_importer;  // file -> (a file the run reaches that imports it, line)
    // entry points a command, a console script or --entry runs -> the files whose commands run them
    std::map<std::string, std::set<std::string>> m_commanded;
    // Those of them that are training entries (not tooling, a side program or a package's API), each
    // with the files it reaches by unconditional imports.
    std::vector<std::pair<std::string, std::set<std::string>>> m_programs;
    std::map<std::pair<std::string, int>, ImportUse> m_import_uses;  // set_import_use
    std::map<std::string, std::string> m_container_predictors;         // ModelOptions::container_predictors
    std::map<std::string, std::string> m_remote_code;                  // checkout -> remote_code_in
    std::optional<std::string> program_without(const std::string& path, const ImportUse* use) const;
    void find_programs();
    bool named_as_program(const std::string& path) const;  // its file name has one of program_words (train, serve, sample, ...)
    std::set<std::string> m_python;                 // importable .py files, in order (walks over them are deterministic)
    std::unordered_set<std::string> m_python_index; // the same, for the many lookups of an import's candidates
    std::unordered_set<std::string> m_dirs;         // the folders that hold them, at any depth
    std::map<std::string, const FileFacts*> m_facts;
    std::set<std::string> m_roots;                  // folders that hold top-level packages ("" = the repository)
    std::set<std::string> m_native;                 // the C++/CUDA files
    // Top-level name -> the roots that hold a module or package of that name, in m_roots' order
    // (a tree of many repositories has hundreds of roots; an import asks only those with its name).
    std::map<std::string, std::vector<std::string>, std::less<>> m_root_heads;
    const std::vector<std::string>& roots_holding(std::string_view dotted) const;
    // The same roots, those that hold `near` (a file, or a folder with a trailing '/') first, the nearest
    // first: a script's own project is where Python finds its top-level names (sys.path[0], or the folder
    // its project's commands run in), wherever another project of the tree holds the same name.
    std::vector<std::string> roots_holding(std::string_view dotted, const std::string& near) const;
    // Where an absolute import of `dotted` from `near` is looked for: the folders from `dir` up to the
    // repository's base in which the whole dotted module resolves (a module or a package), the nearest
    // first, then roots_holding(dotted, near). A collection's sub-project run from its own folder
    // (`from models.utils import x` in InternVideo1/Pretrain/ViCLIP/models/criterions.py) finds its own
    // `models` there, though that folder is a package of no root and other sub-projects hold `models`.
    std::vector<std::string> import_bases(std::string dir, const std::string& dotted, const std::string& near) const;
    // "module\0name" -> the imports of `name` from `module` ("module\0": `import module`), with
    // relative imports made absolute; built on the first reach_of_call (most scans never ask).
    mutable std::optional<std::map<std::string, std::vector<ImportSite>>> m_name_imports;
    const std::map<std::string, std::vector<ImportSite>>& name_imports() const;
    // The imports of `name` from `module`, through the packages whose __init__.py re-exports it.
    std::vector<ImportSite> importers_of(const std::string& module, const std::string& name) const;
    std::map<std::string, std::vector<Edge>> m_edges;
    std::set<std::pair<std::string, int>> m_imports_on_load;  // (path, line) of unguarded module-level imports
    std::map<std::string, std::vector<ImportSite>> m_external;  // dotted name -> import sites
    std::vector<std::pair<std::string, FileReach>> m_reach_list;
    std::map<std::string, FileReach> m_reach;
    std::set<std::string> m_own;
    std::map<std::string, std::set<std::string>> m_own_in;  // per checkout, in a folder of checkouts
    void own(const std::string& path, const std::string& name);
    std::vector<ExtensionLink> m_extensions;
    bool m_training_entries = false;
    // Training entries of a program of its own, in a sub-folder with its own README, beside the
    // repository's main program: entry path -> that folder ("extensions/thunder").
    std::map<std::string, std::string> m_side_entries;
    std::map<std::string, std::vector<std::pair<std::string, int>>> m_package_importers;  // top-level -> (file, line)
    std::map<std::string, std::vector<CallSite>> m_ops_calls;  // torch.ops namespace -> calls
    // "module\0function" -> the calls of it found in the files that import it (add_caller_calls), and
    // the (path, import line) each request stood for.
    std::map<std::string, std::vector<CallSite>> m_caller_calls;
    std::map<std::pair<std::string, int>, std::vector<std::string>> m_caller_requests;
    // module + '\0' + function -> the CUDA-only JIT extension that function builds (ExtensionFact::
    // built_in_function), and the files that call it at module level: path -> why (cuda_extension_importers).
    std::map<std::string, std::string> m_loader_functions;
    std::map<std::string, std::string> m_loaded_on_import;
    ProgramSummary m_summary;
    bool m_any_sources = false;
    std::map<std::string, FileReach> m_unbuilt_own;  // by checkout ("" for one repository)
    std::set<std::string> m_native_product;          // checkouts whose native code is the product
};

// Gives every finding its reach and chain, drops the repository's own packages reported as outside
// dependencies, links extension findings to their import sites, and weighs each finding once.
// `no_mac_import`: the packages whose import fails on macOS (PackageInfo::imports_on_mac).
void apply_program_model(const ProgramModel& model, const ProgramVocabulary& vocabulary, std::vector<Finding>& findings,
                         const std::set<std::string, std::less<>>& no_mac_import = {});

// The one place a finding's final severity and verdict impact are decided, from the rule's weight,
// the guard around it, its reach and any `context` weights (a data file no code reads, a checkpoint
// every load remaps), each with its reason; `note` says what changed and why. `guard_weight_override`,
// where given, weighs in place of the weight of the finding's guard kind (around the finding, and on
// its import chain where the chain's guard is of that kind).
void weigh(Finding& f, Level level, const FileReach& reach, const ProgramVocabulary& vocabulary,
           const std::vector<std::pair<const WeightRule*, std::string>>& context = {}, const WeightRule* guard_weight_override = nullptr);

}  // namespace mpsport::program
