#include "analyzer/python/float64_flow.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace mpsport::python {
namespace {

enum class Use { unknown, cast, device, cpu, returned, assigned };

bool one_of(std::string_view s, std::initializer_list<std::string_view> list) {
    return std::find(list.begin(), list.end(), s) != list.end();
}

std::string method_of(TSNode call, const ModuleFacts& facts) {
    TSNode fn = field(call, "function");
    return is_type(fn, "attribute") ? std::string(facts.text(field(fn, "attribute"))) : std::string();
}

bool is_float64_dtype(TSNode n, const ModuleFacts& facts) {
    const std::string q = facts.qualname(n);
    if (q == "torch.float64" || q == "torch.double" || q == "numpy.float64" || q == "np.float64") return true;
    const auto v = facts.string_value(n);
    return v && (*v == "float64" || *v == "double");
}

bool is_other_dtype(TSNode n, const ModuleFacts& facts) {
    const std::string q = facts.qualname(n);
    return one_of(q, {"torch.float32", "torch.float", "torch.float16", "torch.half", "torch.bfloat16", "torch.int64", "torch.long",
                      "torch.int32", "torch.int", "torch.bool", "torch.uint8", "torch.int8", "torch.int16"});
}

// `.to(...)`: a dtype other than float64 casts, float64 keeps it, anything else names a device.
Use to_call_use(TSNode call, const ModuleFacts& facts) {
    TSNode args = field(call, "arguments");
    bool dtype_only = false;
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); ++i) {
        TSNode a = ts_node_named_child(args, i);
        TSNode v = is_type(a, "keyword_argument") ? field(a, "value") : a;
        const std::string_view k = is_type(a, "keyword_argument") ? facts.text(field(a, "name")) : std::string_view("");
        if (is_other_dtype(v, facts)) return Use::cast;
        if (is_float64_dtype(v, facts)) {
            dtype_only = true;
            continue;
        }
        if (k == "non_blocking" || k == "copy" || k == "memory_format") continue;
        if (auto s = facts.string_value(v); s && *s == "cpu") return Use::cpu;
        return Use::device;
    }
    return dtype_only ? Use::unknown : Use::unknown;
}

bool keeps_float64(TSNode call, const ModuleFacts& facts) {
    // torch.cos(t), t.sum(), t[1:] - 1: the result is still float64
    const std::string q = facts.qualname(field(call, "function"));
    return q.compare(0, 6, "torch.") == 0 && !one_of(q, {"torch.nn.Parameter", "torch.tensor", "torch.as_tensor"});
}

// What the enclosing expression does with the value of `e`; `assigned` gets the name it is bound to.
Use outer_use(TSNode e, const ModuleFacts& facts, TSNode& assigned) {
    TSNode cur = e;
    for (int depth = 0; depth < 64; ++depth) {
        TSNode parent = ts_node_parent(cur);
        if (ts_node_is_null(parent)) return Use::unknown;
        const std::string_view type = node_type(parent);
        if (type == "attribute" && ts_node_eq(field(parent, "object"), cur)) {
            TSNode call = ts_node_parent(parent);
            if (!is_type(call, "call") || !ts_node_eq(field(call, "function"), parent)) return Use::unknown;  // .shape, .dtype
            const std::string m = method_of(call, facts);
            if (one_of(m, {"float", "half", "bfloat16", "item", "tolist", "numpy", "int", "long", "bool"})) return Use::cast;
            if (m == "cuda") return Use::device;
            if (m == "cpu") return Use::cpu;
            if (m == "to" || m == "type") {
                const Use u = to_call_use(call, facts);
                if (u != Use::unknown) return u;
            }
            cur = call;  // .double(), .sum(), .sqrt(), .clip(): still float64
            continue;
        }
        if (type == "argument_list" || type == "keyword_argument") {
            TSNode call = type == "argument_list" ? ts_node_parent(parent) : ts_node_parent(ts_node_parent(parent));
            if (!is_type(call, "call")) return Use::unknown;
            const std::string q = facts.qualname(field(call, "function"));
            const std::string m = method_of(call, facts);
            if (m == "register_buffer" || m == "register_parameter" || q == "torch.nn.Parameter" || q == "nn.Parameter") return Use::device;
            if (keeps_float64(call, facts)) {
                cur = call;
                continue;
            }
            return Use::unknown;  // into a function of the lab's or NumPy: not followed
        }
        if (one_of(type, {"binary_operator", "unary_operator", "parenthesized_expression", "boolean_operator"}) ||
            (type == "subscript" && ts_node_eq(field(parent, "value"), cur))) {
            cur = parent;
            continue;
        }
        if (type == "assignment" || type == "augmented_assignment") {
            if (!ts_node_eq(field(parent, "right"), cur)) return Use::unknown;
            assigned = field(parent, "left");
            return Use::assigned;
        }
        if (type == "return_statement") return Use::returned;
        if (type == "yield") return Use::unknown;  // a generator's calls return the generator, not the value
        if (type == "expression_list" || type == "tuple") {
            cur = parent;
            continue;
        }
        return Use::unknown;
    }
    return Use::unknown;
}

