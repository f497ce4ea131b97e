#include "analyzer/python/op_coverage.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <sstream>

#include "analyzer/python/analyses.hpp"
#include "analyzer/python/grad_context.hpp"
#include "analyzer/python/local_bindings.hpp"

namespace fs = std::filesystem;

namespace mpsport::python {
namespace {

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
}

// The leftmost identifier of `a.b.c` (or of `a.b().c`), or a null node.
TSNode head_identifier(TSNode n) {
    while (is_type(n, "attribute") || is_type(n, "call")) n = is_type(n, "call") ? field(n, "function") : field(n, "object");
    return is_type(n, "identifier") ? n : TSNode{};
}

// Names the file defines itself (functions, methods, classes): `def mode(...)` makes `mode()` and
// `self.mode()` the lab's own code, never a tensor op.
std::set<std::string, std::less<>> own_definitions(TSNode root, const ModuleFacts& facts) {
    std::set<std::string, std::less<>> out;
    for_each_node(root, [&](TSNode n) {
        if (is_type(n, "function_definition") || is_type(n, "class_definition")) out.emplace(facts.text(field(n, "name")));
    });
    return out;
}

std::string line_of(TSNode n) { return "line " + std::to_string(ts_node_start_point(n).row + 1); }

// Assignments `name = value` of one file, in order, and the scope (function) each belongs to.
class Bindings {
public:
    explicit Bindings(TSNode root, const ModuleFacts& facts) {
        for_each_node(root, [&](TSNode n) {
            if (!is_type(n, "assignment")) return;
            TSNode left = field(n, "left"), right = field(n, "right");
            if (is_type(left, "identifier") && !ts_node_is_null(right))
                m_list.push_back({std::string(facts.text(left)), right, ts_node_start_byte(n), enclosing(n, {"function_definition"})});
        });
    }
    // The value last bound to `name` before `use`, in the same function.
    TSNode last_before(std::string_view name, TSNode use) const {
        const TSNode scope = enclosing(use, {"function_definition"});
        TSNode found{};
        for (const auto& b : m_list) {
            if (b.at >= ts_node_start_byte(use) || b.name != name) continue;
            const bool same = ts_node_is_null(scope) ? ts_node_is_null(b.scope) : !ts_node_is_null(b.scope) && ts_node_eq(scope, b.scope);
            if (same) found = b.value;
        }
        return found;
    }

private:
    struct Binding {
        std::string name;
        TSNode value;
        uint32_t at;
        TSNode scope;
    };
    std::vector<Binding> m_list;
};

struct ResolvedCall {
    std::string name;  // as reported: "torch.take", "torch.nn.AdaptiveAvgPool3d", "Tensor.nanmedian"
    std::string key;   // its key in the op map ("torch.Tensor.nanmedian"): autograd ops are looked up by it
    const std::vector<std::string>* ops = nullptr;
    // A call whose op depends on the input's rank, when the source does not say it: the ops each other
    // rank runs ("3-D input" -> aten::upsample_nearest3d), reported only where one of them falls back.
    std::vector<std::pair<std::string, const std::vector<std::string>*>> other_ranks;
    std::string assumed;        // with other_ranks: " on a 4-D input (assumed: ...)", what `ops` stand for
    std::string assumed_input;  // "4-D input"
};

ResolvedCall resolved_as(std::string name, std::string key, const std::vector<std::string>* ops) {
    ResolvedCall r;
    r.name = std::move(name);
    r.key = std::move(key);
    r.ops = ops;
    return r;
}

// Is `expr` known to be a tensor: the result of a torch function that is an aten op (torch.randn,
// torch.softmax; not torch.load or torch.nn.Linear), a method or an index of one, or a name bound to one
// earlier in the same function?
bool tensor_valued(TSNode expr, const ModuleFacts& facts, const PythonOpMap& names, const Bindings& bindings, int depth = 0) {
    if (ts_node_is_null(expr) || depth > 6) return false;
    if (is_type(expr, "identifier")) return tensor_valued(bindings.last_before(facts.text(expr), expr), facts, names, bindings, depth + 1);
    if (is_type(expr, "subscript")) return tensor_valued(field(expr, "value"), facts, names, bindings, depth + 1);
    if (!is_type(expr, "call")) return false;
    TSNode fn = field(expr, "function");
    const std::string q = facts.qualname(fn);
    if (!q.empty()) {
        const std::string tail = q.substr(q.rfind('.') + 1);
        return q.rfind("torch.", 0) == 0 && (names.function(q) || names.selectors.count(q)) && !tail.empty() &&
               std::islower(static_cast<unsigned char>(tail[0]));
    }
    return is_type(fn, "attribute") && tensor_valued(field(fn, "object"), facts, names, bindings, depth + 1);
}

// The spatial rank (1, 2, 3) a call runs at, where the source says it, with how it says it; 0 when it does not.
class RankFinder {
public:
    RankFinder(const ModuleFacts& facts, const PythonOpMap& names, const Bindings& bindings, const FullTree& full)
        : m_facts(facts), m_names(names), m_bindings(bindings), m_full(full) {}

