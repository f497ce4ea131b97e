#include "analyzer/python/program_facts.hpp"

#include "analyzer/python/local_bindings.hpp"
#include "analyzer/python/module_names.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace mpsport::python {
namespace {

constexpr std::string_view kCppExtension = "torch.utils.cpp_extension.";
constexpr std::string_view kTorchOps = "torch.ops.";

int line_of(TSNode node) { return static_cast<int>(ts_node_start_point(node).row) + 1; }

// Every string literal under `node` (a list of sources, a dict of entry points).
void strings_under(TSNode node, const ModuleFacts& facts, std::vector<std::string>& out) {
    if (ts_node_is_null(node)) return;
    if (is_type(node, "string")) {
        if (auto v = string_literal(node, facts.source())) out.push_back(*v);
        return;
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(node); ++i) strings_under(ts_node_named_child(node, i), facts, out);
}

// The files `sources=` names when it is a name bound earlier in the function to a list of string
// literals, or to a comprehension over one (stylegan2-ada's `sources = ['bias_act.cpp', 'bias_act.cu']`,
// then `sources = [os.path.join(os.path.dirname(__file__), s) for s in sources]`), with the folders
// the comprehension's join names (`os.path.join(_src_path, 'src', f)`). Nothing else: a
// list built of calls (`os.path.join("pkg", "backend", name)`) names no file.
std::optional<std::string> path_of(TSNode node, const ModuleFacts& facts, int depth = 0);

void sources_through_name(TSNode node, const ModuleFacts& facts, std::vector<std::string>& out, int depth = 0) {
    if (ts_node_is_null(node) || depth > 4) return;
    if (is_type(node, "list_comprehension")) {
        // `os.path.join(_src_path, 'src', f) for f in [...]` (torch-ngp's and stable-dreamfusion's
        // encoders): the folders the body's literals name come before each file
        std::string folder;
        const TSNode body = field(node, "body");
        if (is_type(body, "call") && last_segment(facts.text(field(body, "function"))) == "join") {
            const TSNode args = field(body, "arguments");
            const uint32_t n = ts_node_named_child_count(args);
            for (uint32_t i = 0; i + 1 < n; ++i)
                if (const auto v = string_literal(ts_node_named_child(args, i), facts.source())) folder += *v + "/";
        }
        for (uint32_t i = 0; i < ts_node_named_child_count(node); ++i)
            if (is_type(ts_node_named_child(node, i), "for_in_clause")) {
                std::vector<std::string> files;
                sources_through_name(field(ts_node_named_child(node, i), "right"), facts, files, depth + 1);
                for (auto& f : files) out.push_back(folder + f);
            }
        return;
    }
    if (is_type(node, "list")) {
        std::vector<std::string> strings;
        for (uint32_t i = 0; i < ts_node_named_child_count(node); ++i) {
            const TSNode item = ts_node_named_child(node, i);
            if (is_type(item, "comment")) continue;
            // a literal, or a path built from the file's folder: `os.path.join(folder, 'x.cpp')`, `srcpath / "x.cpp"`,
            // `f"{folder}/x.cu"`
            const auto v = is_type(item, "string") || is_type(item, "binary_operator") || is_type(item, "call") ? path_of(item, facts) : std::nullopt;
            if (!v || v->empty()) return;
            strings.push_back(*v);
        }
        out.insert(out.end(), strings.begin(), strings.end());
        return;
    }
    const TSNode scope = enclosing(node, {"function_definition"});
    if (!is_type(node, "identifier") || ts_node_is_null(scope)) return;
    TSNode last{};
    for_each_node(scope, [&](TSNode n) {
        if (is_type(n, "assignment") && ts_node_start_byte(n) < ts_node_start_byte(node) && !contains(n, node) &&
            is_type(field(n, "left"), "identifier") && facts.text(field(n, "left")) == facts.text(node))
            last = n;
    });
    if (!ts_node_is_null(last)) sources_through_name(field(last, "right"), facts, out, depth + 1);
}

// A path relative to the file's folder that `node` builds: a string literal, or `os.path.join(...)`
// of literals, of `os.path.dirname(__file__)` (with realpath/abspath inside: the folder itself), and
// of names bound once to such a path in the function or the module (hszhao/semseg's `gpu_path =
// os.path.join(cwd, 'gpu')`, then `os.path.join(gpu_path, 'operator.cpp')`). nullopt otherwise.
std::optional<std::string> path_of(TSNode node, const ModuleFacts& facts, int depth) {
    if (ts_node_is_null(node) || depth > 6) return std::nullopt;
    if (is_type(node, "string")) {
        // `f"{current_path}/cuda/operators.cu"` (ChatRWKV's kernel sources): a folder the name binds,
        // then literal text; any other interpolation names no one file
        std::string out;
        bool first = true, any_interpolation = false;
        for (uint32_t i = 0; i < ts_node_named_child_count(node); ++i) {
            const TSNode part = ts_node_named_child(node, i);
            if (is_type(part, "string_start") || is_type(part, "string_end")) continue;
            if (is_type(part, "interpolation")) {
                if (!first || ts_node_named_child_count(part) != 1) return std::nullopt;
                const auto folder = path_of(ts_node_named_child(part, 0), facts, depth + 1);
                if (!folder) return std::nullopt;
                out = *folder;
                any_interpolation = true;
            } else if (is_type(part, "string_content")) {
                std::string_view text = facts.text(part);
                if (any_interpolation && out.empty() && !text.empty() && text.front() == '/') text.remove_prefix(1);
                out += text;
            } else {
                return std::nullopt;  // an escape sequence or a format spec: not a plain path
            }
            first = false;
        }
        return any_interpolation ? std::optional<std::string>(out) : string_literal(node, facts.source());
    }
    if (is_type(node, "identifier")) {
        if (facts.text(node) == "__file__") return std::nullopt;
        TSNode value{};
        int bound = 0;
        const TSNode scope = enclosing(node, {"function_definition"});
        for_each_node(ts_node_is_null(scope) ? node : scope, [&](TSNode n) {
            if (is_type(n, "assignment") && is_type(field(n, "left"), "identifier") && facts.text(field(n, "left")) == facts.text(node))
                value = field(n, "right"), ++bound;
        });
        if (bound == 0) value = facts.module_binding(facts.text(node)), bound = ts_node_is_null(value) ? 0 : 1;
        if (bound != 1) return std::nullopt;
        return path_of(value, facts, depth + 1);
    }
    // pathlib: `Path(__file__).parent` (with .absolute() or .resolve() anywhere along it) is the
    // file's folder, and `folder / "name.cpp"` a path under it (BigVGAN's and Megatron's fused-kernel
    // loaders: `srcpath = pathlib.Path(__file__).parent.absolute()`, then `srcpath / "x.cpp"`).
    if (is_type(node, "binary_operator") && facts.text(field(node, "operator")) == "/") {
        const auto left = path_of(field(node, "left"), facts, depth + 1);
        const auto right = path_of(field(node, "right"), facts, depth + 1);
        if (!left || !right || right->empty()) return std::nullopt;
        return left->empty() ? *right : *left + "/" + *right;
    }
    if (is_type(node, "attribute") && facts.text(field(node, "attribute")) == "parent") {
        TSNode inner = field(node, "object");
        auto unwrap = [&](TSNode n) {  // X.absolute(), X.resolve() -> X
            while (is_type(n, "call") && ts_node_named_child_count(field(n, "arguments")) == 0 && is_type(field(n, "function"), "attribute") &&
                   (facts.text(field(field(n, "function"), "attribute")) == "absolute" || facts.text(field(field(n, "function"), "attribute")) == "resolve"))
                n = field(field(n, "function"), "object");
            return n;
        };
        inner = unwrap(inner);
        if (is_type(inner, "call")) {
            const std::string pq = facts.qualname(field(inner, "function"));
            const TSNode pargs = field(inner, "arguments");
            if ((pq == "pathlib.Path" || pq == "pathlib.PurePath") && ts_node_named_child_count(pargs) == 1 &&
                facts.text(ts_node_named_child(pargs, 0)) == "__file__")
                return std::string();
        }
        return std::nullopt;
    }
    if (is_type(node, "call") && ts_node_named_child_count(field(node, "arguments")) == 0 && is_type(field(node, "function"), "attribute") &&
        (facts.text(field(field(node, "function"), "attribute")) == "absolute" || facts.text(field(field(node, "function"), "attribute")) == "resolve"))
        return path_of(field(field(node, "function"), "object"), facts, depth + 1);
    if (!is_type(node, "call")) return std::nullopt;
    const std::string q = facts.qualname(field(node, "function"));
    const TSNode args = field(node, "arguments");
    if (q == "os.path.dirname" && ts_node_named_child_count(args) == 1) {
        TSNode inner = ts_node_named_child(args, 0);
        while (is_type(inner, "call") && (facts.qualname(field(inner, "function")) == "os.path.realpath" ||
                                          facts.qualname(field(inner, "function")) == "os.path.abspath") &&
               ts_node_named_child_count(field(inner, "arguments")) == 1)
            inner = ts_node_named_child(field(inner, "arguments"), 0);
        if (is_type(inner, "identifier") && facts.text(inner) == "__file__") return std::string();
        return std::nullopt;
    }
    if (q != "os.path.join") return std::nullopt;
    std::string out;
    for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
        const auto part = path_of(ts_node_named_child(args, i), facts, depth + 1);
        if (!part) return std::nullopt;
        if (part->empty()) continue;
        out += (out.empty() ? "" : "/") + *part;
    }
    return out;
}

// The module a from-import names, without a relative import's dots, and the number of dots:
// `from ..ops import knn` -> ("ops", 2); nullopt when the statement has no module name.
std::optional<std::pair<std::string, int>> from_module(TSNode imp, const ModuleFacts& facts) {
    TSNode module = field(imp, "module_name");
    if (is_type(module, "dotted_name")) return std::make_pair(std::string(facts.text(module)), 0);
    if (!is_type(module, "relative_import")) return std::nullopt;
    std::pair<std::string, int> out{"", 0};
    for (uint32_t i = 0; i < ts_node_child_count(module); ++i) {
        TSNode part = ts_node_child(module, i);
        if (is_type(part, "import_prefix")) out.second = static_cast<int>(facts.text(part).size());
        else if (is_type(part, "dotted_name")) out.first = std::string(facts.text(part));
    }
    return out;
}

using CallSites = std::map<std::string, std::vector<TSNode>, std::less<>>;

// A lazy import in `def dtw_cuda():` is as guarded as the calls of dtw_cuda in this file: whisper
// calls it only under `if x.is_cuda:`. A method is called by its name and through its class
// (`UpFirDn2d.apply(...)`, `Net(...)`): stylegan2's ops call their CUDA kernels in an autograd
// Function that the file's wrapper applies only off the CPU. A caller with no guard of its own takes
// the guard of its own callers, a few calls deep. Any unguarded call, or none in this file, leaves
// it unguarded.
using GuardMemo = std::map<std::pair<const void*, int>, Guard>;  // (function node, depth) -> its guard

