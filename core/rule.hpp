// A rule as loaded from rules/<family>/<id>.yaml. Rules are data; engines read the part for them.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.hpp"

namespace mpsport {

struct EffortModel {
    std::string per = "site";  // site | file | kloc
    double low = 0;            // hours per unit
    double high = 0;
    double setup_low = 0;      // shared once per file in which the rule fires
    double setup_high = 0;
    double cap_high = 0;       // the most one rule can add across a repo (0: no cap)
};

struct RuleDocs {
    std::string what;
    std::string why;
    std::string example;
};

struct Rule {
    std::string id;
    std::string engine;  // python | manifest | lines | checkpoint | config | clang | runtime
    Severity severity = Severity::info;
    std::string category;
    VerdictImpact impact = VerdictImpact::none;
    EffortModel effort;
    std::string message;  // may hold {capture} placeholders
    std::string fix;
    RuleDocs docs;
    std::vector<std::string> references;
    // Literal strings; a file holding none of them is never parsed for this rule.
    std::vector<std::string> triggers;
    // "packages": the triggers are the import names of rules/packages/ (one data edit adds a package).
    std::string triggers_from;

    // engine: python
    std::string query;      // tree-sitter query, @finding marks what is reported
    std::string analysis;   // name of a registered analysis, for what a query cannot say
    // Availability checks around a match: downgrade (CUDA-only check -> info, MPS-aware -> dropped),
    // mps-aware (dropped only when the check mentions MPS), none (ignored).
    std::string guard = "downgrade";
    // engine: manifest
    std::string manifest_check;             // cuda-only-packages | cuda-only-groups | cuda-builds | nvidia-channels
    std::vector<std::string> file_kinds;    // which file kinds the rule reads (manifest, lines and clang rules)
    // engine: lines
    std::string line_pattern;               // ECMAScript regex, matched on each line
    bool line_skip_comments = false;        // lines.skip_comments: a line whose first non-blank character is '#' is not matched
    // engine: checkpoint
    std::string checkpoint_check;           // contents | cuda-storage | float64 | unknown-globals
    // engine: clang
    std::vector<std::string> matchers;  // clang-query matcher text; the node bound to "finding" is reported
    std::string check;                  // a registered C++ check, for what a matcher cannot say

    // Free-form string lists for analyses (creators, sinks, ...); for config rules: keys, values, with.
    std::map<std::string, std::vector<std::string>> params;

