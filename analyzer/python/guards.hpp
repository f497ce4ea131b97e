// Guards: the conditions that make a piece of code optional. A device check (`if x.is_cuda:`), a
// distributed gate (`if ddp:` with ddp read from RANK), a platform branch that never runs on macOS,
// a test skip, an import with a fallback in its except clause. Names are resolved through the
// file's imports and matched against rules/program.yaml, never as substrings.
#pragma once

#include <tree_sitter/api.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/python/syntax.hpp"
#include "core/finding.hpp"
#include "core/rule.hpp"

namespace mpsport::python {

struct Guard {
    GuardKind kind = GuardKind::none;
    bool mps_aware = false;  // the check also knows about MPS: the code is already portable
    std::string note;        // the condition as written, one line
    std::vector<ArmSpan> arms = {};  // alternative_branch: every other arm that does the job without CUDA
};

// An `add_argument` call's option: its flag (the first long option, "--use-flash", else the first
// option) and its destination (`dest=`, else the flag's name with dashes as underscores); nullopt for
// a positional argument or another call.
struct ArgparseOption {
    std::string flag, dest;
};
std::optional<ArgparseOption> argparse_option(TSNode call, const ModuleFacts& facts);

// Every `add_argument` option of a module: its flag and destination, whether its default is off
// (`action="store_true"` without a true default, or a default of False or None), its string default
// where it has one, and its line.
struct ArgparseDeclaration {
    ArgparseOption option;
    bool off = false;
    std::optional<std::string> string_default;
    int line = 0;
};
std::vector<ArgparseDeclaration> argparse_declarations(TSNode root, const ModuleFacts& facts);

class GuardFinder;
// The guard of an option's default (`value`, in `add_argument("--backend", default="nccl")`): a
// default applies where the option is read, so where every read of it in the file (`args.backend`,
// under `if distributed:`) sits under a guard, the weakest of those; nullopt when `value` is no such
// default, a read is unguarded, or the file reads none (another module may).
std::optional<Guard> option_default_guard(TSNode value, const ModuleFacts& facts, const FullTree& full, const GuardVocabulary& vocabulary);

class GuardFinder {
public:
    GuardFinder(const GuardVocabulary& vocabulary, const ModuleFacts& facts, TSNode root);

    // The innermost guard around `node`, or kind none.
    Guard guard_of(TSNode node) const;
    // A guard over the whole file: a module-level pytest.importorskip / skip(allow_module_level=True)
    // / `pytestmark = pytest.mark.skipif(...)`, or an early module-level skip under a check.
    Guard file_guard() const { return m_file_guard; }
    // The condition, one line, when `node` runs only where CUDA is missing or only on macOS: the body
    // of `if not torch.cuda.is_available():`, the else of `if x.is_cuda:`, the branch of
    // `if sys.platform == "darwin":`. Looks no further out than the function `node` is in.
    std::optional<std::string> without_cuda(TSNode node) const;
    bool is_skip_call(TSNode call) const;  // pytest.skip(...), self.skipTest(...)
    bool is_skip_statement(TSNode statement) const;  // a skip call's statement, or `raise unittest.SkipTest(...)`
    // The conditions of the skip decorators of `decorated` that this file cannot read: a comparison
    // that names no device, platform, process count or package of its own (`@pytest.mark.skipif(
    // available_gpus() < 4)`), whose called functions the program model may find in other files.
    std::vector<TSNode> unread_skip_conditions(TSNode decorated) const;
    // Whether a decorator's expression is a skip this file reads as a test skip on a Mac
    // (`pytest.mark.skipif(not torch.cuda.is_available())`, `@requires_cuda`), as a decorator or bound
    // to a name for one.
    bool reads_as_skip(TSNode e) const { return is_skip_decorator(e) && ts_node_is_null(unread_condition(e)); }
    // Whether `e` is a skip decorator of the vocabulary or a name this file binds to one.
    bool is_skip_decorator(TSNode e) const;
    // The handler's first line, when `node` is in the body of a try whose ImportError handler always
    // leaves (raises, exits): the repository declares what the body imports required. Not for an
    // import whose function (or module) uses none of the names it binds: a probe of the package.
    std::optional<std::string> required_by_handler(TSNode node) const;
    const GuardVocabulary& vocabulary() const { return m_vocab; }
    // Whether every way through `block` leaves: a `raise` or a call of sys.exit/exit/quit/os._exit
    // among its statements, or an if whose every arm, an else included, leaves.
    bool always_leaves(TSNode block) const;

