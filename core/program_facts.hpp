// What one file tells the program model: its imports (with the guard around each), whether it is a
// script, the compiled extensions it defines, the entry points it names, the project names it
// declares. Engines fill it while they read the file; it is cached with the file's findings, and
// analyzer/program/ joins the facts of every file into reach, chains and extension linkage.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/finding.hpp"

namespace mpsport {

struct ImportFact {
    std::string module;              // as written, without the leading dots: "pkg.ops", "" for `from . import x`
    int level = 0;                   // leading dots of a relative import
    std::vector<std::string> names;  // `from M import a, b`: a and b (each may be a submodule)
    int line = 0;
    int end_line = 0;  // the statement's last line (`from m import (\n a,\n b)`); 0: line
    GuardKind guard = GuardKind::none;  // guard around the import statement
    std::string guard_note;
    bool lazy = false;  // inside a function body: runs only when the function is called
    // a dotted path written in a string (`"target": "pkg.mod.Class"`), built on demand: no import
    // statement, so the name it holds is a use of it there
    bool in_string = false;
    // `importlib.import_module(cfg.model.type)`: the module a config value names, at this dotted key
    // path from the config's top ("model.type"; `module` empty here). In a config, the value's own key
    // path: the config's candidates for such an import.
    std::string config_key;
};

struct ExtensionFact {
    std::string name;                  // the Python module it builds: "pkg._C", "knn_cuda"
    bool cuda = false;                 // CUDAExtension, load(...) of .cu sources, load_inline(cuda_sources=)
    std::vector<std::string> sources;  // as written, relative to the defining file's folder
    bool conditional = false;          // built only under an if / try (e.g. `if CUDA_HOME:`)
    // CUDA only under a condition, a C++ (CPU) build otherwise: detectron2's `extension = CppExtension`,
    // then `if torch.cuda.is_available() ...: extension = CUDAExtension`.
    bool cuda_optional = false;
    // A setup script's own command-line switch around the build: `if '--cuda_ext' in sys.argv:`
    // (built only when passed: `built_when_passed`) or the else arm of `if '--no_cuda_ext' in
    // sys.argv: ext_modules = []` (built unless passed). Empty when there is none.
    std::string build_flag;
    bool built_when_passed = true;
    int build_flag_line = 0;
    int line = 0;
    // A JIT build (load, load_inline) inside a module-level function: that function's name (the one
    // that runs the helper around the load, for a helper's build). A file that calls it at module
    // level builds the extension on import (BigVGAN's activation1d.py: `anti_alias_activation_cuda =
    // load.load()`). Empty at module level, in a class, and for setup-script builds.
    std::string built_in_function;
};

// A call of a registered op through the dispatcher: `torch.ops.geomops.knn(x)`.
struct OpsCallFact {
    std::string ns, op;
    int line = 0;
    GuardKind guard = GuardKind::none;
    std::string guard_note;
};

// A call through a name an import binds (`_C.knn(x)` after `from . import _C`): found on demand, for
// the files that import a compiled extension (analyzer/python, PythonEngine::calls_through_imports).
struct ImportedCall {
    int import_line = 0;
    // The callee as the import spells it, without a relative import's dots: "_C.knn" for
    // `from . import _C`, "pkg._C.knn" for `import pkg._C as C; C.knn(x)`.
    std::string dotted;
    int line = 0;
    GuardKind guard = GuardKind::none;
    std::string guard_note;
    // The module-level function the call sits in ("" at module level or in a class), and whether the
    // file names that function anywhere else (calls it, passes it, exports it): when it does not,
    // the call runs only when another file imports and calls the function.
    std::string function;
    bool function_used_here = false;
    bool module_level = false;  // in no function at all: it runs when the file is imported
};

// The calls and other uses of some module-level functions in one file (analyzer/python/program_facts.hpp
// uses_of_functions): the guard pass that follows a finding to the callers of its function.
struct FunctionUses {
    struct Call {
        std::string name;
        int line = 0;
        GuardKind guard = GuardKind::none;
        bool mps_aware = false;
        std::string note;
        // What the call passes: its keyword names, how many positional arguments, and whether it
        // spreads *args or **kwargs (then what it passes is not known).
        std::vector<std::string> keywords;
        int positional = 0;
        bool spread = false;
        // The branch of its own function the call sits in ("if quantize:"), "" when none.
        std::string branch = {};
        std::vector<ArmSpan> arms = {};  // an alternative_branch guard's other arms (python::Guard::arms)
    };
    std::vector<Call> calls;
    // The name taken, not called, as the whole value of a `return` or of an assignment in one branch of
    // its function (FastChat's `elif is_exllama: return generate_stream_exllama`): the function is
    // chosen there, and runs where the choice is made. Only name, line and branch are kept. A
    // definition a registry stores is one too, its branch kRegisteredBy and the registration.
    std::vector<Call> selections;
    static constexpr const char* kRegisteredBy = "registered by ";
    std::set<std::string> other_uses;
    std::map<int, std::string> function_at;
    // The module-level class each method line of function_at (".name") sits in, where the class has
    // no decorator that may register it (a registry's `@register("name")`): a class written nowhere
    // else is never built, and its methods never run.
    std::map<int, std::string> class_at;
    // The first and last line of each module-level function and undecorated class named in
    // function_at or class_at: a name written only inside its own definition is not used.
    std::map<std::string, std::pair<int, int>> spans;
    // The names of function_at that are classes, their lines in a constructor (__init__, a field).
    std::set<std::string> classes;
    // The classes of class_at with a base other than object, torch.nn.Module or a class of the same
    // file (lm-eval's BaseLM, mmdet's AnchorGenerator): that base may call their methods by name.
    std::set<std::string> foreign_based;
    // The parameter defaults on the lines asked about (`device='cuda'`): the parameter, its position
    // in the def (self counted) or -1 when it can only be passed by keyword, and where the default is.
    struct ParameterDefault {
        std::string name;
        int position = 0;
        int line = 0, col = 0, end_line = 0, end_col = 0;  // 1-based, as a Location
    };
    std::vector<ParameterDefault> parameter_defaults;
};

struct EntryRef {
    std::string target;  // a path ("train.py", "scripts/eval.py") or a dotted module ("pkg.train")
    bool module = false;  // `python -m`, console scripts
    int line = 0;
    // Arguments after the script that look like file paths (`--config configs/x.yaml`,
    // `--resume=ckpt/last.pt`): the script reads those data files.
    std::vector<std::string> path_args = {};
    // Hydra-style overrides after the script (`trainer=gpu`, `+experiment=big`): the config options
    // the command line selects.
    std::vector<std::string> overrides = {};
    // The last line of the command: a shell command continued with `\` spans line..end_line (0: line).
    int end_line = 0;
    // A module that a Python code block of a README or other document imports (`from pkg.util.inference
    // import load_model`): the documented API of the project, where `module` is true.
    bool documented_import = false;
    // The folder an earlier `cd DIR` of the same script (or of the same fenced block of a README)
    // entered, relative to the file's folder: `cd utils` then `python train_classification.py`.
    std::string cwd = {};
};

// A place in the code that reads a data file (a run config, a checkpoint): the data file takes the
// reach of its readers (analyzer/program/data_reach.cpp).
struct DataReader {
    std::string path;  // the Python file that reads it
    int line = 0;      // where it names or loads it; 0 when a launch script passes it on the command line
    std::string how;   // for the related location: "names configs/x.yaml", "run by train.sh:3 with --config ..."
    bool load = false;                 // a checkpoint load call, whose `remap` is known
    // A Hydra config option that the reader's primary config does not select by default (and no
    // launch script selects): a run loads it only when its command line picks it.
    bool unselected = false;
    std::optional<std::string> remap;  // that call's map_location as written; nullopt: not given
    GuardKind guard = GuardKind::none;  // the guard the load or the name sits under (a device check, ...)
    std::string guard_note;
};

// A conftest.py (or a test module) that keeps tests from running where CUDA is missing: an autouse
// fixture that skips under a CUDA check, or `collect_ignore` / `collect_ignore_glob`.
struct CollectSkip {
    int line = 0;
    std::string note;                // the statement or condition, one line
    std::vector<std::string> globs;  // collect_ignore(_glob) entries, relative to the file's folder; empty: all of it
    // `collect_ignore_glob = helper()`: the helper as written ("helper", "collect.helper"), resolved
    // by the program model through the file's imports against the functions each file returns from
    // without CUDA (as HelperSkip::via).
    std::string via;
    bool fixture = false;  // an autouse fixture (in a test module it covers that module only)
};

// A module-level function that returns where CUDA is missing (`if not torch.cuda.is_available():
// return [...]`), with the strings it then returns when they are literal.
struct ReturnWithoutCuda {
    std::string function;
    int line = 0;
    std::string note;
    std::vector<std::string> strings;
    // It returns nothing there, or None, False or 0: a test of the device, a count of devices (nanotron's
    // tests/helpers/utils.py `def available_gpus(): if not torch.cuda.is_available(): return 0`).
    bool falsy = false;
};

// A test (a function, a method or a class) whose skip decorator compares what a function returns and
// names no device itself (`@pytest.mark.skipif(available_gpus() < 4)`): the file alone cannot say
// whether it runs on a Mac. The program model looks the function up in the files this one imports.
struct HelperSkip {
    int line = 0;      // the decorator
    int end_line = 0;  // the decorated definition's last line
    std::string note;  // the decorator, one line
    std::string via;   // the function called, as written ("available_gpus", "utils.available_gpus")
    // The decorator itself is a name this file imports (fairscale's `@skip_if_single_gpu`, from
    // fair_dev/testing/testing.py): `via` is that name, which the defining file must bind to a skip
    // decorator (FileFacts::skip_aliases).
    bool alias = false;
};

// A skip decorator kept under a module-level name (`skip_if_single_gpu = pytest.mark.skipif(not
// torch.cuda.is_available() or torch.cuda.device_count() < 2, ...)`) whose condition this file reads
// as a guard: a test elsewhere that imports the name and decorates with it is skipped on a Mac.
struct SkipAlias {
    std::string name;
    int line = 0;
    std::string note;  // the decorator's call, one line
};

// A module-level function with a device parameter that defaults to the CPU (timm's
// `def load_state_dict(checkpoint_path, use_ema=True, device='cpu')`): called without it, it makes CPU tensors.
struct CpuDefaultFunction {
    std::string function;
    std::string parameter;  // device, map_location
    int position = 0;       // among the parameters; -1 keyword only
    int line = 0;
};

// What a module does with the names one of its module-level imports binds (`import MinkowskiEngine as
// ME`): which of its top-level definitions use them, and whether its own top-level code does. A program
// that takes from the module only definitions that do not use them needs the import for nothing but
// loading: moving the import is its port (ConvNeXt-V2's main_finetune.py takes LayerNorm and GRN
// from models/utils.py, whose MinkowskiEngine only the sparse layers use). Read on demand, not cached.
struct ImportUse {
    bool found = false;              // an import statement, outside any function or class, starts on the line
    std::set<std::string> bound;     // the names it binds (ME; a and b of `from m import a, b`)
    std::set<std::string> users;     // top-level def/class names whose code uses one, directly or through another
    bool at_load = false;            // a top-level statement other than a def or class uses one, or a user
};

// A name a module holds only as a value of a registry: a module-level `NAME = {"key": value, ...}`
// with string keys and at least three entries (im2mesh/config.py's `method_dict = {'onet': onet,
// ..., 'dmc': dmc}`), the name used nowhere else but in import statements. The run's config picks one
// entry by its key. Read on demand (analyzer/registry_choices.cpp), not cached.
struct RegistryChoice {
    std::string registry;  // the dictionary's name: method_dict
    int line = 0;          // the entry's line
    std::size_t entries = 0;
};

struct FileFacts {
    bool script = false;  // `if __name__ == "__main__":` at module level
    int script_line = 0;
    int script_end_line = 0;  // the last line of that block
    // The first statement at column 0 that calls something other than a setup call (ProgramVocabulary::
    // script_setup_calls), or loops (for, while) or enters a context (with), outside strings: the body
    // of a script with no __main__ block (Janus's generation_inference.py, which calls generate() at
    // module level; a training loop written at module level). A text fact; 0 if none.
    int module_call_line = 0;
    std::vector<ImportFact> imports;
    std::vector<ExtensionFact> extensions;
    std::vector<OpsCallFact> ops_calls;
    std::vector<EntryRef> entry_refs;         // entry points this file names (shell, Docker, Make, pyproject, setup)
    std::vector<std::string> project_names;   // distribution / package names this file declares
    // A module-level skip of the whole file (pytest.importorskip, skip(allow_module_level=True)).
    GuardKind file_guard = GuardKind::none;
    std::vector<CollectSkip> collect_skips;
    std::vector<ReturnWithoutCuda> returns_without_cuda;
    std::vector<HelperSkip> helper_skips;
    std::vector<SkipAlias> skip_aliases;
    // A notebook that is a tooling entry, and why: one made for a hosted GPU service ("notebook made for a
    // hosted GPU service (its metadata has 'colab'): a demo"), or an nbdev notebook; empty otherwise.
    std::string hosted_demo;
    // The names this file writes after a dot (`task.prepare_distributed(`, `[task.prepare_distributed]`)
    // or as a whole string (`getattr(task, "prepare_distributed")`), as name_hash() values, sorted:
    // where the caller-guard pass looks for the uses of a method (analyzer/call_guards.cpp).
    std::vector<std::uint32_t> attribute_names;
    std::vector<CpuDefaultFunction> cpu_default_functions;
    // The folders this file puts on sys.path outside any function, relative to its own folder ("core",
    // "..", "../lib"): the program model resolves imports under them too.
    std::vector<std::string> sys_path_folders;
    // The first line that passes `trust_remote_code=True` (0: none): the file runs model code from the
    // Hugging Face Hub, which imports packages no file of the repository names.
    int remote_code_line = 0;