    std::pair<int, std::string> of(TSNode call, const PythonOpMap::Selector& s) const {
        for (const auto& a : s.rank_arguments) {
            TSNode arg = keyword_argument(call, a.name, m_facts);
            if (ts_node_is_null(arg)) arg = positional_argument(call, static_cast<uint32_t>(a.position));
            if (const int k = values_in(arg); k > 0) return {k, a.name + " has " + std::to_string(k) + " value" + (k > 1 ? "s" : "")};
        }
        if (s.input >= 0)
            if (auto [dims, where] = tensor_dims(positional_argument(call, static_cast<uint32_t>(s.input)), 0); dims >= 3 && dims <= 5)
                return {dims - 2, "the input is made " + std::to_string(dims) + "-D on " + where};
        return class_rank(call);
    }

private:
    // A tuple or list literal's length (`[size] * 2` too), or k for a `.shape[-k:]` / `.size()[-k:]` slice; 0 otherwise.
    int values_in(TSNode arg) const {
        if (ts_node_is_null(arg)) return 0;
        if (is_type(arg, "binary_operator") && m_facts.text(field(arg, "operator")) == "*") {
            const std::string_view times = m_facts.text(field(arg, "right"));
            const int one = values_in(field(arg, "left"));
            if (one == 1 && times.size() == 1 && times[0] >= '1' && times[0] <= '3') return times[0] - '0';
            return 0;
        }
        if (is_type(arg, "tuple") || is_type(arg, "list")) {
            int n = 0;
            for (uint32_t i = 0; i < ts_node_named_child_count(arg); ++i) n += !is_type(ts_node_named_child(arg, i), "comment");
            return n >= 1 && n <= 3 ? n : 0;
        }
        if (is_type(arg, "subscript")) {
            const std::string_view slice = m_facts.text(field(arg, "subscript"));
            const std::string_view value = m_facts.text(field(arg, "value"));
            const bool shape = value.size() > 6 && (value.substr(value.size() - 6) == ".shape" || value.substr(value.size() - 7) == ".size()");
            if (shape && slice.size() == 3 && slice[0] == '-' && slice[2] == ':' && slice[1] >= '1' && slice[1] <= '3') return slice[1] - '0';
        }
        return 0;
    }

    // Dimensions of a tensor made with an explicit shape in the same function (torch.randn(2, 3, 8, 8, 8),
    // x.view(b, c, d, h, w)), and where; {0, ""} when not known.
    std::pair<int, std::string> tensor_dims(TSNode expr, int depth) const {
        if (ts_node_is_null(expr) || depth > 4) return {0, {}};
        if (is_type(expr, "identifier")) return tensor_dims(m_bindings.last_before(m_facts.text(expr), expr), depth + 1);
        if (!is_type(expr, "call")) return {0, {}};
        TSNode fn = field(expr, "function");
        const std::string q = m_facts.qualname(fn);
        static const std::vector<std::string> makers = {"torch.randn", "torch.rand", "torch.zeros", "torch.ones", "torch.empty"};
        const bool shaped = listed(makers, q) || (is_type(fn, "attribute") && (m_facts.text(field(fn, "attribute")) == "view" ||
                                                                              m_facts.text(field(fn, "attribute")) == "reshape"));
        if (!shaped) return {0, {}};
        TSNode args = field(expr, "arguments");
        int n = 0;
        for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
            TSNode a = ts_node_named_child(args, i);
            if (is_type(a, "keyword_argument") || is_type(a, "comment")) continue;
            if (n == 0 && (is_type(a, "tuple") || is_type(a, "list"))) return {static_cast<int>(ts_node_named_child_count(a)), line_of(expr)};
            ++n;
        }
        return {n, line_of(expr)};
    }

    // The rank every torch.nn layer or function with a rank suffix names in the enclosing function, else
    // the enclosing class (nn.Upsample beside nn.Conv3d runs the 3-D op), read from the whole file: the
    // other members of a class may not be parsed.
    std::pair<int, std::string> class_rank(TSNode call) const {
        TSNode full_call = m_full.node_at(call);
        for (TSNode scope = ts_node_is_null(full_call) ? TSNode{} : enclosing(full_call, {"function_definition", "class_definition"});
             !ts_node_is_null(scope); scope = enclosing(scope, {"class_definition"})) {
            std::set<int> ranks;
            std::string example;
            for_each_node(scope, [&](TSNode n) {
                if (!is_type(n, "call")) return;
                const std::string q = m_full.facts().qualname(field(n, "function"));
                if (q.rfind("torch.nn.", 0) != 0 || q.size() < 2) return;
                if (auto it = m_names.rank_suffixes.find(q.substr(q.size() - 2)); it != m_names.rank_suffixes.end()) {
                    ranks.insert(it->second);
                    if (example.empty()) example = q.substr(q.rfind('.') + 1) + " on " + line_of(n);
                }
            });
            if (ranks.size() > 1) return {0, {}};
            if (ranks.size() == 1)
                return {*ranks.begin(), std::string(is_type(scope, "class_definition") ? "its class" : "its function") + " builds " +
                                            std::to_string(*ranks.begin()) + "-D layers only (" + example + ")"};
        }
        return {0, {}};
    }

    const ModuleFacts& m_facts;
    const PythonOpMap& m_names;
    const Bindings& m_bindings;
    const FullTree& m_full;
};