Guard guard_through_callers(TSNode function, const ModuleFacts& facts, const GuardFinder& guards, const CallSites& calls, int depth = 4,
                            GuardMemo* memo = nullptr) {
    if (memo) {
        const auto known = memo->find({function.id, depth});
        if (known != memo->end()) return known->second;
    }
    auto remember = [&](Guard g) {
        if (memo) memo->emplace(std::make_pair(function.id, depth), g);
        return g;
    };
    std::vector<std::pair<std::string, TSNode>> names{{std::string(facts.text(field(function, "name"))), function}};
    const TSNode cls = enclosing(function, {"class_definition"});
    if (!ts_node_is_null(cls)) names.emplace_back(std::string(facts.text(field(cls, "name"))), cls);
    // A class made inside a function runs where that function's result does: NVlabs' ops define their
    // autograd Function in `_bias_act_cuda(...)` and call `_bias_act_cuda(...).apply(x, b)`.
    const TSNode factory = ts_node_is_null(cls) ? TSNode{} : enclosing(cls, {"function_definition"});
    if (!ts_node_is_null(factory)) names.emplace_back(std::string(facts.text(field(factory, "name"))), factory);
    Guard weakest;
    bool first = true;
    // A method called by its own name (`self._optimized(x)`) runs where those calls are, not where its
    // class is built (petals' `_optimized_input_layernorm`, called only under `x.device.type ==
    // "cuda"`, in a class another class's __init__ builds unguarded). The class's callers stand for a
    // dunder (__init__ runs where the class is called) and for a method no call names (an autograd
    // Function's forward, run by `Cls.apply(...)`).
    const std::string_view own = names.front().first;
    const bool by_own_name = own.substr(0, 2) != "__" && names.size() > 1 && [&] {
        const auto it = calls.find(names.front().first);
        return it != calls.end() && std::any_of(it->second.begin(), it->second.end(), [&](TSNode c) { return !contains(function, c); });
    }();
    if (by_own_name) names.resize(1);
    for (const auto& [name, scope] : names) {
        auto it = calls.find(name);
        if (it == calls.end()) continue;
        for (TSNode call : it->second) {
            if (contains(scope, call)) continue;  // recursion says nothing
            Guard g = guards.guard_of(call);
            const TSNode outer = enclosing(call, {"function_definition"});
            if (g.kind == GuardKind::none && !g.mps_aware && depth > 1 && !ts_node_is_null(outer))
                g = guard_through_callers(outer, facts, guards, calls, depth - 1, memo);
            if (g.kind == GuardKind::none) return remember({});
            if (first || guard_strength(g.kind) > guard_strength(weakest.kind)) weakest = g;
            first = false;
        }
    }
    if (!first) weakest.note = "callers of " + names.back().first + "(): " + weakest.note;
    return remember(weakest);
}

// Calls by the name they call: `knn(x)` and `ops.knn(x)` under knn; `UpFirDn2d.apply(x)` under
// apply and under UpFirDn2d, the class it goes through.
void index_call(TSNode call, const ModuleFacts& facts, CallSites& calls) {
    const TSNode fn = field(call, "function");
    if (is_type(fn, "identifier")) {
        calls[std::string(facts.text(fn))].push_back(call);
    } else if (is_type(fn, "attribute")) {
        calls[std::string(facts.text(field(fn, "attribute")))].push_back(call);
        const TSNode object = field(fn, "object");
        if (is_type(object, "identifier")) calls[std::string(facts.text(object))].push_back(call);
    }
}

// Whether the if around a function's import imports the same module in every other arm, or leaves
// there: ermongroup/ddim's sample_image() imports generalized_steps from functions.denoising in one
// arm, ddpm_steps from it in the other, and raises in the else. The module is no option: every way
// on imports it. An if with no else can skip every arm.
bool imported_in_every_arm(TSNode imp, const ModuleFacts& facts, const GuardFinder& guards) {
    TSNode if_statement = enclosing(imp, {"if_statement", "function_definition"});
    if (ts_node_is_null(if_statement) || !is_type(if_statement, "if_statement")) return false;
    const bool from = is_type(imp, "import_from_statement");
    const std::string_view module = facts.text(from ? field(imp, "module_name") : ts_node_named_child(imp, 0));
    const IfArms arms = if_arms(if_statement);
    if (!arms.has_else) return false;
    return std::all_of(arms.blocks.begin(), arms.blocks.end(), [&](TSNode arm) {
        if (contains(arm, imp) || guards.always_leaves(arm)) return true;
        bool same = false;
        for_each_node(arm, [&](TSNode n) {
            if (same || !is_type(n, from ? "import_from_statement" : "import_statement")) return;
            same = facts.text(from ? field(n, "module_name") : ts_node_named_child(n, 0)) == module;
        });
        return same;
    });
}

void add_import(TSNode imp, const ModuleFacts& facts, const GuardFinder& guards, const CallSites& calls, FileFacts& out) {
    Guard g = guards.guard_of(imp);
    const TSNode function = enclosing(imp, {"function_definition"});
    const bool lazy = !ts_node_is_null(function);
    if (lazy && g.kind == GuardKind::none && !g.mps_aware) g = guard_through_callers(function, facts, guards, calls);
    // flux's cli.py: `if not trt: <load the PyTorch models> else: from flux.trt.trt_manager import
    // TRTManager` ("lazy import to make install optional"). A function's import in one arm of an
    // if/elif/else runs only where that arm is chosen: an option the run can leave off. Not an
    // except clause, whose import is the fallback that runs where the package is missing.
    if (lazy && g.kind == GuardKind::none && !g.mps_aware && !is_type(enclosing(imp, {"if_statement", "elif_clause", "else_clause", "except_clause", "function_definition"}), "except_clause"))
        if (const auto branch = branch_in_function(imp, facts); branch && !imported_in_every_arm(imp, facts, guards))
            g = {GuardKind::alternative_branch, false, std::string(kOnDemandBranchNote) + " (" + *branch + ")"};
    auto make = [&](std::string module, int level) {
        ImportFact f;
        f.module = std::move(module);
        f.level = level;
        f.line = line_of(imp);
        f.end_line = static_cast<int>(ts_node_end_point(imp).row) + 1;
        f.guard = g.kind;
        f.guard_note = g.note;
        f.lazy = lazy;
        return f;
    };
    if (is_type(imp, "import_statement")) {
        for (uint32_t i = 0; i < ts_node_named_child_count(imp); ++i) {
            TSNode c = ts_node_named_child(imp, i);
            TSNode name = is_type(c, "aliased_import") ? field(c, "name") : c;
            if (is_type(name, "dotted_name")) out.imports.push_back(make(std::string(facts.text(name)), 0));
        }
        return;
    }
    const auto from = from_module(imp, facts);
    if (!from) return;
    const TSNode module = field(imp, "module_name");
    ImportFact f = make(from->first, from->second);
    for (uint32_t i = 0; i < ts_node_named_child_count(imp); ++i) {
        TSNode c = ts_node_named_child(imp, i);
        if (ts_node_start_byte(c) == ts_node_start_byte(module)) continue;
        TSNode name = is_type(c, "aliased_import") ? field(c, "name") : c;
        if (is_type(name, "dotted_name")) f.names.emplace_back(facts.text(name));
    }
    out.imports.push_back(std::move(f));
}

// `if torch.cuda.is_available() and CUDA_HOME is not None: extension = CUDAExtension ... else: raise
// NotImplementedError("Cuda is not available")` (Deformable-DETR's ops and the setups copied from it:
// DINO, Mask2Former): the setup builds the CUDA extension or nothing, so the assignment holds wherever
// a build happens. Every other arm leaves as GuardFinder::always_leaves reads a handler (a raise or an
// exit, also through an if whose arms all do).
bool other_arms_leave(TSNode value, const GuardFinder& guards) {
    const TSNode arm = enclosing(value, {"block"});  // none for a module-level `X = CUDAExtension if c else CppExtension`
    if (ts_node_is_null(arm)) return false;
    const TSNode if_statement = ts_node_parent(arm);
    if (!is_type(if_statement, "if_statement") || !ts_node_eq(field(if_statement, "consequence"), arm)) return false;
    const IfArms arms = if_arms(if_statement);
    return arms.has_else && std::all_of(arms.blocks.begin() + 1, arms.blocks.end(), [&](TSNode b) { return guards.always_leaves(b); });
}

// `extension = CppExtension; if CUDA_HOME: extension = CUDAExtension; extension("pkg._C", ...)`: the
// cpp_extension kind a local name holds, CUDA if any assignment makes it so; `cuda_optional` when every
// CUDA assignment is conditional and a C++ one stands otherwise.
std::string extension_through_variable(TSNode function, const ModuleFacts& facts, const GuardFinder& guards, bool& cuda_optional) {
    bool cuda = false, cuda_always = false, cpp = false;
    const std::vector<Binding> bindings = bindings_of(function, facts);
    // The last unconditional assignment before the call takes one kind out of a collection that holds
    // both, by a key chosen at run time: MinkowskiEngine's `SOURCE_SETS = {"cpu": [CppExtension, ...],
    // "gpu": [CUDAExtension, ...]}` and `Extension = SOURCE_SETS[target][0]`, with `target = "cpu" if
    // CPU_ONLY else "gpu"`. The setup has a C++ build beside the CUDA one; what came before is overwritten.
    const Binding* last = nullptr;
    for (const auto& b : bindings)
        if (!b.conditional && ts_node_start_byte(b.value) < ts_node_start_byte(function)) last = &b;
    if (last && is_type(last->value, "subscript")) {
        TSNode base = last->value;
        while (is_type(base, "subscript")) base = field(base, "value");
        bool cuda_in = false, cpp_in = false;
        for (const auto& table : bindings_of(base, facts)) {
            if (!is_type(table.value, "dictionary") && !is_type(table.value, "list") && !is_type(table.value, "tuple")) continue;
            for_each_node(table.value, [&](TSNode n) {
                if (!is_type(n, "identifier") && !is_type(n, "attribute")) return;
                const std::string q = facts.qualname(n);
                if (q.compare(0, kCppExtension.size(), kCppExtension) != 0) return;
                cuda_in = cuda_in || q.substr(kCppExtension.size()) == "CUDAExtension";
                cpp_in = cpp_in || q.substr(kCppExtension.size()) == "CppExtension";
            });
        }
        if (cuda_in && cpp_in) {
            cuda_optional = true;
            return std::string(kCppExtension) + "CUDAExtension";
        }
    }
    for (const auto& b : bindings) {
        if (b.qualname.compare(0, kCppExtension.size(), kCppExtension) != 0) continue;
        const std::string kind = b.qualname.substr(kCppExtension.size());
        if (kind == "CUDAExtension") (b.conditional && !other_arms_leave(b.value, guards) ? cuda : cuda_always) = true;
        if (kind == "CppExtension") cpp = true;
    }
    cuda_optional = cuda && !cuda_always && cpp;
    if (cuda || cuda_always) return std::string(kCppExtension) + "CUDAExtension";
    return cpp ? std::string(kCppExtension) + "CppExtension" : std::string();
}

// A call of a function of the repository's that wraps cpp_extension.load (rules/program.yaml
// extension_loaders, by its own name): NVlabs' `custom_ops.get_plugin(module_name=..., sources=[...])`.
bool is_extension_loader(TSNode call, const ModuleFacts& facts, const GuardVocabulary& vocab) {
    const std::string_view last = last_segment(facts.text(field(call, "function")));
    return std::find(vocab.extension_loaders.begin(), vocab.extension_loaders.end(), last) != vocab.extension_loaders.end();
}

// The Python module an extension call builds: its `name=` (a loader's `module_name=`) argument, else
// its first positional one.
std::optional<std::string> extension_name(TSNode call, const ModuleFacts& facts) {
    TSNode name = keyword_argument(call, "name", facts);
    if (ts_node_is_null(name)) name = keyword_argument(call, "module_name", facts);
    if (ts_node_is_null(name)) name = positional_argument(call, 0);
    auto value = facts.string_value(name);
    if (!value || value->empty()) return std::nullopt;
    return value;
}