    bool empty() const {
        return !script && imports.empty() && extensions.empty() && ops_calls.empty() && entry_refs.empty() && project_names.empty() &&
               file_guard == GuardKind::none && collect_skips.empty() && returns_without_cuda.empty() && helper_skips.empty() && skip_aliases.empty() && hosted_demo.empty() &&
               attribute_names.empty() && module_call_line == 0 && cpu_default_functions.empty() && sys_path_folders.empty() && remote_code_line == 0;
    }
};

// Where the `#` comment of one line of Python starts, outside a one-line string literal; npos if it has
// none. Each line is read alone: a `#` inside a docstring reads as a comment, where a name calls
// nothing either.
std::size_t python_comment_start(std::string_view line);
// A name's hash as FileFacts::attribute_names keeps it: stable across runs (the cache keeps it).
std::uint32_t name_hash(std::string_view name);
// Every `.name` and every string that is one name ('name', "name") in Python source, strings included
// (more files to read, never fewer), comments not (python_comment_start: a call commented out is no
// call), as sorted, distinct name_hash() values.
std::vector<std::uint32_t> attribute_names_of(std::string_view text);
// FileFacts::module_call_line of a Python file's text; `setup_calls`: callee prefixes that do not make a script.
int module_call_line_of(std::string_view text, const std::vector<std::string>& setup_calls);

}  // namespace mpsport

namespace mpsport {

struct EntryPoint {
    std::string path;
    std::string why;       // "__main__ block", "console script (pyproject.toml:12)", "run by scripts/train.sh:4"
    bool tooling = false;  // a test, benchmark or example entry: reaches only tooling
};

// What the program model found, for the report.
struct ProgramSummary {
    std::vector<EntryPoint> entry_points;
    std::vector<std::string> own_packages;
    std::size_t files[4] = {0, 0, 0, 0};  // Python files by Reach
    // false when no training entry point was found: every non-tooling file then counts as core.
    bool complete = true;
    std::string incomplete_reason;
};

}  // namespace mpsport