bool reaches_device(TSNode expr, const ModuleFacts& facts, std::set<std::string>& followed, int depth, std::string* via = nullptr);

// A value returned by a module-level function of this file goes where its calls in this file send
// it (DiffusionDet's cosine_beta_schedule(), a float64 schedule that __init__ registers as buffers).
// Calls from other files, and methods, are not followed.
bool returned_reaches_device(TSNode expr, const ModuleFacts& facts, const std::set<std::string>& followed, int depth, std::string* via) {
    TSNode def = enclosing(expr, {"function_definition"});
    if (ts_node_is_null(def)) return false;
    TSNode outer = ts_node_parent(def);
    if (is_type(outer, "decorated_definition")) outer = ts_node_parent(outer);
    if (!is_type(outer, "module")) return false;
    const std::string name(facts.text(field(def, "name")));
    if (name.empty() || followed.count("def " + name)) return false;
    // The caller's names are its own: only the functions already followed carry over.
    std::set<std::string> functions_followed{"def " + name};
    for (const auto& f : followed)
        if (f.rfind("def ", 0) == 0) functions_followed.insert(f);
    bool reaches = false;
    for_each_node(outer, [&](TSNode n) {
        if (reaches || !is_type(n, "call")) return;
        TSNode fn = field(n, "function");
        if (!is_type(fn, "identifier") || facts.text(fn) != name) return;
        std::set<std::string> caller_followed = functions_followed;
        std::string inner;
        reaches = reaches_device(n, facts, caller_followed, depth + 1, &inner);
        if (reaches && via && via->empty())
            *via = "returned by " + name + "() to its call at line " + std::to_string(ts_node_start_point(n).row + 1) +
                   ", where it reaches a device before any cast" + (inner.empty() ? "" : "; " + inner);
    });
    return reaches;
}

// Follows a CPU-made float64 value: does any use send it to a device before a cast?
bool reaches_device(TSNode expr, const ModuleFacts& facts, std::set<std::string>& followed, int depth, std::string* via) {
    if (depth > 8) return false;
    TSNode assigned{};
    const Use use = outer_use(expr, facts, assigned);
    if (use == Use::device) return true;
    if (use == Use::returned) return returned_reaches_device(expr, facts, followed, depth, via);
    if (use != Use::assigned) return false;
    std::vector<TSNode> names;
    if (is_type(assigned, "identifier")) names.push_back(assigned);
    else if (is_type(assigned, "pattern_list") || is_type(assigned, "tuple_pattern"))
        for (uint32_t i = 0; i < ts_node_named_child_count(assigned); ++i) names.push_back(ts_node_named_child(assigned, i));
    for (TSNode n : names) {
        if (!is_type(n, "identifier")) continue;
        const std::string name(facts.text(n));
        if (!followed.insert(name).second) continue;
        for (TSNode u : later_uses(n, ts_node_end_byte(assigned), facts))
            if (reaches_device(u, facts, followed, depth + 1, via)) return true;
    }
    return false;
}

bool made_on_cpu(TSNode call, const ModuleFacts& facts) {
    TSNode device = keyword_argument(call, "device", facts);
    if (ts_node_is_null(device)) return true;
    const auto v = facts.string_value(device);
    return v && *v == "cpu";
}