    // The blocks of a try statement's handlers that catch ImportError (or ModuleNotFoundError, or everything).
    std::vector<TSNode> import_error_handlers(TSNode try_statement) const;
    // The argparse options other files of the repository declare off by default (destination -> flag),
    // for `if opt.X:` and `if self.opt.X:` where this file declares no option X (monodepth2's trainer.py
    // reads `self.opt.predictive_mask`, which options.py declares store_true). Kept by pointer.
    void set_options_declared_elsewhere(const std::map<std::string, std::string, std::less<>>* options) { m_elsewhere = options; }

private:
    bool uses_what_it_imports(TSNode import, TSNode scope) const;
    struct Test {
        GuardKind kind = GuardKind::none;
        bool negated = false;       // `not x.is_cuda`, `device == "cpu"`: the branch is the non-CUDA path
        bool names_mac = false;     // a platform test naming macOS
        bool mps = false;           // mentions MPS
        bool cpu = false;           // tests for the CPU (`device.type == "cpu"`, `x.is_cpu`): its other branch is MPS's too
    };
    Test classify(TSNode condition) const;
    void classify_node(TSNode n, Test& t) const;
    Guard from_if(TSNode if_statement, TSNode node) const;
    Guard from_early_exit(TSNode block, TSNode node) const;
    // Past an import, in the same arm of an if, of a package a Mac never has (mac_absent_package_words:
    // yolov5's and yolov3's `elif engine: import tensorrt as trt` before `device = torch.device("cuda:0")`):
    // the import fails there, so a Mac never gets further in the arm.
    Guard after_absent_import(TSNode block, TSNode node) const;
    Guard from_exiting_else(TSNode if_statement) const;
    Guard from_alternative(TSNode if_statement, TSNode node) const;
    bool is_option_test(TSNode condition) const;
    bool names_implementation(TSNode condition) const;   // `impl == "te"`, `kind in ("a", "b")`, joined by `or`
    bool distributed_name(std::string_view name) const;  // guards.distributed_names, in any case
    // A name one of whose words (split at `_`, in any case) is one of guards.mps_strings: Fooocus'
    // `mps_mode()`, `is_device_mps(device)`, `use_mps`.
    bool names_mps(std::string_view name) const;
    // Whether `name` is one of several flags unpacked from one call in its function (`pt, jit, engine =
    // self._model_type(w)`): one per kind, of which the run takes one.
    bool unpacked_kind(TSNode name) const;
    // The package an import at `node` loads, where `condition` names it: `if
    // model_management.xformers_enabled(): import xformers`.
    std::optional<std::string> tested_package(TSNode condition, TSNode node) const;
    // `if args.X:` where the file declares `add_argument("--X", action="store_true")` (or a default of
    // False or None), `if X:` / `if self.X:` where the function's parameter X defaults to False or None:
    // the flag as a command line or a call spells it ("--X", "X=False"); nullopt otherwise.
    std::optional<std::string> off_by_default(TSNode condition) const;
    std::optional<std::string> env_off_by_default(TSNode condition) const;
    // The argparse destinations of this file that are off by default, and how the command line spells each.
    const std::map<std::string, std::string, std::less<>>& argparse_off_flags() const;
    // The string defaults of the file's argparse options by destination (`--loss`, default='wgan-gp').
    const std::map<std::string, std::string, std::less<>>& argparse_string_defaults() const;
    const std::map<std::string, std::pair<std::string, std::string>, std::less<>>& env_constants() const;
    Guard from_try(TSNode try_statement, TSNode node) const;
    bool rebuilds_import(TSNode try_statement, TSNode handler) const;
    Guard from_decorators(TSNode decorated) const;
    // For a skip decorator's expression `e` (the call or name after `@`), its condition when that says
    // nothing of a Mac by itself (null otherwise).
    TSNode unread_condition(TSNode e) const;
    bool sibling_checks_mps(TSNode if_statement) const;
    bool earlier_return_checks_mps(TSNode statement) const;
    bool rebound_under_mps_test(TSNode statement, TSNode node) const;
    void bind_names(TSNode root);
    void bind_package_flag(TSNode try_statement);  // a flag an import error handler sets to False (bind_names)
    void bind_device_predicates(TSNode root);
    void find_file_guard(TSNode root);
    std::string one_line(TSNode node) const;

    const GuardVocabulary& m_vocab;
    const ModuleFacts& m_facts;
    std::map<std::string, GuardKind, std::less<>> m_bound;  // use_cuda = torch.cuda.is_available()
    std::set<std::string, std::less<>> m_skip_aliases;      // requires_cuda = pytest.mark.skipif(...)
    std::map<std::string, std::string, std::less<>> m_cuda_only_classes;  // test class -> the instantiating call
    std::set<std::string, std::less<>> m_skip_helpers;  // module-level functions that skip the test without CUDA
    void find_cuda_only_classes(TSNode root);
    Guard m_file_guard;
    TSNode m_root;
    mutable std::optional<std::map<std::string, std::string, std::less<>>> m_off_flags;  // argparse_off_flags(), once
    mutable std::optional<std::map<std::string, std::string, std::less<>>> m_string_defaults;  // argparse_string_defaults(), once
    mutable std::set<std::string, std::less<>> m_declared;  // every destination this file declares (argparse_off_flags())
    const std::map<std::string, std::string, std::less<>>* m_elsewhere = nullptr;  // set_options_declared_elsewhere()
    // `opt.X` or `self.opt.X` (guards.argparse_objects): X, where this file declares no option X and
    // another file of the repository declares it off by default; the flag as the command line spells it.
    std::optional<std::string> off_elsewhere(TSNode attribute) const;
    // Names bound once in the module from an environment read (BasicSR's `BASICSR_JIT =
    // os.getenv('BASICSR_JIT')`, at module level or in an import's handler) -> (variable, default as
    // written); env_constants(), once.
    mutable std::optional<std::map<std::string, std::pair<std::string, std::string>, std::less<>>> m_env_constants;
};

}  // namespace mpsport::python