// A call of a name whose ops depend on its arguments (F.interpolate's `mode`, the input's rank,
// `antialias=True`): the variant the call selects, or none when the mode is not a string literal.
std::optional<ResolvedCall> resolve_selected(TSNode call, const std::string& q, const PythonOpMap::Selector& s, const ModuleFacts& facts,
                                             const PythonOpMap& names, const RankFinder& ranks) {
    TSNode arg = keyword_argument(call, s.argument, facts);
    if (ts_node_is_null(arg) && s.position >= 0) arg = positional_argument(call, static_cast<uint32_t>(s.position));
    const std::optional<std::string> value = ts_node_is_null(arg) ? std::optional<std::string>(s.fallback) : facts.string_value(arg);
    if (!value) return std::nullopt;
    const std::string shown = q + "(" + s.argument + "=" + *value;
    if (!s.flag.name.empty()) {
        TSNode flag = keyword_argument(call, s.flag.name, facts);
        if (ts_node_is_null(flag)) flag = positional_argument(call, static_cast<uint32_t>(s.flag.position));
        const std::string key = PythonOpMap::selected_name(q, s, *value, 0, true);
        if (!ts_node_is_null(flag) && facts.text(flag) == "True" && names.function(key))
            return resolved_as(shown + ", " + s.flag.name + "=True)", key, names.function(key));
    }
    if (const auto* ops = names.function(PythonOpMap::selected_name(q, s, *value))) return resolved_as(shown + ")", PythonOpMap::selected_name(q, s, *value), ops);
    if (!s.assumed_rank) return std::nullopt;
    auto ranked = [&](int rank) { return PythonOpMap::selected_name(q, s, *value, rank); };
    auto input = [](int rank) { return std::to_string(rank + 2) + "-D input"; };
    if (const auto [rank, how] = ranks.of(call, s); rank > 0 && names.function(ranked(rank)))
        return resolved_as(shown + ") on a " + input(rank) + " (" + how + ")", ranked(rank), names.function(ranked(rank)));
    if (!names.function(ranked(s.assumed_rank))) return std::nullopt;
    ResolvedCall out = resolved_as(shown + ")", ranked(s.assumed_rank), names.function(ranked(s.assumed_rank)));
    out.assumed = " on a " + input(s.assumed_rank) + " (assumed: the source does not say the input's rank)";
    out.assumed_input = input(s.assumed_rank);
    for (int rank = 1; rank <= 3; ++rank)
        if (rank != s.assumed_rank && names.function(ranked(rank))) out.other_ranks.emplace_back(input(rank), names.function(ranked(rank)));
    return out;
}

// A call of a Python name the op map knows: through the file's imports, or a Tensor method whose name
// is not also a common Python/NumPy one, on a receiver that is neither a module nor the lab's own object.
// A common name (`take`, `mode`) is a tensor op only on a receiver known to be a tensor.
std::optional<ResolvedCall> resolve_call(TSNode call, const ModuleFacts& facts, const PythonOpMap& names,
                                         const std::set<std::string, std::less<>>& own, const Bindings& bindings, const RankFinder& ranks) {
    TSNode fn = field(call, "function");
    TSNode head = head_identifier(fn);
    if (ts_node_is_null(head)) return std::nullopt;
    const std::string_view head_name = facts.text(head);
    const std::string q = facts.qualname(fn);  // "" for `torch.randn(3).mode`: a method of a result
    if (!q.empty() && (facts.is_imported(head_name) || head_name == "torch")) {
        if (q.rfind("torch.", 0) != 0) return std::nullopt;
        if (auto s = names.selectors.find(q); s != names.selectors.end()) return resolve_selected(call, q, s->second, facts, names, ranks);
        if (const auto* ops = names.function(q)) return resolved_as(q, q, ops);
        return std::nullopt;
    }
    if (!is_type(fn, "attribute")) return std::nullopt;  // a plain call of a name the file did not import
    const std::string method(facts.text(field(fn, "attribute")));
    if (tensor_valued(field(fn, "object"), facts, names, bindings))
        if (const auto* ops = names.function("torch.Tensor." + method)) return resolved_as("Tensor." + method, "torch.Tensor." + method, ops);
    if (own.count(method) || head_name == "self" || head_name == "cls") return std::nullopt;
    if (const auto* ops = names.method(method)) return resolved_as("Tensor." + method, "torch.Tensor." + method, ops);
    return std::nullopt;
}

// `x.cpu()` or `x.to("cpu")`: the lab moved the tensor to the CPU on purpose (torch_geometric's
// `torch.linalg.qr(mat.cpu())`), so the op runs there whatever the model's device.
bool moved_to_cpu(TSNode expr, const ModuleFacts& facts) {
    if (!is_type(expr, "call")) return false;
    TSNode fn = field(expr, "function");
    if (!is_type(fn, "attribute")) return false;
    const std::string_view method = facts.text(field(fn, "attribute"));
    if (method == "cpu") return true;
    if (method != "to") return false;
    TSNode device = positional_argument(expr, 0);
    if (ts_node_is_null(device)) device = keyword_argument(expr, "device", facts);
    const auto value = ts_node_is_null(device) ? std::nullopt : facts.string_value(device);
    return value && *value == "cpu";
}

// A factory that makes its tensor on the CPU by its own keyword: `device="cpu"` or
// `device=torch.device("cpu")` (tensordict's `torch.from_file(..., device=torch.device("cpu"))`, a
// memory map, judged never to run on MPS in a sample of the thirty-sixth and thirty-seventh holdouts'
// reports).
bool made_on_cpu(TSNode call, const ModuleFacts& facts) {
    TSNode device = keyword_argument(call, "device", facts);
    if (ts_node_is_null(device)) return false;
    if (is_type(device, "call") && facts.qualname(field(device, "function")) == "torch.device") device = positional_argument(device, 0);
    const auto value = ts_node_is_null(device) ? std::nullopt : facts.string_value(device);
    return value && *value == "cpu";
}