    std::filesystem::path source;  // the .yaml file
};

// The 9-item MPS release checklist item a rule category speaks to (design.md); 0 for an unknown
// category, which rule loading rejects. The one place this mapping lives.
int checklist_item(std::string_view category);

// The program model's vocabulary (rules/program.yaml): which conditions make code optional, which
// files are tooling, and how a guard or a reach weighs on a finding.
struct GuardVocabulary {
    std::vector<std::string> device_calls;       // qualified calls that test the device: torch.cuda.is_available
    std::vector<std::string> device_attributes;  // x.is_cuda
    std::vector<std::string> device_flags;       // use_gpu, args.cuda: the caller's switch for the CUDA path
    std::vector<std::string> option_device_flags;  // cuda: `if args.cuda:`, an options object's switch for the CUDA path
    std::vector<std::string> device_index_names;   // cuda_device, gpu: a CUDA index where -1 is the CPU (`if device > -1:`)
    std::vector<std::string> argparse_objects;     // opt, args: what `parser.parse_args()` is bound to, read in other files (`self.opt.X`)
    std::vector<std::string> device_list_names;    // gpu_ids: CUDA device ids where an empty list is the CPU (`if len(opt.gpu_ids) > 0:`)
    std::vector<std::string> device_strings;     // compared in a condition: device.type == "cuda"
    std::vector<std::string> mps_names;          // what makes a device check MPS-aware (qualified names)
    std::vector<std::string> mps_strings;        // "mps"
    std::vector<std::string> distributed_env;    // RANK, WORLD_SIZE read from os.environ
    std::vector<std::string> distributed_calls;  // torch.distributed.is_initialized
    std::vector<std::string> distributed_names;  // ddp, world_size, distributed (names or attributes)
    // Keys of a config dict that hold the multi-process flag, only as a subscript's key (basicsr's
    // `if self.opt['dist']:`), where a plain `dist` is as often a distance: dist
    std::vector<std::string> distributed_keys;
    // Names that hold a count of devices, a multi-device switch only where compared with one: `devices
    // > 1`, `len(devices) > 1` (a plain `devices` is as often a list of them): devices
    std::vector<std::string> device_count_names;
    // Functions, by their own name wherever they are defined (a repository's comm.get_world_size()),
    // whose result says the run is multi-process: get_world_size() > 1, is_dist_avail_and_initialized()
    std::vector<std::string> distributed_functions;
    // Collective calls (torch.distributed.all_reduce, barrier): a function that makes one synchronises
    // processes, which a single device has none of; a float64 tensor made for it is no port of the run.
    std::vector<std::string> collective_calls;
    // Functions, by their own name (globs allowed), that test whether a package is installed:
    // `if is_apex_available(): from apex import amp` is an import with a fallback beside it.
    std::vector<std::string> package_checks;
    // Words of such a function's name that say the package never exists on a Mac
    // (`_is_triton_available()`): then the test is a device check, false on a Mac.
    std::vector<std::string> mac_absent_package_words;
    // ... and any function whose name has one of those words and one of these (`cuda_graph_enabled()`).
    std::vector<std::string> availability_words;
    // ... and those that test for a CUDA device, by their own name: `is_torch_cuda_available()`.
    std::vector<std::string> device_functions;
    std::vector<std::string> platform_names;     // sys.platform, platform.system, torch.version.hip
    std::vector<std::string> type_checking_names;  // typing.TYPE_CHECKING: a block only type checkers read
    std::vector<std::string> registry_calls;     // `register`: a function passed to one is stored for a name to pick, not called
    std::vector<std::string> mac_strings;        // "darwin": the branch that names macOS is not a guard
    std::vector<std::string> cluster_strings;    // "philly", "slurm", "tpu": a branch that names one is never a Mac's
    // Shell and Slurm scripts (analyzer/lines/shell_guards.hpp): what a test of the platform or of
    // the CUDA toolkit names.
    std::vector<std::string> shell_platform_probes;         // uname, OSTYPE
    std::vector<std::string> shell_linux_strings;           // Linux: the branch that names it is not a Mac's
    std::vector<std::string> shell_cuda_probes;             // nvcc, nvidia-smi, CUDA_HOME, /usr/local/cuda
    std::vector<std::string> shell_cuda_version_variables;  // CU_VERSION: a build's CUDA flavour
    std::vector<std::string> shell_cpu_strings;             // cpu: the flavour a Mac builds
    std::vector<std::string> shell_cuda_values;             // cuda: `[ "$PLATFORM" = "cuda" ]` tests for the CUDA flavour
    std::vector<std::string> skip_decorators;    // unittest.skipIf, pytest.mark.skipif
    // Skip decorators a repository's test helpers define and its tests import (@requires_cuda), by name
    std::vector<std::string> skip_decorator_names;
    std::vector<std::string> skip_calls;         // pytest.skip, pytest.importorskip, skipTest
    // instantiate_device_type_tests(TestX, globals(), only_for=("cuda",)): TestX's tests exist for
    // the device types `only_for` names only, by the function's last name
    std::vector<std::string> device_test_instantiators;
    // conftest.py: fixtures that run before every test when autouse=True, and the names that
    // de-collect test files (collect_ignore, collect_ignore_glob)
    std::vector<std::string> fixture_decorators;
    std::vector<std::string> collect_ignore_names;
    std::vector<std::string> import_errors;      // exceptions an import fallback catches
    std::vector<std::string> exit_calls;         // calls that end the program: a handler making one holds no fallback
    // Flags only an install script sets (numpy's `builtins.__NUMPY_SETUP__`): unset whenever the program runs
    std::vector<std::string> install_flags;
    // Words whose presence in an arm of an if/elif/else choice makes it no CUDA-free alternative
    std::vector<std::string> cuda_words;
    // A switch by its name's start (`use_flash`, `enable_fused`): `if use_flash:` chooses an implementation
    std::vector<std::string> option_flag_prefixes;
    // The run's options objects (`opt`, `args`, `cfg`): `if opt.ff:` is a switch, whatever its name
    std::vector<std::string> option_objects;
    // Functions of a repository's own that wrap torch.utils.cpp_extension.load, by their own name
    std::vector<std::string> extension_loaders;
    // Decorators that only wrap a function (contextmanager, staticmethod): its calls stay its calls
    std::vector<std::string> transparent_decorators;
    // Decorators that make a class's annotated fields its constructor's parameters (dataclass, attr.s)
    std::vector<std::string> field_class_decorators;
    // Methods that are a class's own device move (`def cuda(self)`): run only where the caller asks for CUDA
    std::vector<std::string> device_move_methods;
    // Methods a framework calls by itself (forward through __call__, Lightning's hooks), as globs: their
    // explicit calls are not all their calls, so the caller-guard pass never follows them.
    std::vector<std::string> implicit_methods;
    // Where gradients flow, for ops whose only fallback is their backward op:
    std::vector<std::string> no_grad_contexts;   // torch.no_grad, torch.inference_mode (a `with` or a decorator)
    std::vector<std::string> inference_words;    // a function named with one of these words runs inference only
    std::vector<std::string> training_words;     // ... or training: forward, loss
    std::vector<std::string> training_methods;   // a call of one of these methods trains: loss.backward()
};

struct WeightRule {
    int severity_drop = 0;                                 // levels below the rule's severity
    std::optional<Severity> max_severity;                  // at most this
    std::optional<VerdictImpact> impact_cap;               // at most this verdict impact
    int impact_drop = 0;                                   // levels below the rule's verdict impact
    std::string why;                                       // said in the finding's note
};

// A call that loads a checkpoint (rules/program.yaml data_readers.checkpoint_loads).
struct CheckpointLoadCall {
    std::string call;     // "torch.load" (written as such), or a bare name matched on any receiver
    std::string remap;    // the keyword that moves storages to another device on load: map_location
    int remap_position = 0;  // its positional index when not passed by keyword (torch.load(f, "cpu")); 0: none
    bool folder = false;  // the path argument is a folder that holds the weights (from_pretrained)
    bool on_cpu = false;  // without `remap`, the call loads onto the CPU anyway
};

// How code names the data files it reads: a run config or a checkpoint takes the reach of its readers.
struct DataReaderVocabulary {
    std::vector<std::string> config_extensions;       // yaml, yml, json, toml
    std::vector<std::string> config_folder_keywords;  // config_path=: a Hydra folder of configs
    // Keys whose value names a class or function the code instantiates from the config
    // (`target: ldm.models.ddpm.DDPM`, Hydra's `_target_`): the reader imports that module.
    std::vector<std::string> config_target_keys;
    // YAML tags followed by such a name (HyperPyYAML's `!new:`, `!name:`, `!apply:`), anywhere in the file.
    std::vector<std::string> config_target_tags;
    // The names a run config goes by in code, whose attributes read its keys (`cfg.trainer.device`).
    std::vector<std::string> config_objects;
    std::vector<std::string> checkpoint_extensions;   // pt, pth, ckpt, bin, safetensors
    std::vector<CheckpointLoadCall> checkpoint_loads;
    std::optional<WeightRule> unread;    // a data file no code reads
    std::optional<WeightRule> remapped;  // a CUDA-saved checkpoint every load remaps off CUDA
    std::optional<WeightRule> unselected;  // a Hydra config option no default run loads
};

struct ProgramVocabulary {
    GuardVocabulary guards;
    std::vector<std::string> tooling_dirs;   // a path with one of these folders is tooling
    std::vector<std::string> tooling_files;  // file-name globs: test_*.py, conftest.py
    // A notebook made for a hosted GPU service is a demo entry (tooling): its metadata keys, and
    // strings any of its cells hold.
    std::vector<std::string> hosted_notebook_metadata;
    std::vector<std::string> hosted_notebook_strings;
    // An entry script named for sampling or evaluation (a word of its name split at _ - .) that calls
    // no training method: not the training run where the repository has a training entry.
    std::vector<std::string> sampling_entry_words;
    // An entry script named for evaluation: not the training run there even when it calls one (a linear probe).
    std::vector<std::string> evaluation_entry_words;
    // Tooling by its file name (test.py), but the repository's run where its commands run no other
    // script: an inference-only release whose README says `python test.py --trained_model=...`.
    std::vector<std::string> sole_run_files;
    // Deep-learning frameworks other than PyTorch: an entry script that imports one and not torch is
    // another framework's program (ResNeSt's scripts/gluon/train.py, MXNet), not the run being ported.
    std::vector<std::string> other_frameworks;
    // File-name globs of a backup copy of a module (modules_bak.py): its `__main__` block
    // is no entry point of the run; it is reached only where the code imports it.
    std::vector<std::string> backup_files;
    // Callees (prefixes) whose call at module level does not make a file a script (sys.path.append,
    // warnings.filterwarnings, setup): FileFacts::module_call_line (rules/program.yaml module_level_scripts).
    std::vector<std::string> script_setup_calls;
    std::map<GuardKind, WeightRule> guard_weights;
    std::map<Reach, WeightRule> reach_weights;
    // Per rule category ("op-support", "dtype"): taken on top of reach_weights.
    std::map<std::string, std::map<Reach, WeightRule>> reach_weights_for;
    // Per file kind ("cuda", "cpp"): taken on top of reach_weights and reach_weights_for.
    std::map<std::string, std::map<Reach, WeightRule>> reach_weights_by_file_kind;
    DataReaderVocabulary readers;
    // Third-party code copied into the repository: a folder with one of these names, or one that holds
    // its own licence file and is no Python package. Weighs a tooling or unreached file there.
    std::vector<std::string> vendored_dirs;
    std::optional<WeightRule> vendored;
    // A tooling file that cannot even be imported without CUDA: its findings are nothing to port.
    std::optional<WeightRule> cuda_bound_tooling;
    // A package for scale or speed in a module the run imports only on demand, in one arm of an if.
    std::optional<WeightRule> on_demand_package;
    // An extension of a vendored project that the run can do without: an optional package.
    std::optional<WeightRule> vendored_fallback;
    // an extension build with nvcc flags and sources the scan cannot read, in a repository with no .cu/.cuh file
    std::optional<WeightRule> no_cuda_sources;
    // A Python module a CMake file builds from C++ alone (no .cu source of its own or of a target it links).
    std::optional<WeightRule> cpp_python_module;
    // An op of the repository's extension whose every Python call sits under a device check: a Mac
    // takes the path beside it. Weighs in place of the device-check guard's own weight.
    std::optional<WeightRule> device_routed_op;
    // A stay-on-CUDA import that the run reaches through names another module of the repository
    // defines too, with nothing CUDA-only on load: importing that twin is the port.
    std::optional<WeightRule> twin_definition;
    // A stay-on-CUDA finding the run reaches only through a name a module imports to hold as one value
    // of a registry, the config picking one by its key (python registry_choices): the other entries are
    // runs without it.
    std::optional<WeightRule> registry_choice;
    // A CUDA-only op of the repository's extension whose every Python caller module also defines, at
    // its top, a function or class named like the op with one of these suffixes (`_pytorch`): the
    // PyTorch implementation of the same op, beside the kernel's call.
    std::vector<std::string> kernel_twin_suffixes;
    std::optional<WeightRule> kernel_twin;
    // A file that one program of the repository needs while another, sharing its code, runs without it;
    // a program is an entry that a command runs and whose file name has one of program_words.
    std::optional<WeightRule> other_program;
    std::vector<std::string> program_words;
    // Continuous integration and release packaging (.github, packaging): run on Linux build hosts only.
    std::vector<std::string> build_host_dirs;
    std::optional<WeightRule> build_host;
    // A test, benchmark or example whose file name has one of these words tests CUDA itself.
    std::vector<std::string> cuda_named_words;
    std::optional<WeightRule> cuda_named_tooling;
    // A Cog predictor (cog.yaml `predict:`): it runs in a Linux container that Cog builds, never on a Mac.
    std::optional<WeightRule> container_predictor;
    // Launch lines (rule ids) that start several processes; the weight when the Python script the line
    // runs is the repository's and has no unguarded distributed finding of its own.
    // Findings of these rules in a file that defines a kernel (kernel_rule) are parts of that kernel's
    // port: one cause, one finding (rules/program.yaml kernel_details).
    std::string kernel_rule;
    std::vector<std::string> kernel_detail_rules;
    // Folded only in CUDA sources (.cu, .cuh): host-side CUDA and at::cuda calls, which in a C++ header
    // beside the kernels still break the Mac build of the binding that includes it.
    std::vector<std::string> kernel_detail_cuda_rules;
    std::optional<WeightRule> kernel_detail;
    // The same for a Python file that imports a kernel language (package_detail_packages: triton) with
    // no guard, as package_detail_rule reports it (rules/program.yaml package_details).
    std::string package_detail_rule;
    std::vector<std::string> package_detail_packages;
    std::vector<std::string> package_detail_rules;
    std::optional<WeightRule> package_detail;
    std::vector<std::string> scale_out_rules;
    std::optional<WeightRule> scale_out;
    // An extension built with CUDA or, without it, as C++, whose every op has an MPS kernel (these op
    // rules): the build weighs this.
    std::vector<std::string> mps_build_rules;
    std::optional<WeightRule> mps_build;
    // By the kind of file a finding is in (parse_file_kind names): a Dockerfile builds a Linux image,
    // which a Mac runs in a VM with no access to its GPU.
    std::map<std::string, WeightRule> file_kind_weights;
};

enum class MpsStatus { none, partial, native };
std::string_view to_string(MpsStatus s);

// One entry of the CUDA-related package knowledge base (rules/packages/*.yaml).
struct PackageInfo {
    std::string import_name;                 // top-level module, e.g. flash_attn; empty for toolkits
    // A distribution that installs the same import on macOS (onnxruntime beside onnxruntime-gpu):
    // an import alone does not say the CUDA build is in use.
    std::string mac_build;
    // Where the package keeps its CUDA code (mmcv: ops): an import that names none of these submodules
    // (`from mmcv.utils import Registry`, `import mmcv`) reads only pure Python. Empty: all of it.
    std::vector<std::string> cuda_submodules;
    // The package's modules whose CUDA functions have a pure-PyTorch reference beside them (mamba_ssm:
    // ops.selective_scan_interface, with selective_scan_ref): an import from one of them weighs the
    // package's verdict_impact; any other import of the package (its Mamba module, its Triton layer
    // norm) weighs the import rule's own. Empty: every import weighs the package's.
    std::vector<std::string> reference_modules;
    // Keyword arguments and callees of other libraries that load this package without an import in
    // the repository's code: transformers' `from_pretrained(..., load_in_8bit=True)` and
    // `BitsAndBytesConfig(...)` load bitsandbytes.
    std::vector<std::string> used_through;
    // Those of used_through whose call only switches the package on for speed, the library running its
    // own path without it (diffusers' enable_xformers_memory_efficient_attention): dropping the call is
    // the port.
    std::vector<std::string> toggles;
    // False where the import itself fails on macOS (no macOS wheel, and a source build needs CUDA:
    // tensorrt, flash_attn): a file that imports it unguarded at module level cannot load on a Mac.
    bool imports_on_mac = true;
    // True where the listed distributions install on macOS (pure-Python NVML bindings and monitors:
    // pynvml, gpustat): a declaration of one needs no edit on a Mac, only its calls may.
    bool installs_on_mac = false;
    std::vector<std::string> distributions;  // normalised names in manifests; '*' matches any run
    std::string provides;                    // what the package gives the lab
    MpsStatus mps = MpsStatus::none;
    std::string mps_since;                   // first version with that MPS status, if known
    std::string mps_note;
    std::string alternative;                 // what to use on MPS
    VerdictImpact impact = VerdictImpact::stay;
    std::string why;
    double effort_low = 0;                   // hours to replace or drop it
    double effort_high = 0;
    std::filesystem::path source;            // the .yaml it came from
};

}  // namespace mpsport
