// The one Finding type every engine produces and every renderer reads.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpsport {

enum class Severity { info = 0, minor = 1, major = 2, blocker = 3 };
enum class VerdictImpact { none = 0, dual = 1, stay = 2 };
// Where a finding sits in the program model: reached unconditionally from an entry point, only
// behind a guard, only in tests/benchmarks/examples/docs, or from nothing the model found.
enum class Reach { core = 0, optional = 1, tooling = 2, unreached = 3 };
// The context that makes code optional (the vocabulary lives in rules/program.yaml).
// default_unused: a parameter's default that every call of its function overrides (analyzer/call_guards.cpp).
// never_called: in a module-level function that no file of the repository calls or names (the same).
// alternative_branch: one arm of an if/elif/else choice whose other arm does the same job without CUDA.
// default_arm: such an arm that the default of the option takes (`attention_type='flash'`).
// no_grad and grad_unknown weigh only a fallback of a backward op (analyzer/python/op_coverage.cpp): the
// call runs without gradients (torch.no_grad, an inference path), or nothing says whether gradients flow.
enum class GuardKind { none = 0, import_fallback, device_check, distributed_gate, platform, test_skip, availability_select, no_grad, grad_unknown, non_cpu_branch, default_unused,
                       alternative_branch, never_called, off_by_default, default_arm };

// How much of a path a guard leaves: 3 none (always taken), 2 a fallback beside it (import fallback,
// the non-CPU branch MPS shares with CUDA, another arm of a choice), 1 a path a Mac never takes. The program model's reach
// levels use the same scale (analyzer/program: core 3, optional_fallback 2, optional_dead 1).
int guard_strength(GuardKind g);

// An option off by default around a try/except with a fallback (ChatRWKV's `if
// os.environ.get('RWKV_CUDA_ON') == '1':` around `try: load(...)`): the off-by-default guard decides,
// and its note names the fallback after kInsideOption, which decides instead where a command of the
// repository turns the option on. "off by default: $RWKV_CUDA_ON; inside it: try/except with a fallback (model.py:32)"
inline constexpr std::string_view kInsideOption = "; inside it: ";
// The note's option part ("off by default: $RWKV_CUDA_ON") and the fallback's note inside it, if any.
std::pair<std::string_view, std::optional<std::string_view>> split_option_note(std::string_view note);
// What guards the code once a command turns the option of an off-by-default note on: the fallback
// inside it (import-fallback, with its note), or nothing.
std::pair<GuardKind, std::string> guard_once_turned_on(std::string_view off_by_default_note);

// An arm of an if/elif/else choice that does a job without CUDA in its own text (an alternative_branch
// guard's other arms): its first and last line (1-based) and what it binds ("the arm `else` binds x
// without CUDA"). What the functions it calls do is weighed across files (analyzer/call_guards.cpp).
struct ArmSpan {
    int first = 0;
    int last = 0;
    std::string note;
};

std::string_view to_string(Severity s);
std::string_view to_string(VerdictImpact v);
std::optional<Severity> parse_severity(std::string_view s);
std::optional<VerdictImpact> parse_verdict_impact(std::string_view s);
std::string_view to_string(Reach r);
std::optional<Reach> parse_reach(std::string_view s);
std::string_view to_string(GuardKind g);
std::optional<GuardKind> parse_guard_kind(std::string_view s);
// Every guard kind but none: what a report can name and rules/program.yaml must weigh.
const std::vector<GuardKind>& guard_kinds();

struct Location {
    std::string path;  // relative to the scanned root, '/' separated
    int line = 0;      // 1-based
    int col = 0;       // 1-based, in bytes
    int end_line = 0;
    int end_col = 0;
    int cell = 0;  // notebooks: 1-based code cell; line/end_line then count within that cell
};