// A call in CUDA code, which a Mac port rewrites whatever the op (the CUDA API rules report the
// torch.cuda calls themselves): one that passes a torch.cuda object, directly or through a local name
// (`x.record_stream(torch.cuda.current_stream())`; `s = torch.cuda.current_stream()` then
// `x.record_stream(s)`), or one in the body of `with torch.cuda.device(...):` or `with torch.cuda.stream(...):`.
bool in_cuda_code(TSNode call, const ModuleFacts& facts) {
    auto cuda_name = [&](TSNode n) {
        if (facts.qualname(n).rfind("torch.cuda.", 0) == 0) return true;
        if (!is_type(n, "identifier")) return false;
        for (const Binding& b : bindings_of(n, facts))
            if (b.qualname.rfind("torch.cuda.", 0) == 0) return true;
            else if (is_type(b.value, "call") && facts.qualname(field(b.value, "function")).rfind("torch.cuda.", 0) == 0) return true;
        return false;
    };
    bool found = false;
    const TSNode args = field(call, "arguments");
    if (!ts_node_is_null(args))
        for_each_node(args, [&](TSNode n) {
            if (!found && (is_type(n, "attribute") || is_type(n, "identifier"))) found = cuda_name(n);
        });
    for (TSNode p = ts_node_parent(call); !found && !ts_node_is_null(p); p = ts_node_parent(p)) {
        if (is_type(p, "function_definition") || is_type(p, "class_definition")) break;
        if (!is_type(p, "with_statement") || !contains(field(p, "body"), call)) continue;
        for (uint32_t i = 0; i < ts_node_named_child_count(p); ++i) {
            const TSNode clause = ts_node_named_child(p, i);
            if (!is_type(clause, "with_clause")) continue;
            for (uint32_t k = 0; k < ts_node_named_child_count(clause) && !found; ++k) {
                const TSNode value = field(ts_node_named_child(clause, k), "value");
                found = is_type(value, "call") && facts.qualname(field(value, "function")).rfind("torch.cuda.", 0) == 0;
            }
        }
    }
    return found;
}

// The tensor a call works on: a method's receiver, or a function's first positional argument.
TSNode operand(TSNode call, const std::string& resolved_name) {
    TSNode fn = field(call, "function");
    if (resolved_name.rfind("Tensor.", 0) == 0 && is_type(fn, "attribute")) return field(fn, "object");
    return positional_argument(call, 0);
}

std::vector<std::string> fallbacks(const MpsTable& table, const std::vector<std::string>& ops) {
    std::vector<std::string> out;
    for (const auto& op : ops)
        if (table.lookup(op) == MpsSupport::fallback) out.push_back(op);
    return out;
}

// What happens on MPS, in PyTorch's own words (rules/mps/runtime-messages.yaml): an op
// PyTorch registers to the CPU fallback itself always runs on the CPU with the warning; any other raises
// NotImplementedError unless PYTORCH_ENABLE_MPS_FALLBACK=1 sends it to the CPU with the same warning. A
// backward op does so in loss.backward(), not at the call.
std::string runtime_behaviour(const MpsTable& table, const MpsMessages& messages, const std::vector<std::string>& missing, bool backward) {
    const std::string where = backward ? "on MPS, the backward pass (loss.backward()) " : "on MPS it ";
    for (const auto& op : missing)
        if (table.forced_fallback.count(op))
            return "PyTorch " + table.torch_version + " registers " + op + " to the CPU fallback, so " + where + "always runs " +
                   (backward ? "it " : "") + "on the CPU ('" + messages.fallback_warning.for_op(op) + "')";
    return where + "raises '" + messages.not_implemented.for_op(missing.front()) + "', or with PYTORCH_ENABLE_MPS_FALLBACK=1 runs " +
           (backward ? "it " : "") + "on the CPU ('" + messages.fallback_warning.for_op(missing.front()) + "')";
}

// The same in a few words, for the one-line message (the full text goes in the fix).
std::string runtime_summary(const MpsTable& table, const std::vector<std::string>& missing) {
    for (const auto& op : missing)
        if (table.forced_fallback.count(op)) return "on MPS it always runs on the CPU";
    return "NotImplementedError on MPS, or a slow CPU fallback";
}

// Every op of `missing` is one only autograd runs for the call (F.grid_sample on 2.6.0: its forward
// has an MPS kernel, grid_sampler_2d_backward none).
bool backward_only(const PythonOpMap& names, const std::string& key, const std::vector<std::string>& missing) {
    const auto& autograd = names.autograd_ops(key);
    return !missing.empty() && std::all_of(missing.begin(), missing.end(),
                                           [&](const std::string& op) { return std::find(autograd.begin(), autograd.end(), op) != autograd.end(); });
}

// A backward-only fallback matters where gradients flow through the call: the guard weigh() reads
// (rules/program.yaml: no-grad, grad-unknown). Training code keeps the rule's weight.
void guard_by_gradients(Match& m, TSNode call, bool layer, const GradContextFinder& grads, const FullTree& full) {
    TSNode at = full.node_at(call);
    GradContext g = ts_node_is_null(at) ? GradContext{} : layer ? grads.around(at) : grads.of(at);
    // A layer (nn.GroupNorm(...)) runs in its model's forward, wherever it is built: training, unless
    // the code around it says otherwise.
    if (layer && g.grad == Grad::unknown) g = {Grad::training, "a layer, run by its model's forward", {}};
    if (g.grad == Grad::training) {
        m.captures["gradients"] = "; gradients flow here (" + g.why + ")";
        return;
    }
    m.guard = g.grad == Grad::none ? GuardKind::no_grad : GuardKind::grad_unknown;
    m.guard_note = g.grad == Grad::none ? g.why : "nothing around this call says whether gradients flow through it";
    if (g.grad == Grad::unknown && !g.frontier.empty()) {
        std::string frontier;
        for (const auto& f : g.frontier) frontier += (frontier.empty() ? "" : ",") + f;
        m.subject = frontier;  // the functions whose callers in other files decide (Scanner)
        m.guard_note = "nothing in this file says whether gradients flow through " + frontier + "()";
    }
}