// `'--cuda_ext' in sys.argv`, `'--no_cuda_ext' not in sys.argv`: an option a setup script reads from
// its own command line, and whether the condition holds when the option is passed.
std::optional<std::pair<std::string, bool>> argv_flag(TSNode condition, const ModuleFacts& facts) {
    while (is_type(condition, "parenthesized_expression") && ts_node_named_child_count(condition) == 1) condition = ts_node_named_child(condition, 0);
    if (!is_type(condition, "comparison_operator") || ts_node_named_child_count(condition) != 2) return std::nullopt;
    const TSNode left = ts_node_named_child(condition, 0), right = ts_node_named_child(condition, 1);
    if (facts.qualname(right) != "sys.argv") return std::nullopt;
    const auto flag = facts.string_value(left);
    if (!flag || flag->size() < 2 || (*flag)[0] != '-') return std::nullopt;
    std::string op(facts.text(condition).substr(ts_node_end_byte(left) - ts_node_start_byte(condition),
                                                 ts_node_start_byte(right) - ts_node_end_byte(left)));
    op.erase(std::remove_if(op.begin(), op.end(), [](char c) { return c == ' ' || c == '\t' || c == '\\' || c == '\n'; }), op.end());
    if (op != "in" && op != "notin") return std::nullopt;
    return std::make_pair(*flag, op == "in");
}

// The command-line switch of the if arm `node` sits in, within its function or module.
std::optional<ExtensionFact> switch_above(TSNode node, const ModuleFacts& facts) {
    for (TSNode cur = node, parent = ts_node_parent(node); !ts_node_is_null(parent); cur = parent, parent = ts_node_parent(parent)) {
        if (is_type(parent, "function_definition") || is_type(parent, "class_definition")) return std::nullopt;
        if (!is_type(parent, "if_statement")) continue;
        const auto flag = argv_flag(field(parent, "condition"), facts);
        if (!flag) continue;
        const bool in_body = ts_node_eq(cur, field(parent, "consequence"));
        if (!in_body && !is_type(cur, "else_clause")) continue;  // an elif arm: its own condition decides
        ExtensionFact e;
        e.build_flag = flag->first;
        e.built_when_passed = in_body == flag->second;
        e.build_flag_line = line_of(parent);
        return e;
    }
    return std::nullopt;
}

// The switch a setup script's build sits under: around the extension call itself, or, in a module-level
// helper (BasicSR's `make_cuda_ext(...)`), around every call of that helper in the file.
void find_build_switch(TSNode call, const ModuleFacts& facts, ExtensionFact& e) {
    if (auto s = switch_above(call, facts)) {
        e.build_flag = s->build_flag, e.built_when_passed = s->built_when_passed, e.build_flag_line = s->build_flag_line;
        return;
    }
    const TSNode def = enclosing(call, {"function_definition"});
    if (ts_node_is_null(def) || !is_type(ts_node_parent(def), "module")) return;
    const std::string_view name = facts.text(field(def, "name"));
    std::optional<ExtensionFact> common;
    bool agree = true, any = false;
    for_each_node(ts_node_parent(def), [&](TSNode n) {
        if (!agree || !is_type(n, "call") || !is_type(field(n, "function"), "identifier") || facts.text(field(n, "function")) != name) return;
        if (!ts_node_is_null(enclosing(n, {"function_definition"})) && ts_node_eq(enclosing(n, {"function_definition"}), def)) return;  // recursion
        any = true;
        const auto s = switch_above(n, facts);
        if (!s || (common && (common->build_flag != s->build_flag || common->built_when_passed != s->built_when_passed))) agree = false;
        else if (!common) common = s;
    });
    if (!any || !agree || !common) return;
    e.build_flag = common->build_flag, e.built_when_passed = common->built_when_passed, e.build_flag_line = common->build_flag_line;
}

// One extension a JIT load builds: its module name, the node naming its sources, and where it is
// built (the load itself, or the call of the helper around it).
struct HelperBuild {
    std::string name;
    TSNode sources;
    TSNode site;
};

// The position of parameter `name` among a function's parameters; -1 where it is none of them, or
// can only be passed by keyword.
int parameter_index(TSNode def, std::string_view name, const ModuleFacts& facts) {
    int at = -1;
    for_each_parameter(def, 0, [&](TSNode p, int position) {
        const TSNode id = is_type(p, "identifier") ? p : field(p, "name");
        if (at < 0 && !ts_node_is_null(id) && facts.text(id) == name) at = position;
    });
    return at;
}

// The argument a call passes for parameter `name` at `index`: by keyword, else by position.
TSNode argument_for(TSNode call, std::string_view name, int index, const ModuleFacts& facts) {
    const TSNode kw = keyword_argument(call, name, facts);
    if (!ts_node_is_null(kw)) return kw;
    return index < 0 ? TSNode{} : positional_argument(call, static_cast<uint32_t>(index));
}

// BigVGAN's and Megatron's fused-kernel loaders: `def _cpp_extention_load_helper(name, sources,
// extra_cuda_flags): return cpp_extension.load(name=name, sources=sources, ...)`, called in the same
// file as `_cpp_extention_load_helper("anti_alias_activation_cuda", sources, extra_cuda_flags)`. The
// name (and the sources, where they are a parameter too) are what each call of the function around the
// load passes: one extension per call that passes a literal name. Not a method (its `self` shifts the
// positions), nor a call inside the function itself.
std::vector<HelperBuild> builds_through_helper(TSNode load, TSNode sources, const ModuleFacts& facts, const CallSites& calls) {
    TSNode name = keyword_argument(load, "name", facts);
    if (ts_node_is_null(name)) name = keyword_argument(load, "module_name", facts);
    if (ts_node_is_null(name)) name = positional_argument(load, 0);
    const TSNode def = enclosing(load, {"function_definition"});
    if (!is_type(name, "identifier") || ts_node_is_null(def) || is_type(ts_node_parent(ts_node_parent(def)), "class_definition")) return {};
    const int name_at = parameter_index(def, facts.text(name), facts);
    if (name_at < 0) return {};
    const int sources_at = is_type(sources, "identifier") ? parameter_index(def, facts.text(sources), facts) : -1;
    const auto it = calls.find(facts.text(field(def, "name")));
    if (it == calls.end()) return {};
    std::vector<HelperBuild> out;
    for (const TSNode c : it->second) {
        if (!is_type(field(c, "function"), "identifier") || contains(def, c)) continue;
        const auto literal = facts.string_value(argument_for(c, facts.text(name), name_at, facts));
        if (!literal || literal->empty()) continue;
        out.push_back({*literal, sources_at >= 0 ? argument_for(c, facts.text(sources), sources_at, facts) : sources, c});
    }
    return out;
}

// An f-string naming a module with values filled in (`f"app.{app}.train"`) as a pattern, each value a
// `*` ("app.*.train"); nullopt for any other argument, or where the first part is not written out.
std::optional<std::string> module_pattern(TSNode arg, const ModuleFacts& facts) {
    if (!is_type(arg, "string")) return std::nullopt;
    std::string pattern;
    bool formatted = false, filled = false;
    for (uint32_t i = 0; i < ts_node_child_count(arg); ++i) {
        const TSNode c = ts_node_child(arg, i);
        const std::string_view type = node_type(c);
        if (type == "string_start") {
            const std::string_view start = facts.text(c);
            formatted = start.find_first_of("fF") != std::string_view::npos;
        } else if (type == "string_content") {
            pattern += facts.text(c);
        } else if (type == "interpolation") {
            pattern += '*';
            filled = true;
        } else if (type != "string_end") {
            return std::nullopt;
        }
    }
    if (!formatted || !filled) return std::nullopt;
    const std::size_t dot = pattern.find('.');
    const std::string head = pattern.substr(0, dot);
    if (head.empty() || head.find('*') != std::string::npos || dot == std::string::npos) return std::nullopt;
    for (char ch : pattern)
        if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '*')) return std::nullopt;
    return pattern;
}

// `cfg.model.type` (or `self.cfg.model.type`): the key path it reads from the object at its root,
// "model.type"; empty for anything else.
std::string config_key_path(TSNode node, const ModuleFacts& facts) {
    std::vector<std::string> parts;
    while (is_type(node, "attribute")) {
        parts.emplace_back(facts.text(field(node, "attribute")));
        node = field(node, "object");
    }
    if (!is_type(node, "identifier") || parts.empty()) return "";
    if (facts.text(node) == "self") parts.pop_back();  // self.cfg.model.type: the object is self.cfg
    std::string path;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) path += (path.empty() ? "" : ".") + *it;
    return path;
}