// Another place that belongs to the same cause: the uses of a constant, an extension's import sites.
struct RelatedLocation {
    Location location;
    std::string label;  // "used here", "imported here", ...
};
// A related location that is a whole line: a call or an import elsewhere.
// How a dependency finding's note starts when the import takes only pure-Python parts of a package
// (python/analyses.cpp); the declarations of that package read it (program/weigh.cpp).
inline constexpr std::string_view kPurePartsNote = "imports only pure-Python parts of ";
// What the note of a use that only switches a package on for speed says (rules/packages toggles,
// python/analyses.cpp, after what loads the package); the declarations of that package read it
// (program/weigh.cpp).
inline constexpr std::string_view kToggleNote = "only switches ";
// How the guard note of a function's import in one arm of an if starts (python/program_facts.cpp):
// an option the run can leave off, not a choice between implementations (program/weigh.cpp).
inline constexpr std::string_view kOnDemandBranchNote = "imported on demand in one branch";

inline RelatedLocation related_line(const std::string& path, int line, std::string label) {
    RelatedLocation rel;
    rel.location.path = path;
    rel.location.line = rel.location.end_line = line;
    rel.label = std::move(label);
    return rel;
}

// A call of a function of the lab's own that a value came from (`sd = load_state_dict(path, ema)`): its
// last name and what the call passes. float64-dtype keeps it where a tensor's device is not known in its
// file; the program model looks the function up (analyzer/float64_origins.cpp).
struct CallOrigin {
    std::string function;
    std::vector<std::string> keywords;
    int positional = 0;
    bool spread = false;  // *args or **kwargs: what it passes is not known
    int line = 0;
};

struct Finding {
    std::string rule_id;
    // Final weight, decided in one place (analyzer/program/weigh.cpp) from the rule, the guard,
    // the package data and the reach; `note` says why it differs from the rule's.
    Severity severity = Severity::info;
    std::string category;
    VerdictImpact impact = VerdictImpact::none;
    Severity rule_severity = Severity::info;  // what the rule (or its package entry) says
    VerdictImpact rule_impact = VerdictImpact::none;
    GuardKind guard = GuardKind::none;        // the guard around the match, found by the engine
    std::string guard_note;                   // the guard as written, e.g. "if x.is_cuda:"
    std::string subject;                      // what it is about: a package, a variable, an extension
    std::string native_op;                    // an op of a native module (native-op-devices): "knn", "geo::dist"
    Reach reach = Reach::core;
    std::vector<std::string> chain;           // entry point -> ... -> this file (core / optional)
    std::vector<RelatedLocation> related;
    Location location;
    std::string snippet;  // the source line(s) of the match, trimmed
    std::string matched;  // the matched text, used for the fingerprint
    std::string message;
    std::string fix;
    std::string source = "static";  // static | runtime | static+runtime (reports/op_evidence.cpp)
    std::string fingerprint;
    std::string note;  // why severity or impact differ from the rule's, empty if not
    int lines = 0;     // lines of code this finding stands for (a CUDA kernel's); effort per kloc counts
                       // these instead of the whole file's when set
    std::vector<std::string> ops;  // op-support rules: the aten ops the call reaches ("aten::take")
    // Found in a file that was not valid UTF-8, read with its bad bytes replaced (U+FFFD): the
    // finding is real but columns and the matched text may differ from the bytes on disk.
    bool approximate = false;
    std::vector<std::string> observed;  // the audit saw the same op at the same place (source "static+runtime")
    std::optional<CallOrigin> origin;   // float64-dtype: the lab's call its tensor came from, if any
};

// rule + path + whitespace-normalised matched text + ordinal among equal keys: stable across line moves.
void assign_fingerprints(std::vector<Finding>& findings);

// Orders findings by path, line, column, rule: the order every report prints.
void sort_findings(std::vector<Finding>& findings);

// One finding per rule, line and subject: `points.float().cuda(), label.long().cuda()` on one line is
// one edit of that line, not two findings (a judged sample called the second a duplicate). The
// heaviest stays, the others become its related locations ("also on this line: labels.cuda()"), which
// every report lists. Findings about different ops or subjects on one line stay apart. Needs sorted
// findings; leaves them sorted.
void merge_same_line(std::vector<Finding>& findings);

}  // namespace mpsport