Match match_at(TSNode node, const Rule& rule) {
    Match m;
    m.rule = &rule;
    m.begin = ts_node_start_byte(node);
    m.end = ts_node_end_byte(node);
    return m;
}

}  // namespace

std::unique_ptr<OpTables> load_op_tables(const fs::path& rules_dir, const std::string& target_torch) {
    auto t = std::make_unique<OpTables>();
    t->target = load_mps_table(rules_dir, target_torch);
    t->newest = target_torch == bundled_torch_versions().back() ? t->target : load_mps_table(rules_dir, bundled_torch_versions().back());
    t->names = load_python_op_map(rules_dir, target_torch);
    t->messages = load_mps_messages(rules_dir);
    return t;
}

std::vector<std::string> fallback_trigger_literals(const OpTables& tables, const Rule& rule) {
    std::set<std::string> out;
    auto add = [&](const std::string& selected, const std::vector<std::string>& ops) {
        const std::string name = selected.substr(0, selected.find('('));  // "F.interpolate(mode=bicubic)": "interpolate("
        const std::string tail = name.substr(name.rfind('.') + 1);
        if (fallbacks(tables.target, ops).empty() || listed(rule_param(rule, "skip_names"), tail)) return;
        // With the call's parenthesis: "eig(" never matches "weight"; an explicit `torch.Tensor.values(x)`
        // keeps its class name, so that a dict's `.values()` does not make a file worth parsing.
        out.insert((name.rfind("torch.Tensor.", 0) == 0 ? "Tensor." + tail : tail) + "(");
    };
    for (const auto& [name, ops] : tables.names.functions) add(name, ops);
    for (const auto& [name, ops] : tables.names.methods) add(name, ops);
    return {out.begin(), out.end()};
}

// ---- mps-op-support: calls that reach an op with no MPS kernel in the target version ---------------

namespace {

// The ops of a resolved call that have no MPS kernel in the target. For a call whose op depends on an
// input rank the source does not say, the assumed rank's ops; if those all have kernels, the other ranks'
// that do not, and `maybe` says which input would run them.
struct Missing {
    std::vector<std::string> ops;
    std::string maybe;  // "a 5-D input runs aten::upsample_nearest3d"
    std::string maybe_inputs;  // "5-D input"
};

Missing missing_ops(const MpsTable& target, const ResolvedCall& r) {
    Missing m{fallbacks(target, *r.ops), {}, {}};
    if (!m.ops.empty() || r.other_ranks.empty()) return m;
    for (const auto& [input, ops] : r.other_ranks) {
        const std::vector<std::string> missing = fallbacks(target, *ops);
        if (missing.empty()) continue;
        m.maybe += (m.maybe.empty() ? "a " : ", a ") + input + " runs " + join(missing);
        m.maybe_inputs += (m.maybe_inputs.empty() ? "" : " or ") + input;
        for (const auto& op : missing) m.ops.push_back(op);
    }
    return m;
}

}  // namespace

// params.native_when: "NAME ARGUMENT POSITION VALUE|VALUE...": a call of NAME whose argument (by
// keyword, or at POSITION among the positional ones) is written as one of the values, spaces aside,
// takes a path the MPS kernels cover. ATen's adaptive_avg_pool3d with an output size of 1 is a mean
// over the last three dimensions: `nn.AdaptiveAvgPool3d(1)`, the global pooling of video models
// (pytorchvideo's heads), runs on MPS.
bool native_by_argument(TSNode call, const std::string& key, const Rule& rule, const ModuleFacts& facts) {
    for (const auto& entry : rule_param(rule, "native_when")) {
        if (entry.compare(0, key.size(), key) != 0 || entry.size() <= key.size() || entry[key.size()] != ' ') continue;  // not this name
        std::istringstream in(entry);
        std::string name, argument, values;
        int position = -1;
        if (!(in >> name >> argument >> position >> values) || name != key) continue;
        TSNode arg = keyword_argument(call, argument, facts);
        if (ts_node_is_null(arg) && position >= 0) arg = positional_argument(call, static_cast<uint32_t>(position));
        if (ts_node_is_null(arg)) continue;
        std::string written;
        for (char c : facts.text(arg))
            if (!std::isspace(static_cast<unsigned char>(c))) written.push_back(c);
        std::istringstream alternatives(values);
        for (std::string v; std::getline(alternatives, v, '|');)
            if (v == written) return true;
    }
    return false;
}