// A checkpoint read onto the CPU: torch.load(..., map_location="cpu" | torch.device("cpu") |
// lambda storage, loc: storage), safetensors' load_file(path) (whose device defaults to "cpu").
bool loaded_on_cpu(TSNode call, const ModuleFacts& facts) {
    const std::string q = facts.qualname(field(call, "function"));
    auto cpu = [&](TSNode v) {
        if (auto s = facts.string_value(v)) return *s == "cpu";
        if (is_type(v, "call") && facts.qualname(field(v, "function")) == "torch.device") {
            const auto s = facts.string_value(positional_argument(v, 0));
            return s && *s == "cpu";
        }
        if (is_type(v, "lambda")) {  // lambda storage, loc: storage
            const TSNode params = field(v, "parameters");
            const TSNode body = field(v, "body");
            return !ts_node_is_null(params) && ts_node_named_child_count(params) > 0 && is_type(body, "identifier") &&
                   facts.text(body) == facts.text(ts_node_named_child(params, 0));
        }
        return false;
    };
    if (q == "torch.load") {
        TSNode where = keyword_argument(call, "map_location", facts);
        if (ts_node_is_null(where)) where = positional_argument(call, 1);
        return !ts_node_is_null(where) && cpu(where);
    }
    if (q == "safetensors.torch.load_file" || q == "safetensors.torch.load") {
        TSNode where = keyword_argument(call, "device", facts);
        if (ts_node_is_null(where)) where = positional_argument(call, 1);
        return ts_node_is_null(where) || cpu(where);
    }
    return false;
}

// The receiver of `.double()` was made on the CPU in this scope (`t = torch.arange(n)` earlier), or
// computed from such a tensor: `(t - c).abs()`, `(d == d.min())` (timm's scheduled sampler). Tensors
// of two devices do not mix in an op, so one CPU tensor among the operands makes the result a CPU one.
// A state dict read onto the CPU holds CPU tensors: its items, values and entries too.
bool receiver_made_on_cpu(TSNode receiver, const ModuleFacts& facts, int depth = 0, CallOrigin* origin = nullptr) {
    if (depth > 8) return false;
    if (is_type(receiver, "subscript")) return receiver_made_on_cpu(field(receiver, "value"), facts, depth + 1, origin);
    if (is_type(receiver, "parenthesized_expression") && ts_node_named_child_count(receiver) == 1)
        return receiver_made_on_cpu(ts_node_named_child(receiver, 0), facts, depth + 1);
    if (is_type(receiver, "binary_operator") || is_type(receiver, "comparison_operator")) {
        for (uint32_t i = 0; i < ts_node_named_child_count(receiver); ++i)
            if (receiver_made_on_cpu(ts_node_named_child(receiver, i), facts, depth + 1)) return true;
        return false;
    }
    if (is_type(receiver, "call") && is_type(field(receiver, "function"), "attribute")) {
        // t.abs(), t.min(), t.sum(): on t's device; .to(...), .cuda() and the like move it
        const std::string m = method_of(receiver, facts);
        // moved to the CPU in the expression (kornia's `valid_points.detach().cpu().to(torch.float64)`)
        if (m == "cpu" || (m == "to" && to_call_use(receiver, facts) == Use::cpu)) return true;
        if (!one_of(m, {"to", "cuda", "type", "pin_memory", "copy_", "new_tensor", "new_zeros", "new_ones", "new_empty", "new_full"}) &&
            receiver_made_on_cpu(field(field(receiver, "function"), "object"), facts, depth + 1, origin))
            return true;
    }
    if (is_type(receiver, "call") && loaded_on_cpu(receiver, facts)) return true;
    if (is_type(receiver, "call") && origin && origin->function.empty()) {
        // a function of the lab's own, not torch's or NumPy's: the program model may know it
        const TSNode fn = field(receiver, "function");
        const std::string q = facts.qualname(fn);
        if ((is_type(fn, "identifier") || is_type(fn, "attribute")) && q.compare(0, 6, "torch.") != 0 && q.compare(0, 6, "numpy.") != 0 &&
            q.compare(0, 12, "safetensors.") != 0) {
            origin->function = std::string(last_segment(facts.text(fn)));
            origin->line = static_cast<int>(ts_node_start_point(receiver).row) + 1;
            PassedArguments passed = passed_arguments(receiver, facts);
            origin->keywords = std::move(passed.keywords);
            origin->positional = passed.positional;
            origin->spread = passed.spread;
        }
    }
    if (is_type(receiver, "call")) {
        // a tensor factory, not a module: nn.Linear(4, 1).double() makes float64 parameters
        const std::string q = facts.qualname(field(receiver, "function"));
        const std::string name = q.substr(q.rfind('.') == std::string::npos ? 0 : q.rfind('.') + 1);
        const bool factory = (q.compare(0, 6, "torch.") == 0 || q.compare(0, 6, "numpy.") == 0) && q.find(".nn.") == std::string::npos &&
                             one_of(name, {"tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "arange", "linspace",
                                           "logspace", "rand", "randn", "randint", "eye", "zeros_like", "ones_like", "array", "asarray"});
        return factory && made_on_cpu(receiver, facts);
    }
    if (!is_type(receiver, "identifier")) return false;
    const std::string_view name = facts.text(receiver);
    // `for k, v in sd.items():` / `for v in sd.values():` / `for t in tensors:`: what the loop runs over
    if (const TSNode loop = binding_loop(receiver, name, facts); !ts_node_is_null(loop))
        return receiver_made_on_cpu(field(loop, "right"), facts, depth + 1, origin);
    TSNode last{};
    std::vector<TSNode> stack{scope_of(receiver)};
    while (!stack.empty()) {
        TSNode n = stack.back();
        stack.pop_back();
        if (ts_node_start_byte(n) >= ts_node_start_byte(receiver)) continue;
        // the last in the text that is done before the receiver (not `x = x.double()` around it): the
        // walk pops later siblings first, so compare where each starts
        if (is_type(n, "assignment") && ts_node_end_byte(n) <= ts_node_start_byte(receiver) && is_type(field(n, "left"), "identifier") &&
            facts.text(field(n, "left")) == name && (ts_node_is_null(last) || ts_node_start_byte(n) > ts_node_start_byte(last)))
            last = n;
        for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) stack.push_back(ts_node_named_child(n, i));
    }
    if (ts_node_is_null(last)) return false;
    return receiver_made_on_cpu(field(last, "right"), facts, depth + 1, origin);
}