void add_call(TSNode call, const ModuleFacts& facts, const GuardFinder& guards, const CallSites& calls, bool names_extensions, FileFacts& out) {
    std::string q = facts.qualname(field(call, "function"));
    bool cuda_optional = false;
    // A name bound to CUDAExtension or CppExtension: looked up only in a file that writes one (the
    // bindings of every called name were a tenth of a cold scan).
    if (names_extensions && is_type(field(call, "function"), "identifier") && q.compare(0, kCppExtension.size(), kCppExtension) != 0)
        if (std::string through = extension_through_variable(field(call, "function"), facts, guards, cuda_optional); !through.empty()) q = through;
    const bool via_loader = q.compare(0, kCppExtension.size(), kCppExtension) != 0 && is_extension_loader(call, facts, guards.vocabulary());
    if (via_loader) q = std::string(kCppExtension) + "load";
    if (q == "importlib.import_module") {
        // vjepa2's `importlib.import_module(f"app.{app}.train")`: one of the modules the pattern
        // `app.*.train` names, whichever the run's value picks (ProgramModel::add_edges expands it)
        auto name = module_pattern(positional_argument(call, 0), facts);
        if (!name) name = facts.string_value(positional_argument(call, 0));
        // neuralangelo's `importlib.import_module(cfg.trainer.type)`: whichever module the run's config
        // names at that key (ProgramModel links the configs that hold one)
        std::string config_key;
        if (!name) config_key = config_key_path(positional_argument(call, 0), facts);
        if ((name && !name->empty()) || !config_key.empty()) {
            ImportFact f;
            if (name) {
                f.level = static_cast<int>(name->find_first_not_of('.'));
                f.module = name->substr(static_cast<std::size_t>(f.level));
            }
            f.config_key = config_key;
            const Guard g = guards.guard_of(call);
            f.guard = g.kind;
            f.guard_note = g.note;
            f.line = line_of(call);
            f.lazy = !ts_node_is_null(enclosing(call, {"function_definition"}));
            out.imports.push_back(std::move(f));
        }
        return;
    }
    if (q.compare(0, kCppExtension.size(), kCppExtension) == 0) {
        const std::string kind = q.substr(kCppExtension.size());
        if (kind != "CUDAExtension" && kind != "CppExtension" && kind != "load" && kind != "load_inline") return;
        TSNode sources = keyword_argument(call, "sources", facts);
        if (ts_node_is_null(sources) && kind != "load_inline") sources = positional_argument(call, 1);
        std::vector<HelperBuild> builds;
        if (const auto name = extension_name(call, facts)) builds.push_back({*name, sources, call});
        else builds = builds_through_helper(call, sources, facts, calls);
        for (const HelperBuild& build : builds) {
            ExtensionFact e;
            e.name = build.name;
            // the files a list argument names: a literal list, or a name or comprehension over one
            auto add_files = [&](TSNode list) {
                if (is_type(list, "identifier") || is_type(list, "list_comprehension")) {
                    sources_through_name(list, facts, e.sources);
                    return;
                }
                // a list of paths whose folder is known (`os.path.join(folder, 'file.cpp')`): the paths, not only their literals
                if (is_type(list, "list")) {
                    std::vector<std::string> paths;
                    sources_through_name(list, facts, paths);
                    if (!paths.empty()) {
                        e.sources.insert(e.sources.end(), paths.begin(), paths.end());
                        return;
                    }
                }
                strings_under(list, facts, e.sources);
            };
            add_files(build.sources);
            // a loader's headers are built with the sources: stylegan3's filtered_lrelu.cu, which only
            // `headers=['filtered_lrelu.h', 'filtered_lrelu.cu']` names (the *_wr.cu sources include it)
            if (via_loader) add_files(keyword_argument(call, "headers", facts));
            e.cuda = kind == "CUDAExtension" || !ts_node_is_null(keyword_argument(call, "cuda_sources", facts)) ||
                     std::any_of(e.sources.begin(), e.sources.end(), [](const std::string& s) {
                         return s.size() > 3 && (s.compare(s.size() - 3, 3, ".cu") == 0 || s.compare(s.size() - 4, 4, ".cuh") == 0);
                     });
            e.conditional = guards.guard_of(call).kind != GuardKind::none ||
                            !ts_node_is_null(enclosing(call, {"if_statement", "try_statement", "conditional_expression"}));
            // `CUDAExtension(...) if torch.cuda.is_available() else CppExtension(...)` (SparseConvNet's
            // setup.py): a C++ build where CUDA is missing, as a variable bound both ways is
            if (const TSNode parent = ts_node_parent(call); kind == "CUDAExtension" && is_type(parent, "conditional_expression"))
                for (uint32_t i = 0; i < ts_node_named_child_count(parent); ++i) {
                    const TSNode other = ts_node_named_child(parent, i);
                    cuda_optional = cuda_optional || (!ts_node_eq(other, call) && is_type(other, "call") &&
                                                      facts.qualname(field(other, "function")) == std::string(kCppExtension) + "CppExtension");
                }
            e.cuda_optional = cuda_optional;
            if (kind == "CUDAExtension" || kind == "CppExtension") find_build_switch(call, facts, e);
            e.line = line_of(call);
            if (kind == "load" || kind == "load_inline") {
                TSNode outer{};  // the outermost function around the build, if it is a module-level one
                for (TSNode cur = ts_node_parent(build.site); !ts_node_is_null(cur); cur = ts_node_parent(cur))
                    if (is_type(cur, "function_definition") || is_type(cur, "class_definition")) outer = cur;
                if (is_type(outer, "function_definition")) e.built_in_function = std::string(facts.text(field(outer, "name")));
            }
            out.extensions.push_back(std::move(e));
            if (kind == "load" || kind == "load_inline") {
                // A JIT-built extension is imported where it is loaded; in a function, where that runs
                // (NVlabs' `_init()`, called as `x.device.type == 'cuda' and _init()`).
                ImportFact f;
                f.module = out.extensions.back().name;
                f.line = line_of(build.site);
                const TSNode function = enclosing(build.site, {"function_definition"});
                Guard g = guards.guard_of(build.site);
                // A load in try/except is optional; when every call of its function is also under a guard a
                // Mac never takes (`impl == 'cuda' and x.device.type == 'cuda' and _init()`), that one says
                // more: the Mac never builds it, and the reference path beside it runs.
                if (!ts_node_is_null(function) && !g.mps_aware && (g.kind == GuardKind::none || g.kind == GuardKind::import_fallback)) {
                    const Guard callers = guard_through_callers(function, facts, guards, calls);
                    if (g.kind == GuardKind::none || (callers.kind != GuardKind::none && guard_strength(callers.kind) < guard_strength(g.kind))) g = callers;
                }
                f.guard = g.kind;
                f.guard_note = g.note;
                f.lazy = !ts_node_is_null(function);
                out.imports.push_back(std::move(f));
            }
        }
        return;
    }
    if (q.compare(0, kTorchOps.size(), kTorchOps) == 0) {
        // torch.ops.<ns>.<op>(...) or torch.ops.<ns>.<op>.<overload>(...)
        const std::string rest = q.substr(kTorchOps.size());
        const auto dot = rest.find('.');
        if (dot == std::string::npos || dot == 0) return;
        const std::string op = rest.substr(dot + 1, rest.find('.', dot + 1) - dot - 1);
        if (op.empty()) return;
        const Guard g = guards.guard_of(call);
        out.ops_calls.push_back({rest.substr(0, dot), op, line_of(call), g.kind, g.note});
        return;
    }
    if (q == "setup" || q == "setuptools.setup" || q == "distutils.core.setup") {
        if (auto name = facts.string_value(keyword_argument(call, "name", facts))) out.project_names.push_back(*name);
        std::vector<std::string> packages;
        strings_under(keyword_argument(call, "packages", facts), facts, packages);
        for (auto& p : packages) out.project_names.push_back(p.substr(0, p.find('.')));
        std::vector<std::string> entries;
        strings_under(keyword_argument(call, "entry_points", facts), facts, entries);
        for (const auto& s : entries) {
            // "name = pkg.module:function"
            const auto eq = s.find('=');
            const auto colon = s.find(':', eq == std::string::npos ? 0 : eq);
            if (eq == std::string::npos || colon == std::string::npos) continue;
            std::string module = s.substr(eq + 1, colon - eq - 1);
            module.erase(0, module.find_first_not_of(' '));
            module.erase(module.find_last_not_of(' ') + 1);
            if (!module.empty()) out.entry_refs.push_back({module, true, line_of(call)});
        }
    }
}

// The strings of a list or tuple literal, of `list(NAME)`, or of a module-level NAME bound once to
// one; nullopt when any element is not a string literal.
std::optional<std::vector<std::string>> literal_strings(TSNode value, const ModuleFacts& facts) {
    if (is_type(value, "call") && facts.text(field(value, "function")) == "list") {
        TSNode args = field(value, "arguments");
        if (ts_node_named_child_count(args) != 1) return std::nullopt;
        value = ts_node_named_child(args, 0);
    }
    if (is_type(value, "identifier")) value = facts.module_binding(facts.text(value));
    if (!is_type(value, "list") && !is_type(value, "tuple")) return std::nullopt;
    std::vector<std::string> out;
    for (uint32_t i = 0; i < ts_node_named_child_count(value); ++i) {
        TSNode item = ts_node_named_child(value, i);
        if (is_type(item, "comment")) continue;
        auto s = string_literal(item, facts.source());
        if (!s) return std::nullopt;
        out.push_back(*s);
    }
    return out;
}

// Module-level functions that return where CUDA is missing (a conftest's collect_ignore_glob helper).
void add_returns_without_cuda(TSNode root, const ModuleFacts& facts, const GuardFinder& guards, FileFacts& out) {
    for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
        TSNode def = ts_node_named_child(root, i);
        if (is_type(def, "decorated_definition")) def = field(def, "definition");
        if (!is_type(def, "function_definition")) continue;
        const std::string name(facts.text(field(def, "name")));
        for_each_node(field(def, "body"), [&](TSNode node) {
            if (!is_type(node, "return_statement") || (!out.returns_without_cuda.empty() && out.returns_without_cuda.back().function == name)) return;
            const auto condition = guards.without_cuda(node);
            if (!condition) return;
            ReturnWithoutCuda r{name, line_of(node), *condition, {}};
            const TSNode value = ts_node_named_child_count(node) == 1 ? ts_node_named_child(node, 0) : TSNode{};
            if (!ts_node_is_null(value)) r.strings = literal_strings(value, facts).value_or(std::vector<std::string>());
            r.falsy = ts_node_is_null(value) || is_type(value, "none") || is_type(value, "false") || (is_type(value, "integer") && facts.text(value) == "0");
            out.returns_without_cuda.push_back(std::move(r));
        });
    }
}

// Tests whose skip decorator compares what a function returns (`@pytest.mark.skipif(available_gpus()
// < 4)`) and names no device itself: module-level functions and classes, and the methods of classes.
void add_helper_skips(TSNode root, const ModuleFacts& facts, const GuardFinder& guards, FileFacts& out) {
    std::function<void(TSNode, int)> walk = [&](TSNode block, int depth) {
        for (uint32_t i = 0; i < ts_node_named_child_count(block); ++i) {
            const TSNode stmt = ts_node_named_child(block, i);
            const TSNode def = is_type(stmt, "decorated_definition") ? field(stmt, "definition") : stmt;
            if (is_type(stmt, "decorated_definition"))
                for (uint32_t k = 0; k < ts_node_named_child_count(stmt); ++k) {
                    // `@skip_if_single_gpu`, imported: the file that binds it may make it a skip
                    const TSNode decorator = ts_node_named_child(stmt, k);
                    if (!is_type(decorator, "decorator")) continue;
                    const TSNode e = ts_node_named_child(decorator, 0);
                    TSNode head = e;
                    while (is_type(head, "attribute")) head = field(head, "object");
                    // (a library's, `@dataclass`, `@torch.jit.script`, is found in no file of the repository)
                    if ((!is_type(e, "identifier") && !is_type(e, "attribute")) || !is_type(head, "identifier") || guards.is_skip_decorator(e) ||
                        !facts.is_imported(facts.text(head)))
                        continue;
                    out.helper_skips.push_back({line_of(decorator), static_cast<int>(ts_node_end_point(stmt).row) + 1,
                                                one_line(facts.text(decorator), 121), std::string(facts.text(e)), true});
                }
            if (is_type(stmt, "decorated_definition"))
                for (TSNode condition : guards.unread_skip_conditions(stmt)) {
                    const TSNode decorator = enclosing(condition, {"decorator"});
                    for_each_node(condition, [&](TSNode call) {
                        if (!is_type(call, "call")) return;
                        const TSNode fn = field(call, "function");
                        if (!is_type(fn, "identifier") && !is_type(fn, "attribute")) return;
                        out.helper_skips.push_back({line_of(decorator), static_cast<int>(ts_node_end_point(stmt).row) + 1,
                                                    one_line(facts.text(decorator), 121), std::string(facts.text(fn))});
                    });
                }
            if (depth == 0 && is_type(def, "class_definition")) walk(field(def, "body"), 1);
        }
    };
    walk(root, 0);
}

// Module-level names bound to a skip decorator that reads as a test skip on a Mac.
void add_skip_aliases(TSNode root, const ModuleFacts& facts, const GuardFinder& guards, FileFacts& out) {
    for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
        const TSNode stmt = ts_node_named_child(root, i);
        if (!is_type(stmt, "expression_statement")) continue;
        const TSNode a = ts_node_named_child(stmt, 0);
        if (!is_type(a, "assignment")) continue;
        const TSNode left = field(a, "left");
        const TSNode right = field(a, "right");
        if (!is_type(left, "identifier") || !is_type(right, "call") || !guards.reads_as_skip(right)) continue;
        out.skip_aliases.push_back({std::string(facts.text(left)), line_of(stmt), one_line(facts.text(right), 121)});
    }
}