// params.kind: `fallback` (no kernel in the target, nor in the newest version) or `newer-torch` (no
// kernel in the target, but every op has one in the newest version: an upgrade removes the fallback).
void mps_op_support(const AnalysisInput& in, const Rule& rule, std::vector<Match>& out) {
    if (!in.op_tables) return;
    const OpTables& t = *in.op_tables;
    const bool want_newer = listed(rule_param(rule, "kind"), "newer-torch");
    const bool target_is_newest = t.target.torch_version == t.newest.torch_version;
    if (want_newer && target_is_newest) return;
    const auto own = own_definitions(in.root, in.facts);
    const Bindings bindings(in.root, in.facts);
    const FullTree& full = in.full;
    const RankFinder ranks(in.facts, t.names, bindings, full);
    std::unique_ptr<GradContextFinder> grads;  // made for the first backward-only fallback
    for_each_node(in.root, [&](TSNode call) {
        if (!is_type(call, "call")) return;
        const auto resolved = resolve_call(call, in.facts, t.names, own, bindings, ranks);
        if (!resolved || listed(rule_param(rule, "skip_names"), resolved->name.substr(resolved->name.rfind('.') + 1))) return;
        if (moved_to_cpu(operand(call, resolved->name), in.facts) || made_on_cpu(call, in.facts)) return;
        if (native_by_argument(call, resolved->key, rule, in.facts)) return;
        const Missing missing = missing_ops(t.target, *resolved);
        if (missing.ops.empty() || in_cuda_code(call, in.facts)) return;
        const bool fixed_in_newest = !target_is_newest && fallbacks(t.newest, missing.ops).empty();
        if (fixed_in_newest != want_newer) return;
        const bool backward = backward_only(t.names, resolved->key, missing.ops);
        Match m = match_at(field(call, "function"), rule);
        m.captures = {{"call", resolved->name + (missing.maybe.empty() ? resolved->assumed : std::string())},
                      {"ops", join(missing.ops)},
                      // A message names the first op; the finding's `ops` lists them all.
                      {"op", missing.ops.front() + (missing.ops.size() > 1 ? " and " + std::to_string(missing.ops.size() - 1) + " more op" +
                                                                                  (missing.ops.size() > 2 ? "s" : "") : std::string())},
                      {"when", backward ? " in its backward pass only (its forward has an MPS kernel)" : ""},
                      {"torch", t.target.torch_version},
                      {"newest", t.newest.torch_version},
                      {"also", target_is_newest ? std::string() : " (nor in " + t.newest.torch_version + ")"},
                      {"runtime", runtime_behaviour(t.target, t.messages, missing.ops, backward)},
                      {"runtime_summary", runtime_summary(t.target, missing.ops)},
                      {"gradients", ""}};
        if (!missing.maybe.empty()) {
            m.captures["call"] = resolved->name + " on a " + missing.maybe_inputs + " (the source does not say the input's rank)";
            m.severity = Severity::info;
            m.impact = VerdictImpact::none;
            m.note = "the source does not say the input's rank: only " + missing.maybe + "; a " + resolved->assumed_input + " runs ops with MPS kernels";
        }
        if (backward) {
            if (!grads) grads = std::make_unique<GradContextFinder>(in.catalogue.program().guards, full.facts(), full.root());
            const std::string tail = resolved->key.substr(std::min(resolved->key.size(), std::string("torch.nn.").size()));
            const bool layer = resolved->key.rfind("torch.nn.", 0) == 0 && !tail.empty() && std::isupper(static_cast<unsigned char>(tail[0]));
            guard_by_gradients(m, call, layer, *grads, full);
        }
        m.ops = missing.ops;
        out.push_back(std::move(m));
    });
}

// ---- mps-complex128-result: complex-valued ops of a float64 tensor, within one function ------------

namespace {

class Float64Flow {
public:
    Float64Flow(const ModuleFacts& facts, const Bindings& bindings, const Rule& rule) : m_facts(facts), m_bindings(bindings), m_rule(rule) {}

    // Where `expr` became float64 ("dtype=torch.float64 on line 4"), or "" when it is not known to be.
    std::string source(TSNode expr, int depth = 0) const {
        if (ts_node_is_null(expr) || depth > 8) return {};
        const std::string_view type = node_type(expr);
        if (type == "parenthesized_expression" || type == "unary_operator") return source(ts_node_named_child(expr, ts_node_named_child_count(expr) - 1), depth + 1);
        if (type == "subscript") return source(field(expr, "value"), depth + 1);
        if (type == "binary_operator") {
            std::string left = source(field(expr, "left"), depth + 1);
            return left.empty() ? source(field(expr, "right"), depth + 1) : left;
        }
        if (type == "identifier") return source(m_bindings.last_before(m_facts.text(expr), expr), depth + 1);
        if (type == "call") return call_source(expr, depth);
        return {};
    }

private:
    bool names_float64(TSNode n) const {
        if (ts_node_is_null(n)) return false;
        if (auto v = m_facts.string_value(n)) return listed(rule_param(m_rule, "float64_names"), *v);
        return listed(rule_param(m_rule, "float64_names"), m_facts.qualname(n));
    }