// A dtype among others in a tuple, list or set that is only compared with: a membership test
// (`x.dtype in (torch.float64, torch.float32)`), or what a comprehension's variable runs over when
// the comprehension only compares it (DALLE2's `any([dtype == d for d in (torch.float64, ...)])`).
// Also a collection of several dtypes bound to a name or attribute that the module only compares with
// (stable-audio-tools' `self.allowed_dtypes = (torch.float32, torch.float64)`, then `if z.dtype not in
// self.allowed_dtypes:`), or passed as a keyword argument or a parameter's default naming allowed dtypes
// (`FSQ(..., allowed_dtypes=[torch.float16, torch.float32, torch.float64])`): a list of what is
// accepted, no tensor.
constexpr std::string_view kAcceptedWords[] = {"allowed", "supported", "accepted", "valid"};

bool only_compared(TSNode collection, const ModuleFacts& facts) {
    if (!is_type(collection, "tuple") && !is_type(collection, "list") && !is_type(collection, "set")) return false;
    const TSNode parent = ts_node_parent(collection);
    if (is_type(parent, "comparison_operator")) return true;
    auto several_dtypes = [&] {
        if (ts_node_named_child_count(collection) < 2) return false;
        for (uint32_t i = 0; i < ts_node_named_child_count(collection); ++i)
            if (facts.qualname(ts_node_named_child(collection, i)).compare(0, 6, "torch.") != 0) return false;
        return true;
    };
    // a keyword argument, or a parameter's default (vector-quantize-pytorch's `def __init__(...,
    // allowed_dtypes = (torch.float32, torch.float64))`)
    if ((is_type(parent, "keyword_argument") || is_type(parent, "default_parameter") || is_type(parent, "typed_default_parameter")) &&
        ts_node_eq(field(parent, "value"), collection)) {
        const std::string_view k = facts.text(field(parent, "name"));
        // allowed_dtypes, supported_dtypes, kornia's accepted_dtypes, valid_dtypes
        const bool accepted = std::any_of(std::begin(kAcceptedWords), std::end(kAcceptedWords),
                                          [&](std::string_view w) { return k.find(w) != std::string_view::npos; });
        return accepted && several_dtypes();
    }
    if (is_type(parent, "assignment") && ts_node_eq(field(parent, "right"), collection) && several_dtypes()) {
        const TSNode left = field(parent, "left");
        if (!is_type(left, "identifier") && !is_type(left, "attribute")) return false;
        const std::string_view name = facts.text(left);
        TSNode root = parent;
        while (!ts_node_is_null(ts_node_parent(root))) root = ts_node_parent(root);
        bool compared_only = true, used = false;
        for_each_node(root, [&](TSNode n) {
            if (!compared_only || node_type(n) != node_type(left) || ts_node_eq(n, left) || facts.text(n) != name) return;
            if (is_type(n, "identifier") && is_type(ts_node_parent(n), "attribute") && !ts_node_eq(field(ts_node_parent(n), "object"), n)) return;
            used = true;
            compared_only = is_type(ts_node_parent(n), "comparison_operator");
        });
        return used && compared_only;
    }
    if (!is_type(parent, "for_in_clause") || !ts_node_eq(field(parent, "right"), collection)) return false;
    const TSNode variable = field(parent, "left");
    const TSNode comprehension = ts_node_parent(parent);
    if (!is_type(variable, "identifier") || ts_node_is_null(comprehension)) return false;
    const std::string_view name = facts.text(variable);
    bool compared_only = true;
    for_each_node(comprehension, [&](TSNode n) {
        if (!compared_only || !is_type(n, "identifier") || ts_node_eq(n, variable) || facts.text(n) != name) return;
        compared_only = is_type(ts_node_parent(n), "comparison_operator");
    });
    return compared_only;
}