// Module-level functions with a `device` or `map_location` parameter whose default is "cpu".
// A folder named by a path expression, relative to the file's own folder ("core", "..",
// "../lib"), or nullopt when the expression is not one of the usual spellings. The working directory
// counts as the file's folder: `python train.py` is run from where train.py lies.
//   'core'  os.getcwd()  __file__ (a file in the folder)  os.path.dirname(E)  os.path.join(E, 'x', ...)
//   os.path.abspath(E)  os.path.realpath(E)  os.path.normpath(E)  str(E)  Path(E)  E.parent  E.resolve()
//   E / 'x'
std::optional<std::string> folder_of_expression(TSNode e, const ModuleFacts& facts, int depth = 0) {
    static const std::string kFile = "\x01";  // __file__: a file in the folder
    if (depth > 8 || ts_node_is_null(e)) return std::nullopt;
    // Written as segments, not normalised (the program model does that against the file's folder):
    // the folder of E is E/.. for a folder, the file's own folder for __file__.
    auto up = [](const std::string& p) { return p == kFile ? std::string(".") : p + "/.."; };
    auto join = [](const std::string& a, const std::string& b) -> std::optional<std::string> {
        if (!b.empty() && b[0] == '/') return std::nullopt;  // absolute: not in the repository
        return (a == kFile ? std::string(".") : a) + "/" + b;
    };
    const std::string_view type = node_type(e);
    if (type == "string") {
        const auto value = string_literal(e, facts.source());
        if (!value) return std::nullopt;
        return join(".", *value);
    }
    if (type == "identifier") {
        if (facts.text(e) == "__file__") return kFile;
        return std::nullopt;
    }
    if (type == "parenthesized_expression") return folder_of_expression(ts_node_named_child(e, 0), facts, depth + 1);
    if (type == "attribute") {  // Path(__file__).parent
        if (facts.text(field(e, "attribute")) != "parent") return std::nullopt;
        const auto inner = folder_of_expression(field(e, "object"), facts, depth + 1);
        return inner ? std::optional<std::string>(up(*inner)) : std::nullopt;
    }
    if (type == "binary_operator") {  // Path(x) / "lib"
        if (facts.text(field(e, "operator")) != "/") return std::nullopt;
        const auto left = folder_of_expression(field(e, "left"), facts, depth + 1);
        const auto right = string_literal(field(e, "right"), facts.source());
        return left && right ? join(*left, *right) : std::nullopt;
    }
    if (type != "call") return std::nullopt;
    const TSNode fn = field(e, "function");
    const TSNode args = field(e, "arguments");
    std::vector<TSNode> positional;
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); ++i) {
        const TSNode a = ts_node_named_child(args, i);
        if (is_type(a, "keyword_argument") || is_type(a, "comment")) continue;
        positional.push_back(a);
    }
    if (is_type(fn, "attribute") && positional.empty() && facts.text(field(fn, "attribute")) == "resolve")
        return folder_of_expression(field(fn, "object"), facts, depth + 1);
    const std::string name = facts.qualname(fn);
    const std::string_view last = last_segment(name);
    if (name == "os.getcwd" && positional.empty()) return std::string(".");
    if (positional.empty()) return std::nullopt;
    if (name == "os.path.dirname") {
        const auto inner = folder_of_expression(positional[0], facts, depth + 1);
        return inner ? std::optional<std::string>(up(*inner)) : std::nullopt;
    }
    if (name == "os.path.join") {
        auto acc = folder_of_expression(positional[0], facts, depth + 1);
        for (std::size_t i = 1; acc && i < positional.size(); ++i) {
            const auto part = string_literal(positional[i], facts.source());
            if (!part) return std::nullopt;
            acc = join(*acc, *part);
        }
        return acc;
    }
    if (name == "os.path.abspath" || name == "os.path.realpath" || name == "os.path.normpath" || name == "str" || last == "Path")
        if (positional.size() == 1) return folder_of_expression(positional[0], facts, depth + 1);
    return std::nullopt;
}

// `sys.path.append('core')`, `sys.path.insert(0, os.path.join(os.path.dirname(__file__), 'lib'))`
// outside any function: RAFT's train.py then imports `from raft import RAFT` from core/raft.py.
void add_sys_path_folders(TSNode root, const ModuleFacts& facts, FileFacts& out) {
    if (facts.source().find("sys.path") == std::string_view::npos) return;
    for_each_node(root, [&](TSNode n) {
        if (!is_type(n, "call") || !ts_node_is_null(enclosing(n, {"function_definition", "class_definition"}))) return;
        const std::string name = facts.qualname(field(n, "function"));
        const bool append = name == "sys.path.append";
        if (!append && name != "sys.path.insert") return;
        const TSNode arg = positional_argument(n, append ? 0 : 1);
        const auto folder = folder_of_expression(arg, facts);
        if (!folder || *folder == "\x01") return;
        if (std::find(out.sys_path_folders.begin(), out.sys_path_folders.end(), *folder) == out.sys_path_folders.end())
            out.sys_path_folders.push_back(*folder);
    });
}

void add_cpu_default_functions(TSNode root, const ModuleFacts& facts, FileFacts& out) {
    for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
        TSNode def = ts_node_named_child(root, i);
        if (is_type(def, "decorated_definition")) def = field(def, "definition");
        if (!is_type(def, "function_definition")) continue;
        for_each_parameter(def, 0, [&](TSNode p, int position) {
            if (!is_type(p, "default_parameter") && !is_type(p, "typed_default_parameter")) return;
            const std::string_view name = facts.text(field(p, "name"));
            const auto value = facts.string_value(field(p, "value"));
            if ((name == "device" || name == "map_location") && value && *value == "cpu")
                out.cpu_default_functions.push_back({std::string(facts.text(field(def, "name"))), std::string(name), position, line_of(def)});
        });
    }
}

// What keeps tests from running without CUDA (rules/program.yaml fixture_decorators,
// collect_ignore_names): an autouse fixture that skips under a CUDA check; the files of
// collect_ignore / collect_ignore_glob set under one, or from a helper that returns them without CUDA.
void add_collect_skips(TSNode root, const ModuleFacts& facts, const GuardFinder& guards, FileFacts& out) {
    const GuardVocabulary& vocab = guards.vocabulary();
    auto autouse_fixture = [&](TSNode decorated) {
        for (uint32_t i = 0; i < ts_node_named_child_count(decorated); ++i) {
            TSNode dec = ts_node_named_child(decorated, i);
            if (!is_type(dec, "decorator")) continue;
            TSNode call = ts_node_named_child(dec, 0);
            if (!is_type(call, "call") || !listed(vocab.fixture_decorators, facts.qualname(field(call, "function")))) continue;
            TSNode autouse = keyword_argument(call, "autouse", facts);
            if (!ts_node_is_null(autouse) && facts.text(autouse) == "True") return true;
        }
        return false;
    };
    // A list's strings, added to collect_ignore(_glob) by `name = ...`, `name += ...`, `.append`, `.extend`.
    auto ignored_list = [&](TSNode expr, std::string& via) -> std::optional<std::vector<std::string>> {
        TSNode value{};
        if ((is_type(expr, "assignment") || is_type(expr, "augmented_assignment")) &&
            listed(vocab.collect_ignore_names, facts.text(field(expr, "left")))) {
            value = field(expr, "right");
        } else if (is_type(expr, "call") && is_type(field(expr, "function"), "attribute")) {
            TSNode fn = field(expr, "function");
            const std::string_view method = facts.text(field(fn, "attribute"));
            if (!listed(vocab.collect_ignore_names, facts.text(field(fn, "object"))) || (method != "append" && method != "extend")) return std::nullopt;
            value = positional_argument(expr, 0);
            if (method == "append") {
                auto s = string_literal(value, facts.source());
                return s ? std::optional(std::vector<std::string>{*s}) : std::nullopt;
            }
        } else {
            return std::nullopt;
        }
        if (auto strings = literal_strings(value, facts)) return strings;
        if (is_type(value, "call")) {
            via = std::string(facts.text(field(value, "function")));
            if (!via.empty()) return std::vector<std::string>();
        }
        return std::nullopt;
    };
    std::function<void(TSNode)> walk = [&](TSNode block) {
        for (uint32_t i = 0; i < ts_node_named_child_count(block); ++i) {
            TSNode stmt = ts_node_named_child(block, i);
            if (is_type(stmt, "decorated_definition") && autouse_fixture(stmt)) {
                TSNode def = field(stmt, "definition");
                for_each_node(field(def, "body"), [&](TSNode node) {
                    if (!is_type(node, "call") || !guards.is_skip_call(node)) return;
                    const auto condition = guards.without_cuda(node);
                    if (!condition || (!out.collect_skips.empty() && out.collect_skips.back().line == line_of(stmt))) return;
                    out.collect_skips.push_back({line_of(stmt), "autouse fixture " + std::string(facts.text(field(def, "name"))) + "() skips under `" + *condition + "`", {}, "", true});
                });
            } else if (is_type(stmt, "if_statement") || is_type(stmt, "try_statement") || is_type(stmt, "block") ||
                       is_type(stmt, "elif_clause") || is_type(stmt, "else_clause") || is_type(stmt, "except_clause")) {
                walk(stmt);
            } else if (is_type(stmt, "expression_statement")) {
                TSNode expr = ts_node_named_child(stmt, 0);
                std::string via;
                auto strings = ignored_list(expr, via);
                if (!strings || (strings->empty() && via.empty())) continue;
                CollectSkip skip{line_of(stmt), one_line(facts.text(stmt), 121), *strings, via};
                if (via.empty()) {
                    // Literal files: they matter only where CUDA is missing (`collect_ignore = ["setup.py"]` does not).
                    const auto condition = guards.without_cuda(stmt);
                    if (!condition) continue;
                    skip.note += " under `" + *condition + "`";
                }
                out.collect_skips.push_back(std::move(skip));
            }
        }
    };
    walk(root);
}

// `{"target": "pkg.mod.Class", "params": {...}}` in the code (AudioLDM's default config, a dict
// literal handed to instantiate_from_config; `dict(_target_="pkg.mod.Class")` too): the module the
// dotted path names is imported when the object is built, on demand, as from a YAML config.
void add_target_strings(TSNode root, const ModuleFacts& facts, const GuardFinder& guards, const std::vector<std::string>& keys, FileFacts& out) {
    // as written in a dict or a call, not the bare word, which most training scripts hold (a loss's
    // target): the walk below is the whole tree
    const std::string_view text = facts.source();
    const auto literals = target_key_literals(keys);
    if (std::none_of(literals.begin(), literals.end(), [&](const std::string& l) { return text.find(l) != std::string_view::npos; })) return;
    for_each_node(root, [&](TSNode n) {
        TSNode value;
        if (is_type(n, "pair")) {
            const auto key = facts.string_value(field(n, "key"));
            if (!key || std::find(keys.begin(), keys.end(), *key) == keys.end()) return;
            value = field(n, "value");
        } else if (is_type(n, "keyword_argument")) {
            if (std::find(keys.begin(), keys.end(), facts.text(field(n, "name"))) == keys.end()) return;
            value = field(n, "value");
        } else {
            return;
        }
        const auto dotted = facts.string_value(value);
        if (!dotted) return;
        // a dotted path of names, each starting with a letter or `_` (not "0.5", "cuda:0" or "a..b")
        const std::size_t dot = dotted->rfind('.');
        if (dot == std::string::npos || !std::all_of(dotted->begin(), dotted->end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '.'; }))
            return;
        for (std::size_t at = 0; at <= dotted->size(); at = dotted->find('.', at) + 1) {
            if (at == dotted->size() || !(std::isalpha(static_cast<unsigned char>((*dotted)[at])) || (*dotted)[at] == '_')) return;
            if (dotted->find('.', at) == std::string::npos) break;
        }
        ImportFact f;
        f.module = dotted->substr(0, dot);
        f.names = {dotted->substr(dot + 1)};
        f.line = line_of(n);
        const Guard g = guards.guard_of(n);
        f.guard = g.kind;
        f.guard_note = g.note;
        f.lazy = true;  // built when the code instantiates the config, not when this module loads
        f.in_string = true;
        out.imports.push_back(std::move(f));
    });
}

}  // namespace

std::vector<std::string> target_key_literals(const std::vector<std::string>& target_keys) {
    std::vector<std::string> out;
    for (const auto& key : target_keys) {
        out.push_back("\"" + key + "\"");
        out.push_back("'" + key + "'");
        out.push_back(key + "=");
    }
    return out;
}

const std::vector<std::string>& program_fact_literals() {
    // "    import " / "    from ": an indented (lazy) import, whose function must be parsed too.
    // "='cpu'" and the like: a parameter that defaults to the CPU (FileFacts::cpu_default_functions).
    static const std::vector<std::string> literals = {"import",  "__main__", "Extension", "load(",        "load_inline", "setup(",
                                                      "skip",    "environ",  "is_cuda",   "import_module", "    import ", "    from ",
                                                      "torch.ops.", "collect_ignore", "autouse", "sys.path", "='cpu'", "=\"cpu\"", "= 'cpu'", "= \"cpu\"",
                                                      "trust_remote_code"};
    return literals;
}