    std::string call_source(TSNode call, int depth) const {
        TSNode fn = field(call, "function");
        TSNode dtype = keyword_argument(call, "dtype", m_facts);
        if (!ts_node_is_null(dtype)) return names_float64(dtype) ? "dtype=" + std::string(m_facts.text(dtype)) + " on " + line_of(call) : "";
        if (!is_type(fn, "attribute")) return {};
        const std::string_view method = m_facts.text(field(fn, "attribute"));
        if (listed(rule_param(m_rule, "float64_methods"), method)) return "." + std::string(method) + "() on " + line_of(call);
        if (method == "to" || method == "type") {
            TSNode arg = positional_argument(call, 0);
            if (names_float64(arg)) return "." + std::string(method) + "(" + std::string(m_facts.text(arg)) + ") on " + line_of(call);
            if (!ts_node_is_null(arg) && !is_type(arg, "string") && !names_float64(arg) && m_facts.qualname(arg).rfind("torch.", 0) == 0)
                return {};  // .to(torch.float32), .to(torch.device(...)): the second keeps the dtype, handled below
        }
        if (listed(rule_param(m_rule, "dtype_changing_methods"), method)) return {};
        // A tensor method or a torch function keeps its input's dtype (x.sum(), torch.sin(x)).
        const std::string q = m_facts.qualname(fn);
        if (q.rfind("torch.", 0) == 0) return source(positional_argument(call, 0), depth + 1);
        return source(field(fn, "object"), depth + 1);
    }

    const ModuleFacts& m_facts;
    const Bindings& m_bindings;
    const Rule& m_rule;
};

}  // namespace

void mps_complex128_result(const AnalysisInput& in, const Rule& rule, std::vector<Match>& out) {
    const Bindings bindings(in.root, in.facts);
    const Float64Flow flow(in.facts, bindings, rule);
    for_each_node(in.root, [&](TSNode call) {
        if (!is_type(call, "call")) return;
        TSNode fn = field(call, "function");
        const std::string q = in.facts.qualname(fn);
        TSNode input;
        std::string name;
        if (listed(rule_param(rule, "sinks"), q)) {
            input = positional_argument(call, 0);
            name = q;
        } else if (is_type(fn, "attribute") && listed(rule_param(rule, "sink_methods"), in.facts.text(field(fn, "attribute")))) {
            input = field(fn, "object");
            name = "Tensor." + std::string(in.facts.text(field(fn, "attribute")));
        } else {
            return;
        }
        const std::string source = flow.source(input);
        if (source.empty()) return;
        Match m = match_at(fn, rule);
        m.captures = {{"call", name}, {"source", source}};
        out.push_back(std::move(m));
    });
}

// ---- mps-sparse-layout: sparse COO/CSR tensors, which MPS kernels mostly do not take ---------------

namespace {

// "name=op" pairs of a rule parameter.
std::optional<std::string> paired_op(const Rule& rule, const char* key, std::string_view name) {
    for (const auto& pair : rule_param(rule, key)) {
        const std::size_t eq = pair.find('=');
        if (eq != std::string::npos && std::string_view(pair).substr(0, eq) == name) return "aten::" + pair.substr(eq + 1);
    }
    return std::nullopt;
}

std::string sparse_support(const OpTables& t, const std::string& op) {
    const bool in_target = t.target.sparse_ops.count(op) > 0;
    const bool in_newest = t.newest.sparse_ops.count(op) > 0;
    if (in_target)
        return "PyTorch " + t.target.torch_version + " has a SparseMPS kernel for " + op +
               (t.target.torch_version == bundled_torch_versions().front() ? std::string() : " (none in " + bundled_torch_versions().front() + ")") +
               ", but most sparse ops still have none on MPS";
    if (in_newest) return "PyTorch " + t.target.torch_version + " has no SparseMPS kernel for " + op + "; " + t.newest.torch_version + " has one";
    return "PyTorch " + t.target.torch_version + " has no SparseMPS kernel for " + op;
}

// The aten op that makes a sparse tensor at `expr` (directly, or through a name bound to one), or "".
std::string sparse_maker(TSNode expr, const ModuleFacts& facts, const Bindings& bindings, const Rule& rule, int depth = 0) {
    if (ts_node_is_null(expr) || depth > 6) return {};
    if (is_type(expr, "identifier")) return sparse_maker(bindings.last_before(facts.text(expr), expr), facts, bindings, rule, depth + 1);
    if (!is_type(expr, "call")) return {};
    TSNode fn = field(expr, "function");
    if (auto op = paired_op(rule, "constructors", facts.qualname(fn))) return *op;
    if (is_type(fn, "attribute")) {
        if (auto op = paired_op(rule, "methods", facts.text(field(fn, "attribute")))) return *op;
        return sparse_maker(field(fn, "object"), facts, bindings, rule, depth + 1);  // x.to_sparse().coalesce()
    }
    return {};
}

}  // namespace