// The name a conversion is bound to is later turned into a NumPy array as it is, `x.numpy()` or
// `x.detach().numpy()` with no `.cpu()` between (demucs' eval_track: `references =
// references.transpose(1, 2).double()`, then `references.numpy()`): `.numpy()` raises on any device
// tensor, CUDA's too, so the code holds a CPU tensor there.
bool numpy_as_is_later(TSNode assigned, const ModuleFacts& facts) {
    if (!is_type(assigned, "identifier")) return false;
    for (TSNode u : later_uses(assigned, ts_node_end_byte(assigned), facts)) {
        // only a use that runs wherever the conversion did and the function goes on: in its block or
        // one around it, or in the one arm of an if whose other arms return or raise without it (demucs'
        // `if not compute_sdr: return None, scores` then `else: references.numpy()`); not in a branch
        // of its own (detectron2's BoxMode.convert turns the result into NumPy only `if is_numpy:`, and
        // hands a tensor back otherwise)
        // an arm that returns or raises without the tensor (detectron2's `else: return arr` hands it back)
        auto leaves = [&](TSNode b) {
            bool names = false;
            for_each_node(b, [&](TSNode n) { names = names || (is_type(n, "identifier") && facts.text(n) == facts.text(assigned)); });
            for (uint32_t k = 0; k < ts_node_named_child_count(b) && !names; ++k)
                if (is_type(ts_node_named_child(b, k), "return_statement") || is_type(ts_node_named_child(b, k), "raise_statement")) return true;
            return false;
        };
        TSNode block = enclosing(u, {"block", "module"});
        while (!ts_node_is_null(block) && !contains(block, assigned)) {
            const TSNode arm = ts_node_parent(block);
            const TSNode choice = is_type(arm, "if_statement") ? arm : ts_node_parent(arm);
            if (!is_type(choice, "if_statement") || contains(choice, assigned)) break;
            const IfArms arms = if_arms(choice);
            if (!arms.has_else || !std::all_of(arms.blocks.begin(), arms.blocks.end(), [&](TSNode b) { return ts_node_eq(b, block) || leaves(b); })) break;
            block = enclosing(choice, {"block", "module"});
        }
        if (ts_node_is_null(block) || !contains(block, assigned)) continue;
        for (TSNode cur = u;;) {
            const TSNode attr = ts_node_parent(cur);
            if (!is_type(attr, "attribute") || !ts_node_eq(field(attr, "object"), cur)) break;
            const TSNode call = ts_node_parent(attr);
            if (!is_type(call, "call") || !ts_node_eq(field(call, "function"), attr)) break;
            const std::string m = method_of(call, facts);
            if (m == "numpy") return true;
            if (!one_of(m, {"detach", "contiguous", "clone", "squeeze", "flatten", "reshape", "view", "transpose", "permute"})) break;
            cur = call;
        }
    }
    return false;
}

Float64Flow converted(TSNode conversion, TSNode receiver, const ModuleFacts& facts, CallOrigin* origin, std::string* via) {
    std::set<std::string> followed;
    if (receiver_made_on_cpu(receiver, facts, 0, origin))
        return reaches_device(conversion, facts, followed, 0, via) ? Float64Flow::device : Float64Flow::host;
    TSNode assigned{};
    const Use use = outer_use(conversion, facts, assigned);
    if (use == Use::cpu) return Float64Flow::device_then_cpu;
    if (use == Use::assigned && numpy_as_is_later(assigned, facts)) return Float64Flow::host;
    return Float64Flow::device;
}