FileFacts extract_program_facts(TSNode root, const ModuleFacts& facts, const GuardFinder& guards, const std::vector<std::string>& target_keys) {
    FileFacts out;
    CallSites calls;
    const uint32_t n = ts_node_named_child_count(root);
    for (uint32_t i = 0; i < n; ++i) {
        TSNode stmt = ts_node_named_child(root, i);
        if (is_type(stmt, "if_statement") && is_main_guard(stmt, facts)) {
            out.script = true;
            out.script_line = line_of(stmt);
            out.script_end_line = static_cast<int>(ts_node_end_point(stmt).row) + 1;
        }
    }
    // The calls matter for importlib, extensions, setup() and the callers of lazy imports only.
    const std::string_view text = facts.source();
    bool want_calls = std::any_of(facts.imports().begin(), facts.imports().end(),
                                  [](TSNode imp) { return !ts_node_is_null(enclosing(imp, {"function_definition"})); });
    for (std::string_view literal : {"import_module", "Extension", "load(", "load_inline", "setup(", "torch.ops."})
        want_calls = want_calls || text.find(literal) != std::string_view::npos;
    for (const auto& loader : guards.vocabulary().extension_loaders) want_calls = want_calls || text.find(loader + "(") != std::string_view::npos;
    if (want_calls) {
        // indexed first: a load in a function takes the guard of that function's calls
        std::vector<TSNode> all_calls;
        for_each_node(root, [&](TSNode node) {
            if (!is_type(node, "call")) return;
            index_call(node, facts, calls);
            all_calls.push_back(node);
        });
        const bool names_extensions = text.find("Extension") != std::string_view::npos;
        for (TSNode call : all_calls) add_call(call, facts, guards, calls, names_extensions, out);
    }
    // Imports after the calls are known; importlib and load() imports came from the walk above.
    std::vector<ImportFact> call_imports = std::move(out.imports);
    out.imports.clear();
    for (TSNode imp : facts.imports()) add_import(imp, facts, guards, calls, out);
    out.imports.insert(out.imports.end(), call_imports.begin(), call_imports.end());
    add_target_strings(root, facts, guards, target_keys, out);
    out.file_guard = guards.file_guard().kind;
    add_returns_without_cuda(root, facts, guards, out);
    add_cpu_default_functions(root, facts, out);
    add_collect_skips(root, facts, guards, out);
    add_helper_skips(root, facts, guards, out);
    add_skip_aliases(root, facts, guards, out);
    add_sys_path_folders(root, facts, out);
    if (text.find("trust_remote_code") != std::string_view::npos)
        for_each_node(root, [&](TSNode node) {
            if (out.remote_code_line == 0 && is_type(node, "keyword_argument") && facts.text(field(node, "name")) == "trust_remote_code" &&
                is_type(field(node, "value"), "true"))
                out.remote_code_line = line_of(node);
        });
    return out;
}

std::vector<ImportedCall> calls_through_imports(TSNode root, const ModuleFacts& facts, const GuardFinder& guards,
                                               const std::set<int>& import_lines) {
    // The names the chosen imports bind, and how the import spells what each stands for.
    std::map<std::string, std::pair<int, std::string>, std::less<>> bound;  // local name -> (import line, dotted)
    for (TSNode imp : facts.imports()) {
        const int line = line_of(imp);
        if (!import_lines.count(line)) continue;
        const bool from = is_type(imp, "import_from_statement");
        const std::string module = from ? from_module(imp, facts).value_or(std::make_pair(std::string(), 0)).first : std::string();
        for (uint32_t i = 0; i < ts_node_named_child_count(imp); ++i) {
            TSNode c = ts_node_named_child(imp, i);
            if (from && ts_node_start_byte(c) == ts_node_start_byte(field(imp, "module_name"))) continue;
            const bool aliased = is_type(c, "aliased_import");
            TSNode name = aliased ? field(c, "name") : c;
            if (!is_type(name, "dotted_name")) continue;
            const std::string written(facts.text(name));
            if (from) {
                bound[aliased ? std::string(facts.text(field(c, "alias"))) : written] = {line, module.empty() ? written : module + "." + written};
            } else if (aliased) {
                bound[std::string(facts.text(field(c, "alias")))] = {line, written};
            } else {
                const std::string head = written.substr(0, written.find('.'));
                bound[head] = {line, head};
            }
        }
    }
    // A JIT build binds the module it loads: `upfirdn2d_op = load("upfirdn2d", sources=[...])`, and so
    // does a loader's, in a function that declares the name global (NVlabs' `_plugin = get_plugin(...)`
    // in `_init()`).
    for_each_node(root, [&](TSNode n) {
        if (!is_type(n, "assignment") || !is_type(field(n, "left"), "identifier")) return;
        const TSNode call = field(n, "right");
        if (!is_type(call, "call") || !import_lines.count(line_of(call))) return;
        const std::string q = facts.qualname(field(call, "function"));
        // and so does `attn = importlib.import_module("attn_core_inplace_cuda")` (openfold)
        if (q == "importlib.import_module") {
            if (const auto name = facts.string_value(positional_argument(call, 0)); name && !name->empty() && name->front() != '.')
                bound[std::string(facts.text(field(n, "left")))] = {line_of(call), *name};
            return;
        }
        if (q != std::string(kCppExtension) + "load" && q != std::string(kCppExtension) + "load_inline" &&
            !is_extension_loader(call, facts, guards.vocabulary()))
            return;
        if (const auto name = extension_name(call, facts)) bound[std::string(facts.text(field(n, "left")))] = {line_of(call), *name};
    });
    std::vector<ImportedCall> out;
    if (bound.empty()) return out;
    std::map<std::string, int, std::less<>> identifiers;  // how often each name is written in the file
    CallSites by_name;  // every call by its name: the callers of the function a call through an import sits in
    for_each_node(root, [&](TSNode n) {
        if (is_type(n, "call")) index_call(n, facts, by_name);
        if (!is_type(n, "identifier")) return;
        const TSNode parent = ts_node_parent(n);  // `x.name` writes `name` as an attribute, not a use of it
        if (is_type(parent, "attribute") && ts_node_start_byte(field(parent, "attribute")) == ts_node_start_byte(n)) return;
        ++identifiers[std::string(facts.text(n))];
    });
    // `attention_core = AttentionCoreFunction.apply` at module level: the name the callers use.
    std::map<std::string, std::string, std::less<>> apply_alias;  // class -> alias
    for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
        const TSNode stmt = ts_node_named_child(root, i);
        const TSNode a = is_type(stmt, "expression_statement") ? ts_node_named_child(stmt, 0) : TSNode{};
        if (!is_type(a, "assignment") || !is_type(field(a, "left"), "identifier")) continue;
        const TSNode right = field(a, "right");
        if (is_type(right, "attribute") && facts.text(field(right, "attribute")) == "apply" && is_type(field(right, "object"), "identifier"))
            apply_alias.emplace(std::string(facts.text(field(right, "object"))), std::string(facts.text(field(a, "left"))));
    }
    // The module-level function around a node: its name, "" at module level or inside a class; for
    // a method of a module-level torch.autograd.Function subclass, the class, which the code runs
    // as `Class.apply(...)` (the usual wrapper of an extension's forward and backward), or the name
    // bound to `Class.apply` where the module binds one.
    auto module_function = [&](TSNode n) -> std::string {
        std::string name;
        for (TSNode cur = ts_node_parent(n); !ts_node_is_null(cur); cur = ts_node_parent(cur)) {
            if (is_type(cur, "class_definition")) name.clear();
            if (is_type(cur, "function_definition")) name = std::string(facts.text(field(cur, "name")));
            if (is_type(cur, "class_definition") && is_type(ts_node_parent(cur), "module")) {
                const TSNode bases = field(cur, "superclasses");
                bool autograd = false;
                for (uint32_t i = 0; !ts_node_is_null(bases) && i < ts_node_named_child_count(bases); ++i) {
                    const std::string q = facts.qualname(ts_node_named_child(bases, i));
                    autograd = autograd || q == "torch.autograd.Function" || q == "torch.autograd.function.Function";
                }
                if (!autograd) return std::string();
                const std::string cls(facts.text(field(cur, "name")));
                const auto alias = apply_alias.find(cls);
                return alias != apply_alias.end() ? alias->second : cls;
            }
        }
        return name;
    };
    for_each_node(root, [&](TSNode call) {
        if (!is_type(call, "call")) return;
        std::string suffix;
        TSNode cur = field(call, "function");
        while (is_type(cur, "attribute")) {
            suffix = "." + std::string(facts.text(field(cur, "attribute"))) + suffix;
            cur = field(cur, "object");
        }
        if (!is_type(cur, "identifier")) return;
        auto it = bound.find(facts.text(cur));
        if (it == bound.end()) return;
        Guard g = guards.guard_of(call);
        // As for a lazy import: a call in a function every caller in this file guards (sam2's
        // get_connected_components(), called only under try/except with a fallback) is as guarded.
        const TSNode function = enclosing(call, {"function_definition"});
        if (g.kind == GuardKind::none && !g.mps_aware && !ts_node_is_null(function)) g = guard_through_callers(function, facts, guards, by_name);
        ImportedCall c{it->second.first, it->second.second + suffix, line_of(call), g.kind, g.note, {}, false, false};
        c.function = module_function(call);
        const auto seen = identifiers.find(c.function);
        c.function_used_here = !c.function.empty() && seen != identifiers.end() && seen->second > 1;  // more than its def
        // at module level, and not in the `if __name__ == "__main__":` block (which an import does not run)
        c.module_level = ts_node_is_null(enclosing(call, {"function_definition", "lambda"}));
        for (TSNode up = ts_node_parent(call); c.module_level && !ts_node_is_null(up); up = ts_node_parent(up))
            if (is_type(up, "if_statement") && is_main_guard(up, facts)) c.module_level = false;
        out.push_back(std::move(c));
    });
    return out;
}

}  // namespace mpsport::python