void mps_sparse_layout(const AnalysisInput& in, const Rule& rule, std::vector<Match>& out) {
    if (!in.op_tables) return;
    const Bindings bindings(in.root, in.facts);
    const auto own = own_definitions(in.root, in.facts);
    // `register_buffer("m", x.to_sparse())` is one finding, the buffer's: the calls inside its value are skipped.
    std::vector<std::pair<uint32_t, uint32_t>> buffer_values;
    auto inside_buffer_value = [&](TSNode n) {
        return std::any_of(buffer_values.begin(), buffer_values.end(),
                           [&](const auto& r) { return ts_node_start_byte(n) >= r.first && ts_node_end_byte(n) <= r.second; });
    };
    for_each_node(in.root, [&](TSNode call) {
        if (!is_type(call, "call") || inside_buffer_value(call)) return;
        TSNode fn = field(call, "function");
        const std::string q = in.facts.qualname(fn);
        std::string what, op;
        if (is_type(fn, "attribute") && in.facts.text(field(fn, "attribute")) == "register_buffer") {
            TSNode args = field(call, "arguments");
            TSNode value = ts_node_named_child_count(args) > 1 ? ts_node_named_child(args, 1) : TSNode{};
            op = sparse_maker(value, in.facts, bindings, rule);
            if (!op.empty()) buffer_values.emplace_back(ts_node_start_byte(value), ts_node_end_byte(value));
            what = "a sparse buffer, which moves with model.to(\"mps\")";
        } else if (auto sparse_kw = paired_op(rule, "sparse_keyword_calls", q)) {
            TSNode kw = keyword_argument(call, "sparse", in.facts);
            if (ts_node_is_null(kw) || in.facts.text(kw) != "True") return;
            op = *sparse_kw;
            what = "sparse gradients (sparse=True)";
        } else if (auto made = paired_op(rule, "constructors", q)) {
            op = *made;
            what = "a sparse tensor";
        } else if (TSNode head = head_identifier(fn); is_type(fn, "attribute") && !ts_node_is_null(head) && !in.facts.is_imported(in.facts.text(head)) &&
                   !own.count(in.facts.text(field(fn, "attribute")))) {  // a class of the file's own `def to_sparse_csr(self, ...)`
            if (auto by_method = paired_op(rule, "methods", in.facts.text(field(fn, "attribute")))) {
                op = *by_method;
                what = "a sparse tensor";
            }
        }
        if (op.empty()) return;
        Match m = match_at(fn, rule);
        m.captures = {{"call", std::string(in.facts.text(fn))}, {"what", what}, {"support", sparse_support(*in.op_tables, op)}};
        m.ops = {op};
        // A sparse tensor read back at once into a dense one (alphafold3's `is_molecule_mod.to_sparse()`, then
        // `is_molecule_mod.indices()`, judged too loud at major in a sample of 2026-12-07): where the target
        // PyTorch has SparseMPS kernels for the op that makes it and for the one that reads it (rule param
        // dense_results), nothing sparse outlives the read and it runs on MPS.
        if (what == "a sparse tensor") {
            // The dense_results op a sparse value at `expr` is read back by, as `expr.indices()`; nullopt otherwise.
            auto read_back = [&](TSNode expr) -> std::optional<std::pair<std::string, std::string>> {
                const TSNode attr = ts_node_parent(expr);
                const TSNode use = is_type(attr, "attribute") && ts_node_eq(field(attr, "object"), expr) ? ts_node_parent(attr) : TSNode{};
                if (!is_type(use, "call") || !ts_node_eq(field(use, "function"), attr)) return std::nullopt;
                const std::string method(in.facts.text(field(attr, "attribute")));  // either tree: the same text
                if (auto dense = paired_op(rule, "dense_results", method)) return std::make_pair(method, *dense);
                return std::nullopt;
            };
            // At once (`mask.to_sparse().indices()`), or through the name it is bound to, when every later use
            // of that name in the function reads it back (alphafold3's `is_molecule_mod =
            // is_molecule_mod.to_sparse()`, then `is_molecule_mod.indices()`).
            std::vector<std::pair<std::string, std::string>> reads;
            if (auto once = read_back(call)) {
                reads.push_back(*once);
            } else if (const TSNode whole = in.full.node_at(call); !ts_node_is_null(whole) && is_type(ts_node_parent(whole), "assignment") &&
                                                                    ts_node_eq(field(ts_node_parent(whole), "right"), whole) &&
                                                                    is_type(field(ts_node_parent(whole), "left"), "identifier")) {
                // in the whole file's tree: the uses lie outside the statements this scan parsed
                const TSNode assignment = ts_node_parent(whole);
                const TSNode function = enclosing(whole, {"function_definition"});
                bool all = !ts_node_is_null(function);
                for (TSNode use : later_uses(field(assignment, "left"), ts_node_end_byte(assignment), in.full.facts())) {
                    if (!all) break;
                    if (!ts_node_eq(enclosing(use, {"function_definition", "lambda"}), function)) all = false;
                    else if (auto r = read_back(use)) reads.push_back(*r);
                    else all = false;
                }
                if (!all) reads.clear();
            }
            const auto& ops = in.op_tables->target.sparse_ops;
            if (!reads.empty() && ops.count(op) &&
                std::all_of(reads.begin(), reads.end(), [&](const auto& r) { return ops.count(r.second) > 0; })) {
                m.severity = Severity::info;
                m.note = "read back at once by ." + reads.front().first + "(): PyTorch " + in.op_tables->target.torch_version +
                         " has SparseMPS kernels for " + op + " and " + reads.front().second + ", so nothing sparse outlives it on MPS";
            }
        }
        // A buffer the target PyTorch can make and move to MPS (whisper's alignment_heads under 2.14.1:
        // _to_sparse and the sparse copy have SparseMPS kernels): model.to("mps") works; what is left
        // is to check the ops the code runs on it. One level below the rule.
        if (what.rfind("a sparse buffer", 0) == 0) {
            const auto& ops = in.op_tables->target.sparse_ops;
            const auto moves = rule_param(rule, "buffer_move_ops");
            const bool movable = ops.count(op) && !moves.empty() &&
                                 std::all_of(moves.begin(), moves.end(), [&](const std::string& o) { return ops.count("aten::" + o) > 0; });
            if (movable) {
                m.severity = static_cast<Severity>(std::max(0, static_cast<int>(rule.severity) - 1));
                m.note = "PyTorch " + in.op_tables->target.torch_version + " has SparseMPS kernels to make this buffer and to move it (" +
                         op + ", aten::" + moves.front() + "): model.to(\"mps\") works; check the ops run on it";
            }
        }
        out.push_back(std::move(m));
    });
}

}  // namespace mpsport::python