Float64Flow float64_flow_of(TSNode node, const ModuleFacts& facts, CallOrigin* origin, std::string* via) {
    if (is_type(node, "call")) {  // x.double()
        return converted(node, field(field(node, "function"), "object"), facts, origin, via);
    }
    TSNode arg = node;
    TSNode parent = ts_node_parent(arg);
    if (is_type(parent, "call") && ts_node_eq(field(parent, "function"), node)) {
        // torch.DoubleTensor([n]): a CPU tensor of the legacy constructor
        std::set<std::string> followed;
        return reaches_device(parent, facts, followed, 0, via) ? Float64Flow::device : Float64Flow::host;
    }
    if (is_type(parent, "comparison_operator")) return Float64Flow::host;  // `x.dtype == torch.float64` makes nothing
    if (only_compared(parent, facts)) return Float64Flow::host;
    // `torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32` (torch.optim's
    // _get_scalar_dtype idiom) follows the default dtype: float64 only where the program already set it,
    // which default-dtype-float64 reports at the set_default_dtype call.
    if (is_type(parent, "conditional_expression") && ts_node_named_child_count(parent) == 3 &&
        !ts_node_eq(ts_node_named_child(parent, 1), node)) {
        bool follows_default = false;
        for_each_node(ts_node_named_child(parent, 1), [&](TSNode n) {
            follows_default = follows_default || (is_type(n, "call") && facts.qualname(field(n, "function")) == "torch.get_default_dtype");
        });
        if (follows_default) return Float64Flow::host;
    }
    if (is_type(parent, "keyword_argument")) {
        if (facts.text(field(parent, "name")) != "dtype") return Float64Flow::device;
        arg = parent;
        parent = ts_node_parent(arg);
    }
    if (!is_type(parent, "argument_list")) return Float64Flow::device;  // `dtype = torch.float64` kept for later: unknown
    TSNode call = ts_node_parent(parent);
    if (!is_type(call, "call")) return Float64Flow::device;
    const std::string m = method_of(call, facts);
    if (m == "to" || m == "type") return converted(call, field(field(call, "function"), "object"), facts, origin, via);
    if (!made_on_cpu(call, facts)) return Float64Flow::device;
    std::set<std::string> followed;
    return reaches_device(call, facts, followed, 0, via) ? Float64Flow::device : Float64Flow::host;
}

}  // namespace

Float64Flow float64_flow(TSNode node, const ModuleFacts& facts, CallOrigin* origin, std::string* via) {
    CallOrigin found;
    const Float64Flow flow = float64_flow_of(node, facts, &found, via);
    if (origin && flow == Float64Flow::device && !found.function.empty()) *origin = std::move(found);
    return flow;
}

std::optional<std::pair<std::string, int>> collective_in_function(TSNode node, const ModuleFacts& facts, const std::vector<std::string>& collectives) {
    const TSNode def = enclosing(node, {"function_definition"});
    if (ts_node_is_null(def) || collectives.empty()) return std::nullopt;
    // the name the tensor is bound to (`t = torch.tensor(..., dtype=torch.float64)`), which the
    // collective must be passed
    const TSNode assignment = enclosing(node, {"assignment"});
    if (ts_node_is_null(assignment) || !is_type(field(assignment, "left"), "identifier")) return std::nullopt;
    const std::string_view name = facts.text(field(assignment, "left"));
    std::optional<std::pair<std::string, int>> found;
    for_each_node(field(def, "body"), [&](TSNode n) {
        if (found || !is_type(n, "call")) return;
        const std::string q = facts.qualname(field(n, "function"));
        if (std::find(collectives.begin(), collectives.end(), q) == collectives.end()) return;
        const TSNode args = field(n, "arguments");
        bool passed = false;
        for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
            TSNode a = ts_node_named_child(args, i);
            if (is_type(a, "keyword_argument")) a = field(a, "value");
            passed = passed || (is_type(a, "identifier") && facts.text(a) == name);
        }
        if (!passed) return;
        // unconditional in the function: under `if opts.num_gpus > 1:` the tensor serves one device too
        // (stylegan3's metrics accumulate float64 sums and reduce them only with several processes)
        for (TSNode up = ts_node_parent(n); !ts_node_eq(up, def); up = ts_node_parent(up))
            if (is_type(up, "if_statement") || is_type(up, "conditional_expression") || is_type(up, "boolean_operator") ||
                is_type(up, "try_statement") || is_type(up, "for_statement") || is_type(up, "while_statement"))
                return;
        found = std::make_pair(q, static_cast<int>(ts_node_start_point(n).row) + 1);
    });
    return found;
}

}  // namespace mpsport::python