namespace mpsport::python {
namespace {

}  // namespace

namespace {

// What a call passes: keyword names, the count of positional arguments, and *args / **kwargs.
void record_arguments(TSNode call, const ModuleFacts& facts, FunctionUses::Call& c) {
    PassedArguments passed = passed_arguments(call, facts);
    c.keywords = std::move(passed.keywords);
    c.positional = passed.positional;
    c.spread = passed.spread;
}

// The parameters of `def` (a function_definition) whose defaults span `line`: name, position (self
// counted) or -1 past a `*` or `*args` (keyword only), and where the default is.
// `skipped`: leading parameters no call writes (a constructor's self).
void parameter_defaults_at(TSNode def, int line, const ModuleFacts& facts, std::vector<FunctionUses::ParameterDefault>& out, int skipped) {
    for_each_parameter(def, skipped, [&](TSNode p, int position) {
        if (!is_type(p, "default_parameter") && !is_type(p, "typed_default_parameter")) return;
        const TSNode value = field(p, "value");
        if (ts_node_is_null(value)) return;
        const TSPoint start = ts_node_start_point(value), end = ts_node_end_point(value);
        const int first = static_cast<int>(start.row) + 1, last = static_cast<int>(end.row) + 1;
        const bool known = std::any_of(out.begin(), out.end(), [&](const auto& d) { return d.line == first && d.col == static_cast<int>(start.column) + 1; });
        if (line >= first && line <= last && !known)
            out.push_back({std::string(facts.text(field(p, "name"))), position, first, static_cast<int>(start.column) + 1, last,
                           static_cast<int>(end.column) + 1});
    });
}

}  // namespace

namespace {

// The branch of its function in which `name` (whose parent is `parent`) is the whole value of a
// `return` or of a plain assignment (`return generate_stream_exllama`, `fn = generate_stream_exllama`):
// the function is chosen there. nullopt for any other use, or one outside a branch.
std::optional<std::string> selected_in_branch(TSNode name, TSNode parent, const ModuleFacts& facts) {
    const bool returned = is_type(parent, "return_statement") && ts_node_named_child_count(parent) == 1;
    const bool assigned = is_type(parent, "assignment") && ts_node_eq(field(parent, "right"), name) &&
                          (is_type(field(parent, "left"), "identifier") || is_type(field(parent, "left"), "attribute"));
    if (!returned && !assigned) return std::nullopt;
    auto branch = branch_in_function(parent, facts);
    if (!branch || branch->empty()) return std::nullopt;
    return branch;
}

}  // namespace

FunctionUses uses_of_functions(TSNode root, const ModuleFacts& facts, const GuardFinder& guards, const std::set<std::string>& names,
                               const std::string& module, const std::string& importer, bool defining, const std::set<int>& lines) {
    FunctionUses out;
    // A callee in guards.registry_calls (`registry.register(...)`, `@norms.register_class(...)`):
    // what it is handed is stored for a name a config picks, chosen there, not called.
    auto registers = [&](TSNode callee) { return listed(guards.vocabulary().registry_calls, last_segment(facts.text(callee))); };
    if (defining) {
        // The module-level function each line sits in; in a method of a module-level class, the
        // method's name after a dot (".prepare_distributed"). A decorated one is "": a decorator may
        // register it, or make it a property.
        // A decorator that only wraps (rules/program.yaml transparent_decorators: @contextmanager,
        // @staticmethod) leaves the function's calls its calls: DALLE2's one_unet_in_gpu().
        auto transparent = [&](TSNode decorated) {
            const auto decorators = decorator_names(decorated, facts);
            return std::all_of(decorators.begin(), decorators.end(), [&](std::string_view n) { return listed(guards.vocabulary().transparent_decorators, n); });
        };
        // A decorator that hands the definition to a registry (rules/program.yaml registry_calls:
        // llm-foundry's `@norms.register_class('triton_rmsnorm')`) stores it for a name a config picks:
        // the definition is chosen there, not called, as `registry.register('flash', func=f)` chooses f.
        auto registered_by = [&](TSNode decorated) -> std::string {
            for (uint32_t k = 0; k < ts_node_named_child_count(decorated); ++k) {
                const TSNode d = ts_node_named_child(decorated, k);
                if (!is_type(d, "decorator") || ts_node_named_child_count(d) == 0) continue;
                TSNode e = ts_node_named_child(d, 0);
                if (is_type(e, "call")) e = field(e, "function");
                if (registers(e)) return one_line(facts.text(d), 60);
            }
            return {};
        };
        auto select_registered = [&](TSNode decorated) {
            const std::string by = registered_by(decorated);
            if (by.empty()) return false;
            FunctionUses::Call& c = out.selections.emplace_back();
            c.name = facts.text(field(field(decorated, "definition"), "name"));
            c.line = line_of(decorated);
            c.branch = FunctionUses::kRegisteredBy + by;
            return true;
        };
        // A class's __init__ runs where the class is called: it goes by the class's name, as a
        // function would, its parameters after self (consistency_models' QKVFlashAttention, built only
        // in one arm of `if attention_type == "flash":`).
        // The class being walked: its span, and whether it may be registered where no call shows.
        std::pair<int, int> class_span{0, 0};
        bool class_registered = false;
        auto mark = [&](TSNode stmt, const std::string& prefix, const std::string& constructed) {
            const bool registered = constructed.empty() && is_type(stmt, "decorated_definition") &&
                                    is_type(field(stmt, "definition"), "function_definition") && select_registered(stmt);
            const bool decorated = is_type(stmt, "decorated_definition") && !transparent(stmt) && !registered;
            const TSNode def = is_type(stmt, "decorated_definition") ? field(stmt, "definition") : stmt;
            if (!is_type(def, "function_definition")) return false;
            const bool init = !constructed.empty() && facts.text(field(def, "name")) == "__init__";
            const int first = line_of(stmt), last = static_cast<int>(ts_node_end_point(stmt).row) + 1;
            for (auto it = lines.lower_bound(first); it != lines.end() && *it <= last; ++it) {
                const std::string name = decorated ? std::string() : init ? constructed : prefix + std::string(facts.text(field(def, "name")));
                out.function_at[*it] = name;
                if (decorated) continue;
                if (init) out.classes.insert(constructed);
                parameter_defaults_at(def, *it, facts, out.parameter_defaults, init ? 1 : 0);
                if (constructed.empty()) out.spans[name] = {first, last};
                else if (!class_registered) {
                    out.spans[constructed] = class_span;
                    if (!init) out.class_at[*it] = constructed;
                }
            }
            return true;
        };
        // A field of a dataclass or an attrs class is a parameter of its constructor: by keyword, and by
        // its place among the fields (`position`, -1 when not known) for glide-text2im's
        // `AttentionResblock(self.n_state, self.n_resblocks, self.attn_fn, self.device)`. Returns whether
        // the statement is a constructor field at all (a ClassVar, or init=False, is not).
        auto mark_field = [&](TSNode stmt, const std::string& constructed, int position) {
            const TSNode assign = is_type(stmt, "expression_statement") ? ts_node_named_child(stmt, 0) : TSNode{};
            if (!is_type(assign, "assignment") || !is_type(field(assign, "left"), "identifier") || ts_node_is_null(field(assign, "type"))) return false;
            if (facts.text(field(assign, "type")).find("ClassVar") != std::string_view::npos) return false;
            TSNode value = field(assign, "right");
            if (is_type(value, "call")) {  // attr.ib(default=...), field(default=...)
                const TSNode no_init = keyword_argument(value, "init", facts);
                if (!ts_node_is_null(no_init) && facts.text(no_init) == "False") return false;
                const TSNode d = keyword_argument(value, "default", facts);
                if (!ts_node_is_null(d)) value = d;
            }
            if (ts_node_is_null(value)) return true;
            const TSPoint start = ts_node_start_point(value), end = ts_node_end_point(value);
            const int first = static_cast<int>(start.row) + 1, last = static_cast<int>(end.row) + 1;
            bool any = false;
            for (auto it = lines.lower_bound(first); it != lines.end() && *it <= last; ++it) out.function_at[*it] = constructed, any = true;
            if (any) {
                out.classes.insert(constructed);
                out.parameter_defaults.push_back({std::string(facts.text(field(assign, "left"))), position, first, static_cast<int>(start.column) + 1,
                                                  last, static_cast<int>(end.column) + 1});
            }
            return true;
        };
        // The fields' places are the constructor's only when no base class brings fields of its own
        // (torch's Module and object bring none) and no field is keyword-only.
        auto fields_by_position = [&](TSNode decorated, TSNode cls) {
            const std::string_view text = facts.text(decorated);  // the decorators and the class
            if (text.find("kw_only") != std::string_view::npos || text.find("KW_ONLY") != std::string_view::npos) return false;
            const TSNode bases = field(cls, "superclasses");
            for (uint32_t k = 0; !ts_node_is_null(bases) && k < ts_node_named_child_count(bases); ++k) {
                const std::string_view base = facts.text(ts_node_named_child(bases, k));
                if (base != "object" && base != "Module" && base != "nn.Module" && base != "torch.nn.Module") return false;
            }
            return true;
        };
        auto field_class = [&](TSNode decorated) {
            const auto decorators = decorator_names(decorated, facts);
            return std::any_of(decorators.begin(), decorators.end(), [&](std::string_view n) { return listed(guards.vocabulary().field_class_decorators, n); });
        };
        // The module-level classes of the file: a base among them is the file's own
        std::set<std::string, std::less<>> own_classes;
        for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
            TSNode stmt = ts_node_named_child(root, i);
            if (is_type(stmt, "decorated_definition")) stmt = field(stmt, "definition");
            if (is_type(stmt, "class_definition")) own_classes.emplace(facts.text(field(stmt, "name")));
        }
        // Whether a base of the class may call its methods by name: one neither object, torch's
        // Module, nor a class of this file (keyword arguments, `metaclass=`, are no bases)
        auto foreign_base = [&](TSNode cls) {
            const TSNode bases = field(cls, "superclasses");
            for (uint32_t k = 0; !ts_node_is_null(bases) && k < ts_node_named_child_count(bases); ++k) {
                const TSNode base = ts_node_named_child(bases, k);
                if (is_type(base, "keyword_argument")) continue;
                const std::string_view text = facts.text(base);
                if (text == "object" || facts.qualname(base) == "torch.nn.Module" || (is_type(base, "identifier") && own_classes.count(text))) continue;
                return true;
            }
            return false;
        };
        for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
            TSNode stmt = ts_node_named_child(root, i);
            bool fields = false, positional = false;
            class_span = {line_of(stmt), static_cast<int>(ts_node_end_point(stmt).row) + 1};
            class_registered = false;
            if (is_type(stmt, "decorated_definition") && is_type(field(stmt, "definition"), "class_definition")) {
                fields = field_class(stmt);
                positional = fields && fields_by_position(stmt, field(stmt, "definition"));
                class_registered = !fields && !transparent(stmt);
                select_registered(stmt);
                stmt = field(stmt, "definition");
            }
            if (mark(stmt, "", "") || !is_type(stmt, "class_definition")) continue;
            const TSNode body = field(stmt, "body");
            const std::string name(facts.text(field(stmt, "name")));
            if (foreign_base(stmt)) out.foreign_based.insert(name);
            int place = 0;
            for (uint32_t k = 0; !ts_node_is_null(body) && k < ts_node_named_child_count(body); ++k) {
                const TSNode member = ts_node_named_child(body, k);
                if (!mark(member, ".", name) && fields && mark_field(member, name, positional ? place : -1)) ++place;
            }
        }
    }
    const std::string package = parent_module(module);
    const std::string leaf = module.substr(module.rfind('.') == std::string::npos ? 0 : module.rfind('.') + 1);
    std::map<std::string, std::string, std::less<>> function_names;  // local name -> the function's name
    std::set<std::string, std::less<>> module_names;                 // local spellings of the module
    std::set<std::string> wanted = names;  // in the module itself, none named: the functions of `lines`
    if (defining && wanted.empty())
        for (const auto& [line, name] : out.function_at)
            if (!name.empty() && name[0] != '.') wanted.insert(name);
    const std::set<std::string>& functions = wanted;
    if (defining)
        for (const auto& n : functions) function_names[n] = n;
    for_each_node(root, [&](TSNode imp) {
        if (is_type(imp, "import_statement")) {
            for (uint32_t i = 0; i < ts_node_named_child_count(imp); ++i) {
                const TSNode c = ts_node_named_child(imp, i);
                const bool aliased = is_type(c, "aliased_import");
                const std::string name(facts.text(aliased ? field(c, "name") : c));
                const std::string local = aliased ? std::string(facts.text(field(c, "alias"))) : name;
                if (names_module(module, name)) module_names.insert(local);
                else if (!package.empty() && names_module(package, name)) {
                    module_names.insert(local + "." + leaf);
                    module_names.insert(local);  // `pkg.fn(...)`: re-exported by its package, as `from pkg import fn` takes it
                }
            }
            return;
        }
        if (!is_type(imp, "import_from_statement")) return;
        const auto from = from_module(imp, facts);
        if (!from) return;
        bool is_module = false, is_package = false;
        if (from->second > 0) {
            std::string base = importer;
            for (int i = 1; i < from->second; ++i) base = parent_module(base);
            const std::string target = from->first.empty() ? base : (base.empty() ? from->first : base + "." + from->first);
            is_module = target == module;
            is_package = !package.empty() && target == package;
        } else {
            is_module = names_module(module, from->first);
            is_package = !package.empty() && names_module(package, from->first);
        }
        if (!is_module && !is_package) return;
        const TSNode module_name = field(imp, "module_name");
        for (uint32_t i = 0; i < ts_node_named_child_count(imp); ++i) {
            const TSNode c = ts_node_named_child(imp, i);
            if (ts_node_start_byte(c) == ts_node_start_byte(module_name)) continue;
            if (is_type(c, "wildcard_import")) {
                if (is_module)
                    for (const auto& n : functions) function_names[n] = n;
                continue;
            }
            const bool aliased = is_type(c, "aliased_import");
            const std::string name(facts.text(aliased ? field(c, "name") : c));
            const std::string local = aliased ? std::string(facts.text(field(c, "alias"))) : name;
            if (functions.count(name)) function_names[local] = name;  // from the module, or re-exported by its package
            else if (is_package && name == leaf) module_names.insert(local);
        }
    });
    if (function_names.empty() && module_names.empty()) return out;
    CallSites by_name;
    for_each_node(root, [&](TSNode n) {
        if (is_type(n, "call")) index_call(n, facts, by_name);
    });
    GuardMemo memo;
    auto in_import = [](TSNode n) { return !ts_node_is_null(enclosing(n, {"import_statement", "import_from_statement"})); };
    // `callback`: the function is passed to `call` (mp.spawn(worker, ...), Thread(target=worker)) and
    // runs where that call runs, with arguments this site does not show.
    auto add_call = [&](TSNode call, const std::string& name, bool callback = false) {
        // recursion, or a call in the function's own body, says nothing about its callers
        if (defining) {
            TSNode top = call;
            while (!ts_node_is_null(ts_node_parent(top)) && !is_type(ts_node_parent(top), "module")) top = ts_node_parent(top);
            const TSNode def = is_type(top, "decorated_definition") ? field(top, "definition") : top;
            if ((is_type(def, "function_definition") || is_type(def, "class_definition")) && facts.text(field(def, "name")) == name) return;
        }
        Guard g = guards.guard_of(call);
        const TSNode function = enclosing(call, {"function_definition"});
        if (g.kind == GuardKind::none && !g.mps_aware && !ts_node_is_null(function))
            g = guard_through_callers(function, facts, guards, by_name, 4, &memo);
        out.calls.push_back({name, line_of(call), g.kind, g.mps_aware, g.note, {}, 0, callback});
        out.calls.back().branch = branch_in_function(call, facts).value_or("");
        out.calls.back().arms = std::move(g.arms);
        if (!callback) record_arguments(call, facts, out.calls.back());
    };
    // The call a name is passed to, as an argument or a keyword's value; a null node otherwise.
    auto passed_to = [&](TSNode n) -> TSNode {
        TSNode p = ts_node_parent(n);
        if (is_type(p, "keyword_argument") && ts_node_eq(field(p, "value"), n)) p = ts_node_parent(p);
        if (!is_type(p, "argument_list")) return TSNode{};
        const TSNode call = ts_node_parent(p);
        return is_type(call, "call") ? call : TSNode{};
    };
    // A name in a type annotation (`params: FinetuneParams`, `-> Config`) runs nothing: no use at all
    // (seamless_communication's trainer annotates the dataclass every call of which passes `device`).
    auto in_annotation = [&](TSNode n) {
        for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
            const std::string_view t = node_type(p);
            if (t == "type") return true;
            if (t == "block" || t == "module" || t == "lambda" || t == "call" || t == "argument_list" ||
                t.find("statement") != std::string_view::npos || t.find("definition") != std::string_view::npos)
                return false;
        }
        return false;
    };
    // ts_node_parent walks down from the root: asked only of the few nodes that name a function
    auto called_by = [&](TSNode n, TSNode& parent) {
        parent = ts_node_parent(n);
        return is_type(parent, "call") && ts_node_eq(field(parent, "function"), n);
    };
    // `Class.method(...)`, a CapWords name (a class, by PEP 8) whose own method is called: no use of the
    // class itself, which it does not build (fairseq's `utils.CudaEnvironment.pretty_print_cuda_env_list()`
    // beside `utils.CudaEnvironment()`, both under `if self.cuda:`). The method goes by its own name
    // (uses_of_methods); `Class.apply(...)` runs an autograd Function and stays a use.
    auto calls_a_method_of = [&](TSNode n, const std::string& name) {
        const TSNode access = ts_node_parent(n);
        if (!is_type(access, "attribute") || !ts_node_eq(field(access, "object"), n)) return false;
        TSNode call;
        return called_by(access, call) && facts.text(field(access, "attribute")) != "apply" && capwords_name(name);
    };
    for_each_node(root, [&](TSNode n) {
        TSNode parent;
        if (is_type(n, "attribute")) {
            if (module_names.empty()) return;
            const auto spelled = facts.text(field(n, "object"));
            const std::string attr(facts.text(field(n, "attribute")));
            if (!module_names.count(spelled) || !functions.count(attr)) return;
            if (called_by(n, parent)) add_call(parent, attr);
            else if (calls_a_method_of(n, attr)) return;
            else if (!in_annotation(n)) out.other_uses.insert(attr);
            return;
        }
        if (!is_type(n, "identifier")) return;
        const auto it = function_names.find(facts.text(n));
        if (it == function_names.end()) return;
        const bool called = called_by(n, parent);
        if (is_type(parent, "attribute") && ts_node_eq(field(parent, "attribute"), n)) return;  // x.name is not the name
        if ((is_type(parent, "function_definition") || is_type(parent, "class_definition")) && ts_node_eq(field(parent, "name"), n)) return;
        if (is_type(parent, "keyword_argument") && ts_node_eq(field(parent, "name"), n)) return;
        if (in_import(n)) return;
        if (!called && in_annotation(n)) return;
        if (!called && calls_a_method_of(n, it->second)) return;
        if (called) {
            add_call(parent, it->second);
        } else if (const TSNode outer = passed_to(n); !ts_node_is_null(outer) && registers(field(outer, "function"))) {
            FunctionUses::Call& c = out.selections.emplace_back();
            c.name = it->second;
            c.line = line_of(n);
            c.branch = FunctionUses::kRegisteredBy + one_line(facts.text(outer), 60);
        } else if (!ts_node_is_null(outer)) {
            add_call(outer, it->second, true);
        } else if (const auto branch = selected_in_branch(n, parent, facts)) {
            FunctionUses::Call& c = out.selections.emplace_back();
            c.name = it->second;
            c.line = line_of(n);
            c.branch = *branch;
        } else {
            out.other_uses.insert(it->second);
        }
    });
    return out;
}

FunctionUses uses_of_methods(TSNode root, const ModuleFacts& facts, const GuardFinder& guards, const std::set<std::string>& names) {
    // By name, whatever the object: `x.name(...)` is a call; `x.name` otherwise (passed as a callback,
    // a property, an attribute of that name), or the name in a getattr/setattr string, is a use whose
    // runs are not known. A call inside a method of the same name (`super().name(...)`) delegates: the
    // calls of the overriding method stand for it.
    FunctionUses out;
    CallSites by_name;
    for_each_node(root, [&](TSNode n) {
        if (is_type(n, "call")) index_call(n, facts, by_name);
    });
    GuardMemo memo;
    for_each_node(root, [&](TSNode n) {
        if (is_type(n, "string")) {
            const auto v = string_literal(n, facts.source());
            if (v && names.count(*v)) out.other_uses.insert(*v);
            return;
        }
        if (!is_type(n, "attribute")) return;
        const std::string attr(facts.text(field(n, "attribute")));
        if (!names.count(attr)) return;
        const TSNode parent = ts_node_parent(n);
        if (!is_type(parent, "call") || !ts_node_eq(field(parent, "function"), n)) {
            out.other_uses.insert(attr);
            return;
        }
        const TSNode function = enclosing(parent, {"function_definition"});
        if (!ts_node_is_null(function) && facts.text(field(function, "name")) == attr) return;
        Guard g = guards.guard_of(parent);
        if (g.kind == GuardKind::none && !g.mps_aware && !ts_node_is_null(function))
            g = guard_through_callers(function, facts, guards, by_name, 4, &memo);
        out.calls.push_back({attr, line_of(parent), g.kind, g.mps_aware, g.note, {}, 0, false});
        out.calls.back().branch = branch_in_function(parent, facts).value_or("");
        out.calls.back().arms = std::move(g.arms);
        record_arguments(parent, facts, out.calls.back());
    });
    return out;
}

ImportUse import_use(TSNode root, const ModuleFacts& facts, int line) {
    ImportUse out;
    // The import on the line: at module level, or in a module-level try/if/with, never in a def or class.
    TSNode import{};
    for (TSNode n : facts.imports())
        if (line_of(n) == line && ts_node_is_null(enclosing(n, {"function_definition", "class_definition"}))) {
            import = n;
            break;
        }
    if (ts_node_is_null(import)) return out;
    const auto bound = names_bound_by(import, facts);
    if (!bound) return out;  // `from m import *`: binds what the module exports, not known here
    out.bound.insert(bound->begin(), bound->end());
    if (out.bound.empty()) return out;
    out.found = true;
    // The names each top-level statement uses (every identifier: a local that shadows one only adds a use).
    struct Statement {
        std::string defines;  // the def or class name; "" for other statements
        std::set<std::string> uses;
    };
    std::vector<Statement> statements;
    std::set<std::string> defined;
    for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
        const TSNode s = ts_node_named_child(root, i);
        if (is_type(s, "import_statement") || is_type(s, "import_from_statement") || is_type(s, "comment")) continue;
        if (is_type(s, "if_statement") && is_main_guard(s, facts)) continue;  // runs when the module is the program, not when imported
        TSNode def = is_type(s, "decorated_definition") ? field(s, "definition") : s;
        Statement st;
        if (is_type(def, "function_definition") || is_type(def, "class_definition")) st.defines = std::string(facts.text(field(def, "name")));
        for_each_node(s, [&](TSNode n) {
            if (is_type(n, "identifier")) st.uses.emplace(facts.text(n));
        });
        if (!st.defines.empty()) {
            st.uses.erase(st.defines);
            defined.insert(st.defines);
        }
        statements.push_back(std::move(st));
    }
    // Users: the definitions that use a bound name, then those that use a user, to a fixed point.
    const auto uses_any = [](const Statement& st, const std::set<std::string>& names) {
        return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return st.uses.count(n) > 0; });
    };
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto& st : statements)
            if (!st.defines.empty() && !out.users.count(st.defines) && (uses_any(st, out.bound) || uses_any(st, out.users)))
                grew = out.users.insert(st.defines).second || grew;
    }
    for (const auto& st : statements)
        if (st.defines.empty() && (uses_any(st, out.bound) || uses_any(st, out.users))) out.at_load = true;
    return out;
}

std::map<std::string, RegistryChoice> registry_choices(TSNode root, const ModuleFacts& facts) {
    constexpr std::size_t kMinEntries = 3;
    std::map<std::string, RegistryChoice> out;
    std::set<uint32_t> held;  // the start bytes of the values held
    for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
        const TSNode s = ts_node_named_child(root, i);
        if (!is_type(s, "expression_statement") || ts_node_named_child_count(s) != 1) continue;
        const TSNode assign = ts_node_named_child(s, 0);
        if (!is_type(assign, "assignment") || !is_type(field(assign, "left"), "identifier")) continue;
        const TSNode dict = field(assign, "right");
        if (!is_type(dict, "dictionary")) continue;
        std::vector<TSNode> pairs;
        bool registry = true;
        for (uint32_t k = 0; k < ts_node_named_child_count(dict) && registry; ++k) {
            const TSNode p = ts_node_named_child(dict, k);
            if (is_type(p, "comment")) continue;
            registry = is_type(p, "pair") && is_type(field(p, "key"), "string");
            pairs.push_back(p);
        }
        if (!registry || pairs.size() < kMinEntries) continue;
        const std::string name(facts.text(field(assign, "left")));
        for (const TSNode p : pairs) {
            const TSNode value = field(p, "value");
            if (!is_type(value, "identifier")) continue;
            out.emplace(std::string(facts.text(value)), RegistryChoice{name, static_cast<int>(ts_node_start_point(p).row) + 1, pairs.size()});
            held.insert(ts_node_start_byte(value));
        }
    }
    if (out.empty()) return out;
    // Any other use of a held name (a call, an attribute, another statement's use) and it is no mere choice.
    for_each_node(root, [&](TSNode n) {
        if (!is_type(n, "identifier") || held.count(ts_node_start_byte(n))) return;
        const auto it = out.find(std::string(facts.text(n)));
        if (it == out.end() || !ts_node_is_null(enclosing(n, {"import_statement", "import_from_statement"}))) return;
        out.erase(it);
    });
    return out;
}

}  // namespace mpsport::python
