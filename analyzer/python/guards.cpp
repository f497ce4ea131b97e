#include "analyzer/python/guards.hpp"

#include <algorithm>
#include <cctype>

#include "core/paths.hpp"
#include "core/source_text.hpp"

namespace mpsport::python {
namespace {

// `torch.mps.synchronize` is under `torch.mps`.
bool under_any(const std::vector<std::string>& prefixes, std::string_view name) {
    for (const auto& p : prefixes)
        if (name == p || (name.size() > p.size() && name.compare(0, p.size(), p) == 0 && name[p.size()] == '.')) return true;
    return false;
}

std::string last_component(std::string_view dotted) {
    const auto dot = dotted.rfind('.');
    return std::string(dot == std::string_view::npos ? dotted : dotted.substr(dot + 1));
}

bool is_exit(TSNode stmt) {
    return is_type(stmt, "return_statement") || is_type(stmt, "continue_statement");
}

// The operator of a comparison of two operands, trimmed (defined below).
std::string_view comparison_op(TSNode condition, const ModuleFacts& facts);

}  // namespace

GuardFinder::GuardFinder(const GuardVocabulary& vocabulary, const ModuleFacts& facts, TSNode root)
    : m_vocab(vocabulary), m_facts(facts), m_root(root) {
    bind_names(root);
    bind_device_predicates(root);
    find_file_guard(root);
    find_cuda_only_classes(root);
}

// A module-level predicate that answers False (or raises) where the accelerator is missing and True
// otherwise (OpenNMT-py's check_sru_requirement(): `if torch.cuda.is_available() is False: ... return
// False`, then `return True`): `if check_sru_requirement():` is a device check, as the test inside is.
void GuardFinder::bind_device_predicates(TSNode root) {
    for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
        TSNode def = ts_node_named_child(root, i);
        if (is_type(def, "decorated_definition")) def = field(def, "definition");
        if (!is_type(def, "function_definition")) continue;
        const std::string name(m_facts.text(field(def, "name")));
        const TSNode body = field(def, "body");
        if (name.empty() || m_bound.count(name) || ts_node_is_null(body)) continue;
        bool returns_true = false, gated = false;
        for (uint32_t k = 0; k < ts_node_named_child_count(body); ++k) {
            const TSNode stmt = ts_node_named_child(body, k);
            if (is_type(stmt, "return_statement") && ts_node_named_child_count(stmt) == 1 && is_type(ts_node_named_child(stmt, 0), "true"))
                returns_true = true;
            if (!is_type(stmt, "if_statement") || gated) continue;
            const Test t = classify(field(stmt, "condition"));
            if (t.kind != GuardKind::device_check || !t.negated || t.mps) continue;
            // the branch for a missing accelerator answers False or None, or raises
            for_each_node(field(stmt, "consequence"), [&](TSNode n) {
                if (is_type(n, "raise_statement")) gated = true;
                if (is_type(n, "return_statement") &&
                    (ts_node_named_child_count(n) == 0 || is_type(ts_node_named_child(n, 0), "false") || is_type(ts_node_named_child(n, 0), "none")))
                    gated = true;
            });
        }
        if (gated && returns_true) m_bound.emplace(name, GuardKind::device_check);
    }
}

void GuardFinder::find_cuda_only_classes(TSNode root) {
    if (m_vocab.device_test_instantiators.empty()) return;
    for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
        const TSNode stmt = ts_node_named_child(root, i);
        const TSNode call = is_type(stmt, "expression_statement") ? ts_node_named_child(stmt, 0) : TSNode{};
        if (!is_type(call, "call") || !listed(m_vocab.device_test_instantiators, last_segment(m_facts.qualname(field(call, "function")))))
            continue;
        const TSNode args = field(call, "arguments");
        if (!is_type(args, "argument_list") || ts_node_named_child_count(args) == 0) continue;
        const TSNode cls = ts_node_named_child(args, 0);
        if (!is_type(cls, "identifier")) continue;
        // only_for names device types as a string, or a tuple or list of them: CUDA and nothing else
        bool cuda = false, other = false;
        for (uint32_t k = 0; k < ts_node_named_child_count(args); ++k) {
            const TSNode a = ts_node_named_child(args, k);
            if (!is_type(a, "keyword_argument") || m_facts.text(field(a, "name")) != "only_for") continue;
            for_each_node(field(a, "value"), [&](TSNode n) {
                if (!is_type(n, "string")) return;
                const auto value = m_facts.string_value(n);
                if (value && *value == "cuda") cuda = true;
                else other = true;
            });
            if (!is_type(field(a, "value"), "string") && !is_type(field(a, "value"), "tuple") && !is_type(field(a, "value"), "list"))
                other = true;  // a variable: which device types is not known
        }
        if (cuda && !other) m_cuda_only_classes.emplace(std::string(m_facts.text(cls)), one_line(stmt));
    }
}

std::string GuardFinder::one_line(TSNode node) const { return python::one_line(m_facts.text(node), 121); }

void GuardFinder::classify_node(TSNode n, Test& t) const {
    const std::string_view type = node_type(n);
    // A distributed gate wins over a device check it is combined with; both over a platform test. A
    // block only type checkers read (`if TYPE_CHECKING:`) never runs, whatever else the test says.
    auto rank = [](GuardKind g) {
        return g == GuardKind::never_called ? 5 : g == GuardKind::distributed_gate ? 4 : g == GuardKind::device_check ? 3 : g == GuardKind::platform ? 2
             : g == GuardKind::import_fallback ? 1 : 0;
    };
    auto take = [&](GuardKind k) {
        if (rank(k) > rank(t.kind)) t.kind = k;
    };
    // A device's name tested: the CPU's is the branch without the accelerator, its else the rest.
    auto take_device_name = [&](std::string_view name) {
        take(GuardKind::device_check);
        if (name == "cpu") {
            t.negated = !t.negated;
            t.cpu = true;
        }
    };
    if (type == "boolean_operator") {
        // `not torch.cuda.is_available() or not flash`: the operand that decides the kind keeps its own
        // negation (past `if ...: return` both operands are false, so CUDA is there).
        // `cuda and RANK == -1` holds only where its CUDA operand does: a positive operand of an `and`
        // decides, whatever the other one says (yolov5's DataParallel under `if cuda and RANK == -1 and
        // torch.cuda.device_count() > 1:`, where the single-process test outranked the device check).
        const bool conjunction = m_facts.text(field(n, "operator")) == "and";
        Test positive;
        bool untested_side = false;  // an operand that tests no platform: `or` with it may hold on a Mac
        for (TSNode side : {field(n, "left"), field(n, "right")}) {
            const Test s = classify(side);
            untested_side = untested_side || s.kind != GuardKind::platform;
            t.mps = t.mps || s.mps;
            t.names_mac = t.names_mac || s.names_mac;
            if (conjunction && s.kind != GuardKind::none && !s.negated && rank(s.kind) > rank(positive.kind)) positive = s;
            if (rank(s.kind) > rank(t.kind)) {
                t.kind = s.kind;
                t.negated = s.negated;
                t.cpu = s.cpu;
            }
        }
        if (positive.kind != GuardKind::none) {
            t.kind = positive.kind;
            t.negated = false;
            t.cpu = positive.cpu;
        }
        // `args.platform == 'philly' or args.platform == 'local'` (LoRA): the local arm runs on a Mac
        if (!conjunction && t.kind == GuardKind::platform && untested_side && !t.names_mac) t.kind = GuardKind::none;
        return;
    }
    if (type == "call") {
        const std::string q = m_facts.qualname(field(n, "function"));
        if (listed(m_vocab.device_calls, q) || listed(m_vocab.device_functions, last_segment(q))) take(GuardKind::device_check);
        {
            // `is_apex_available()` tests a package; `_is_triton_available()` and RVC's
            // `cuda_graph_enabled(device)` test for something a Mac never has: a device check.
            const auto words = identifier_words(last_segment(q));
            auto has_word = [&](const std::vector<std::string>& list) {
                return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return listed(list, w); });
            };
            const bool mac_absent = has_word(m_vocab.mac_absent_package_words);
            if (matches_any_glob(m_vocab.package_checks, last_segment(q))) take(mac_absent ? GuardKind::device_check : GuardKind::import_fallback);
            else if (mac_absent && has_word(m_vocab.availability_words)) take(GuardKind::device_check);
        }
        if (listed(m_vocab.distributed_calls, q) || listed(m_vocab.distributed_functions, last_segment(q)))
            take(GuardKind::distributed_gate);
        if (listed(m_vocab.platform_names, q)) take(GuardKind::platform);
        if (under_any(m_vocab.mps_names, q)) t.mps = true;
        // A method's name is no variable: in `t.cuda()` the name `cuda` is not the file's `cuda = device.type
        // != "cpu"` (yolov5; apex's prefetcher binding `batch = t.cuda()` made `if batch is not None:` a
        // device check), though `self.is_distributed()` still names a gate. The receiver is not read (as
        // before: `torch.distributed.get_rank()` is no `distributed` flag).
        const TSNode fn = field(n, "function");
        // `device.startswith("cuda")` (timm's `if device.startswith('cuda:')`): a device name tested as text
        if (is_type(fn, "attribute") && m_facts.text(field(fn, "attribute")) == "startswith")
            if (const TSNode args = field(n, "arguments"); ts_node_named_child_count(args) == 1)
                if (auto v = string_literal(ts_node_named_child(args, 0), m_facts.source()); v && listed(m_vocab.device_strings, v->substr(0, v->find(':'))))
                    take_device_name(v->substr(0, v->find(':')));
        if (!is_type(fn, "attribute")) classify_node(fn, t);
        else if (distributed_name(m_facts.text(field(fn, "attribute")))) take(GuardKind::distributed_gate);
        else if (names_mps(m_facts.text(field(fn, "attribute")))) t.mps = true;  // `model_management.mps_mode()`
        else if (listed(m_vocab.device_flags, m_facts.text(field(fn, "attribute")))) take(GuardKind::device_check);  // SPADE's `self.use_gpu()`
        if (const TSNode args = field(n, "arguments"); !ts_node_is_null(args)) classify_node(args, t);
        return;
    } else if (type == "comparison_operator" && ts_node_named_child_count(n) == 2) {
        // `world_size == 1`, `get_world_size() <= 1`, `< 2`: the single-process branch; so are
        // `local_rank == -1`, `< 0` and `local_rank in [-1, 0]` (a launcher sets -1 for one process)
        Test inner;
        classify_node(ts_node_named_child(n, 0), inner);
        const std::string_view op = m_facts.text(ts_node_child(n, 1));
        const TSNode right = ts_node_named_child(n, 1);
        const std::string_view bound = m_facts.text(right);
        const auto holds_minus_one = [&] {
            if (!is_type(right, "list") && !is_type(right, "tuple")) return false;
            for (uint32_t i = 0; i < ts_node_named_child_count(right); ++i)
                if (m_facts.text(ts_node_named_child(right, i)) == "-1") return true;
            return false;
        };
        // The name one side reads (`x`, `obj.x`), and the guard of a comparison of a listed name: `kind`
        // on its `arm` forms, negated on its `other` ones.
        const auto read_name = [&](TSNode side) {
            return is_type(side, "identifier")  ? m_facts.text(side)
                   : is_type(side, "attribute") ? m_facts.text(field(side, "attribute"))
                                                : std::string_view();
        };
        const auto listed_comparison = [&](std::string_view name, const std::vector<std::string>& names, bool arm, bool other, GuardKind kind) {
            if (name.empty() || !listed(names, name) || !(arm || other)) return false;
            take(kind);
            if (other) t.negated = !t.negated;
            return true;
        };
        // A CUDA device index where -1 is the CPU (device_index_names): `if device > -1:` (allennlp's
        // util.py), `gpu >= 0`, `!= -1` are the CUDA branch, `== -1`, `< 0` the CPU's, whose else is CUDA's
        // alone (an index of -1 is what such code keeps for any device but CUDA, MPS too).
        if (listed_comparison(read_name(ts_node_named_child(n, 0)), m_vocab.device_index_names,
                              (op == ">" && bound == "-1") || (op == ">=" && bound == "0") || (op == "!=" && bound == "-1"),
                              (op == "==" && bound == "-1") || (op == "<" && bound == "0") || (op == "<=" && bound == "-1"), GuardKind::device_check))
            return;
        // `devices > 1`, `len(self.devices) > 1`, `gpus >= 2` (device_count_names): the multi-device
        // branch; `== 1`, `<= 1`, `< 2` the single device's
        TSNode counted = ts_node_named_child(n, 0);
        const bool length = is_type(counted, "call") && m_facts.text(field(counted, "function")) == "len";
        if (length) counted = positional_argument(counted, 0);
        // `len(opt.gpu_ids) > 0` (device_list_names: SPADE's, pix2pix's): the CUDA branch; `== 0` the CPU's
        if (length && listed_comparison(read_name(counted), m_vocab.device_list_names,
                                        (op == ">" && bound == "0") || (op == ">=" && bound == "1") || (op == "!=" && bound == "0"),
                                        (op == "==" && bound == "0") || (op == "<" && bound == "1") || (op == "<=" && bound == "0"), GuardKind::device_check))
            return;
        if (listed_comparison(read_name(counted), m_vocab.device_count_names,
                              (op == ">" && bound == "1") || (op == ">=" && bound == "2") || (op == "!=" && bound == "1"),
                              (op == "==" && bound == "1") || (op == "<=" && bound == "1") || (op == "<" && bound == "2"), GuardKind::distributed_gate))
            return;
        const bool single = (op == "==" && (bound == "1" || bound == "-1")) || (op == "<=" && bound == "1") ||
                            (op == "<" && (bound == "2" || bound == "0")) || (op == "in" && holds_minus_one());
        if (inner.kind == GuardKind::distributed_gate && single) t.negated = !t.negated;
        // `torch.cuda.device_count() == 0` (CogView3's sat/arguments.py), `< 1`, `<= 0`: the branch without CUDA
        const bool none = ((op == "==" || op == "<=") && bound == "0") || (op == "<" && bound == "1");
        if (inner.kind == GuardKind::device_check && !inner.negated && none) t.negated = !t.negated;
        // `num_gpus = torch.cuda.device_count()`, then `if num_gpus == 0: return [cpu]` (pyannote's
        // get_devices): a name bound from the device count is that count, though the vocabulary also
        // calls it distributed; no GPU at all is the branch without CUDA, not the single process.
        if (none && inner.kind == GuardKind::distributed_gate && !inner.negated && is_type(ts_node_named_child(n, 0), "identifier"))
            if (const auto it = m_bound.find(m_facts.text(ts_node_named_child(n, 0))); it != m_bound.end() && it->second == GuardKind::device_check) {
                if (t.kind != GuardKind::never_called) t.kind = GuardKind::device_check;
                t.negated = !t.negated;
                return;
            }
        const std::string_view written = comparison_op(n, m_facts);
        // `importlib.util.find_spec("apex") is None`: the branch without the package
        if (inner.kind == GuardKind::import_fallback && bound == "None" && (written == "is" || written == "==")) t.negated = !t.negated;
        // `if use_gpu is False:` (so-vits-svc's train_cluster), `== False`, `is not True`: the flag's test, negated
        const bool same = written == "is" || written == "==", differs = written == "is not" || written == "!=";
        if ((same && is_type(right, "false")) || (differs && is_type(right, "true"))) t.negated = !t.negated;
    } else if (type == "attribute") {
        const std::string q = m_facts.qualname(n);
        const std::string attr(m_facts.text(field(n, "attribute")));
        if (listed(m_vocab.device_attributes, attr)) {
            take(GuardKind::device_check);
            if (attr == "is_mps") t.mps = true;
            if (attr == "is_cpu") {  // `if x.is_cpu:` is the CPU path, its else the rest (MPS included)
                t.negated = !t.negated;
                t.cpu = true;
            }
        }
        if (listed(m_vocab.platform_names, q)) take(GuardKind::platform);
        if (listed(m_vocab.type_checking_names, q)) take(GuardKind::never_called);
        if (listed(m_vocab.device_flags, attr) || listed(m_vocab.device_list_names, attr)) take(GuardKind::device_check);
        if (listed(m_vocab.option_device_flags, attr) && listed(m_vocab.option_objects, m_facts.text(field(n, "object")))) take(GuardKind::device_check);
        if (distributed_name(attr)) take(GuardKind::distributed_gate);
        if (auto it = m_bound.find(attr); it != m_bound.end()) take(it->second);
        if (under_any(m_vocab.mps_names, q)) t.mps = true;
        return;  // `args.distributed` is one name, not `args` and `distributed`
    } else if (type == "identifier") {
        const std::string_view name = m_facts.text(n);
        if (auto it = m_bound.find(name); it != m_bound.end()) take(it->second);
        if (listed(m_vocab.device_flags, name) || listed(m_vocab.device_list_names, name)) take(GuardKind::device_check);
        if (distributed_name(name)) take(GuardKind::distributed_gate);
        if (listed(m_vocab.platform_names, name)) take(GuardKind::platform);
        if (listed(m_vocab.type_checking_names, name) || listed(m_vocab.type_checking_names, m_facts.qualname(n))) take(GuardKind::never_called);
        if (names_mps(name)) t.mps = true;
    } else if (type == "string") {
        if (auto v = string_literal(n, m_facts.source())) {
            // A config dict's key names its value: `if cfg['distributed']:`, basicsr's `if self.opt['dist']:`
            const TSNode holder = ts_node_parent(n);
            if (is_type(holder, "subscript") && ts_node_eq(field(holder, "subscript"), n) &&
                (distributed_name(*v) || listed(m_vocab.distributed_keys, *v)))
                take(GuardKind::distributed_gate);
            // A string compared in a condition tests the opposite under `!=` and `not in`.
            const auto negate_if_compared_against = [&](TSNode comparison) {
                if (!is_type(comparison, "comparison_operator")) return;
                for (uint32_t i = 0; i < ts_node_child_count(comparison); ++i)
                    if (node_type(ts_node_child(comparison, i)) == "!=" || node_type(ts_node_child(comparison, i)) == "not in") t.negated = !t.negated;
            };
            if (listed(m_vocab.distributed_env, *v)) {
                take(GuardKind::distributed_gate);
                // `if "RANK" not in os.environ: return` (seamless_communication's init_distributed): the
                // single-process branch, as `not ("RANK" in os.environ)` is
                negate_if_compared_against(ts_node_parent(n));
            }
            if (listed(m_vocab.mac_strings, *v)) t.names_mac = true;
            if (listed(m_vocab.mps_strings, *v)) t.mps = true;
            // A device name compared in a condition: device.type == "cuda", "cuda" in str(device),
            // device == torch.device("cuda") (stable diffusion's txt2img.py).
            TSNode parent = ts_node_parent(n);
            if (is_type(parent, "argument_list") && is_type(ts_node_parent(parent), "call") &&
                m_facts.qualname(field(ts_node_parent(parent), "function")) == "torch.device" && ts_node_named_child_count(parent) == 1)
                parent = ts_node_parent(ts_node_parent(parent));
            // `args.platform == "philly"`: a cluster or accelerator a Mac is not (cluster_strings)
            if (is_type(parent, "comparison_operator") && listed(m_vocab.cluster_strings, *v)) {
                take(GuardKind::platform);
                negate_if_compared_against(parent);
            }
            if (is_type(parent, "comparison_operator") && listed(m_vocab.device_strings, *v)) {
                take_device_name(*v);
                negate_if_compared_against(parent);
            }
        }
        return;
    }
    const uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; ++i) classify_node(ts_node_named_child(n, i), t);
}

GuardFinder::Test GuardFinder::classify(TSNode condition) const {
    Test t;
    if (ts_node_is_null(condition)) return t;
    TSNode c = condition;
    bool negated = false;
    while (is_type(c, "not_operator") || is_type(c, "parenthesized_expression")) {
        if (is_type(c, "not_operator")) negated = !negated;
        c = is_type(c, "not_operator") ? field(c, "argument") : ts_node_named_child(c, 0);
    }
    classify_node(c, t);
    if (negated) t.negated = !t.negated;
    return t;
}

// `WITH_TRITON = True` / `try: import triton` / `except ImportError: WITH_TRITON = False` (VMamba's
// ssd_minimal.py, which imports its Triton kernels only `if WITH_TRITON:`, judged info in the sample of
// 2026-12-08): the name the handler sets to False says whether the package imported, a package test as
// `is_triton_available()` is: a device check for a package a Mac never has, else an import fallback.
void GuardFinder::bind_package_flag(TSNode try_statement) {
    std::vector<std::string> packages;
    const TSNode body = field(try_statement, "body");
    for (uint32_t i = 0; i < ts_node_named_child_count(body); ++i)
        for (const std::string& p : imported_packages(ts_node_named_child(body, i), m_facts)) packages.push_back(p);
    if (packages.empty()) return;
    bool mac_absent = false;
    for (const std::string& p : packages)
        for (const std::string& word : identifier_words(p)) mac_absent = mac_absent || listed(m_vocab.mac_absent_package_words, word);
    // Only a flag: every assignment of the name in the file writes True or False (unsloth's `try: import
    // torch; has_cuda = torch.cuda.is_available()` / `except Exception: has_cuda = False` is a device test's
    // value, bound as such), and no other binding took the name first.
    const auto only_truth_values = [&](std::string_view name) {
        for (TSNode use : m_facts.identifiers_named(name)) {
            const TSNode parent = ts_node_parent(use);
            if (!is_type(parent, "assignment") && !is_type(parent, "augmented_assignment")) continue;
            if (!ts_node_eq(field(parent, "left"), use)) continue;
            if (is_type(parent, "augmented_assignment") || (!is_type(field(parent, "right"), "true") && !is_type(field(parent, "right"), "false"))) return false;
        }
        return true;
    };
    for (TSNode handler : import_error_handlers(try_statement))
        for (uint32_t i = 0; i < ts_node_named_child_count(handler); ++i) {
            const TSNode st = ts_node_named_child(handler, i);
            const TSNode a = is_type(st, "expression_statement") ? ts_node_named_child(st, 0) : TSNode{};
            if (ts_node_is_null(a) || !is_type(a, "assignment") || !is_type(field(a, "left"), "identifier") || !is_type(field(a, "right"), "false"))
                continue;
            const std::string name(m_facts.text(field(a, "left")));
            if (m_bound.count(name) || !only_truth_values(name)) continue;
            m_bound.emplace(name, mac_absent ? GuardKind::device_check : GuardKind::import_fallback);
        }
}

void GuardFinder::bind_names(TSNode root) {
    // `use_cuda = torch.cuda.is_available()`, `ddp = int(os.environ.get("RANK", -1)) != -1`: later
    // conditions on these names are the same guard. Two passes let one name build on another.
    // Only statements are visited: an assignment is never inside an expression.
    std::vector<TSNode> assignments;
    std::vector<TSNode> tries;
    std::vector<TSNode> stack{root};
    while (!stack.empty()) {
        TSNode n = stack.back();
        stack.pop_back();
        const std::string_view t = node_type(n);
        if (t == "expression_statement") {
            TSNode e = ts_node_named_child(n, 0);
            if (is_type(e, "assignment")) assignments.push_back(e);
            continue;
        }
        if (t == "try_statement") tries.push_back(n);
        if (t != "module" && t != "block" && t.find("statement") == std::string_view::npos && t.find("clause") == std::string_view::npos &&
            t != "function_definition" && t != "class_definition" && t != "decorated_definition")
            continue;
        for (uint32_t i = ts_node_named_child_count(n); i > 0; --i) stack.push_back(ts_node_named_child(n, i - 1));
    }
    for (int pass = 0; pass < 2; ++pass) {
        // The second pass only builds on names the first one bound: it looks again only at the
        // assignments that write one of them (a tenth of a cold scan went to classifying twice).
        std::vector<std::string> first_bound;
        if (pass == 1) {
            if (m_bound.empty()) break;
            for (const auto& [name, kind] : m_bound) first_bound.push_back(name);
        }
        for (TSNode n : assignments) {
            TSNode left = field(n, "left");
            TSNode right = field(n, "right");
            if (pass == 1 && !ts_node_is_null(right)) {
                const std::string_view written = m_facts.text(right);
                if (std::none_of(first_bound.begin(), first_bound.end(), [&](const std::string& b) { return written.find(b) != std::string_view::npos; }))
                    continue;
            }
            std::string name;
            if (is_type(left, "identifier")) name = std::string(m_facts.text(left));
            else if (is_type(left, "attribute")) name = std::string(m_facts.text(field(left, "attribute")));
            // `cuda = True if torch.cuda.is_available() else False` (PyTorch-GAN's scripts) is its test;
            // any other conditional expression picks a value (`'cuda' if ... else 'cpu'`), not a truth.
            if (!ts_node_is_null(right) && is_type(right, "conditional_expression") && ts_node_named_child_count(right) == 3 &&
                is_type(ts_node_named_child(right, 0), "true") && is_type(ts_node_named_child(right, 2), "false"))
                right = ts_node_named_child(right, 1);
            if (name.empty() || ts_node_is_null(right) || is_type(right, "conditional_expression") || m_bound.count(name)) continue;
            // An object a class builds is no flag, whatever the class is called: `model = DDP(model,
            // device_ids=[rank])` made `model` a distributed gate, and with it every later test of
            // the model in the file (`if getattr(model, ...)`).
            if (is_type(right, "call")) {
                const std::string_view callee = last_segment(m_facts.text(field(right, "function")));
                if (!callee.empty() && std::isupper(static_cast<unsigned char>(callee.front()))) continue;
            }
            // A skip decorator kept under a name of its own: @requires_cuda on each test.
            if (pass == 0 && is_type(left, "identifier") && is_type(right, "call") &&
                listed(m_vocab.skip_decorators, m_facts.qualname(field(right, "function")))) {
                m_skip_aliases.insert(name);
                continue;
            }
            const Test t = classify(right);
            if (t.kind != GuardKind::none && !t.negated) m_bound.emplace(name, t.kind);
        }
    }
    for (TSNode t : tries) bind_package_flag(t);
    // A module-level predicate that answers no off CUDA (stylegan3's and eg3d's
    // `def _should_use_custom_op(input): ... if input.device.type != 'cuda': return False`): a call of
    // it in a condition is the device check it makes.
    for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
        TSNode def = ts_node_named_child(root, i);
        if (is_type(def, "decorated_definition")) def = field(def, "definition");
        if (!is_type(def, "function_definition")) continue;
        const TSNode body = field(def, "body");
        for (uint32_t k = 0; k < ts_node_named_child_count(body); ++k) {
            const TSNode st = ts_node_named_child(body, k);
            if (!is_type(st, "if_statement") || ts_node_named_child_count(field(st, "consequence")) != 1) continue;
            const TSNode ret = ts_node_named_child(field(st, "consequence"), 0);
            const TSNode condition = field(st, "condition");
            const Test t = classify(condition);
            if (t.kind != GuardKind::device_check || !t.negated || t.mps) continue;
            // A test helper that skips the test off CUDA (FastVideo's `def _require_cuda(): if not
            // torch.cuda.is_available(): pytest.skip(...)`): a test that calls it first stops there on a Mac.
            // Not `if dtype == torch.bfloat16 and not torch.cuda.is_bf16_supported():`, which skips one case.
            if (is_skip_statement(ret)) {
                if (is_type(condition, "boolean_operator") && m_facts.text(field(condition, "operator")) == "and") continue;
                m_skip_helpers.emplace(std::string(m_facts.text(field(def, "name"))));
                break;
            }
            const TSNode value = is_type(ret, "return_statement") && ts_node_named_child_count(ret) == 1 ? ts_node_named_child(ret, 0) : TSNode{};
            if (!is_type(ret, "return_statement") || (!ts_node_is_null(value) && !is_type(value, "false") && !is_type(value, "none"))) continue;
            m_bound.emplace(std::string(m_facts.text(field(def, "name"))), GuardKind::device_check);
            break;
        }
    }
}

bool GuardFinder::is_skip_statement(TSNode statement) const {
    const TSNode call = is_type(statement, "expression_statement") ? ts_node_named_child(statement, 0) : TSNode{};
    return is_skip_call(call) || (is_type(statement, "raise_statement") && m_facts.text(statement).find("SkipTest") != std::string_view::npos);
}

bool GuardFinder::is_skip_call(TSNode call) const {
    if (!is_type(call, "call")) return false;
    const TSNode fn = field(call, "function");
    const std::string q = m_facts.qualname(fn);
    if (listed(m_vocab.skip_calls, q)) return true;
    // self.skipTest(...): a method, matched by its name.
    return is_type(fn, "attribute") && listed(m_vocab.skip_calls, m_facts.text(field(fn, "attribute")));
}

void GuardFinder::find_file_guard(TSNode root) {
    const uint32_t n = ts_node_named_child_count(root);
    for (uint32_t i = 0; i < n; ++i) {
        TSNode stmt = ts_node_named_child(root, i);
        TSNode expr = is_type(stmt, "expression_statement") ? ts_node_named_child(stmt, 0) : TSNode{};
        if (is_type(expr, "assignment")) {
            // pytestmark = pytest.mark.skipif(...); x = pytest.importorskip("triton")
            TSNode left = field(expr, "left");
            TSNode right = field(expr, "right");
            if (is_type(right, "call")) {
                const std::string q = m_facts.qualname(field(right, "function"));
                if ((m_facts.text(left) == "pytestmark" && listed(m_vocab.skip_decorators, q)) || is_skip_call(right)) {
                    m_file_guard = {GuardKind::test_skip, false, one_line(stmt)};
                    return;
                }
            }
        } else if (is_type(expr, "call") && is_skip_call(expr)) {
            m_file_guard = {GuardKind::test_skip, false, one_line(stmt)};
            return;
        } else if (is_type(stmt, "if_statement")) {
            // if not torch.cuda.is_available(): pytest.skip(..., allow_module_level=True)
            TSNode body = field(stmt, "consequence");
            for (uint32_t k = 0; k < ts_node_named_child_count(body); ++k) {
                if (is_skip_statement(ts_node_named_child(body, k))) {
                    m_file_guard = {GuardKind::test_skip, false, one_line(field(stmt, "condition"))};
                    return;
                }
            }
        }
    }
}

std::optional<std::string> GuardFinder::without_cuda(TSNode node) const {
    auto absent = [&](TSNode condition, bool else_branch) -> bool {
        const Test t = classify(condition);
        if (t.mps) return false;
        if (t.kind == GuardKind::platform) return t.names_mac != (t.negated != else_branch);
        return t.kind == GuardKind::device_check && !t.cpu && t.negated != else_branch;
    };
    for (TSNode parent = ts_node_parent(node); !ts_node_is_null(parent); parent = ts_node_parent(parent)) {
        if (is_type(parent, "function_definition") || is_type(parent, "class_definition") || is_type(parent, "lambda")) break;
        if (!is_type(parent, "if_statement")) continue;
        const TSNode condition = field(parent, "condition");
        if (contains(field(parent, "consequence"), node)) {
            if (absent(condition, false)) return one_line(condition);
            return std::nullopt;
        }
        std::size_t elifs = 0;
        for (uint32_t i = 0; i < ts_node_named_child_count(parent); ++i) {
            TSNode clause = ts_node_named_child(parent, i);
            if (is_type(clause, "elif_clause")) {
                ++elifs;
                if (contains(field(clause, "consequence"), node))
                    return absent(field(clause, "condition"), false) ? std::optional(one_line(field(clause, "condition"))) : std::nullopt;
            } else if (is_type(clause, "else_clause") && contains(clause, node)) {
                if (elifs == 0 && absent(condition, true)) return "else of: " + one_line(condition);
                return std::nullopt;
            }
        }
    }
    return std::nullopt;
}

bool GuardFinder::sibling_checks_mps(TSNode if_statement) const {
    TSNode parent = ts_node_parent(if_statement);
    if (ts_node_is_null(parent)) return false;
    const uint32_t n = ts_node_named_child_count(parent);
    for (uint32_t i = 0; i < n; ++i) {
        TSNode sibling = ts_node_named_child(parent, i);
        if (!is_type(sibling, "if_statement") || ts_node_eq(sibling, if_statement)) continue;
        if (classify(field(sibling, "condition")).mps) return true;
        for (uint32_t k = 0; k < ts_node_named_child_count(sibling); ++k) {
            TSNode clause = ts_node_named_child(sibling, k);
            if (is_type(clause, "elif_clause") && classify(field(clause, "condition")).mps) return true;
        }
    }
    return false;
}

bool GuardFinder::earlier_return_checks_mps(TSNode statement) const {
    // `if torch.backends.mps.is_available(): return "mps"` before this statement: MPS is handled.
    TSNode parent = ts_node_parent(statement);
    if (ts_node_is_null(parent)) return false;
    for (uint32_t i = 0; i < ts_node_named_child_count(parent); ++i) {
        TSNode sibling = ts_node_named_child(parent, i);
        if (ts_node_start_byte(sibling) >= ts_node_start_byte(statement)) break;
        if (!is_type(sibling, "if_statement") || !classify(field(sibling, "condition")).mps) continue;
        TSNode body = field(sibling, "consequence");
        for (uint32_t k = 0; k < ts_node_named_child_count(body); ++k)
            if (is_type(ts_node_named_child(body, k), "return_statement")) return true;
    }
    return false;
}

// `self._double_dtype = torch.float64` and then `if self._device.type == "mps": self._double_dtype =
// torch.float32` (ignite's Metric): on MPS the value is replaced before any use. `node` is in the
// right side of the assignment `statement` makes; one of the next statements of its block is an if
// whose test names MPS and whose body assigns the same name.
bool GuardFinder::rebound_under_mps_test(TSNode statement, TSNode node) const {
    if (!is_type(statement, "expression_statement") || ts_node_named_child_count(statement) != 1) return false;
    const TSNode assignment = ts_node_named_child(statement, 0);
    if (!is_type(assignment, "assignment")) return false;
    const TSNode right = field(assignment, "right");  // none in an annotation alone (`x: int`)
    if (ts_node_is_null(right) || !contains(right, node)) return false;
    const std::string_view target = m_facts.text(field(assignment, "left"));
    int looked = 0;
    for (TSNode next = ts_node_next_named_sibling(statement); !ts_node_is_null(next) && looked < 3; next = ts_node_next_named_sibling(next), ++looked) {
        if (!is_type(next, "if_statement")) continue;
        const Test t = classify(field(next, "condition"));
        if (!t.mps || t.negated) continue;
        const TSNode body = field(next, "consequence");
        for (uint32_t k = 0; !ts_node_is_null(body) && k < ts_node_named_child_count(body); ++k) {
            const TSNode stmt = ts_node_named_child(body, k);
            if (is_type(stmt, "expression_statement") && ts_node_named_child_count(stmt) == 1 &&
                is_type(ts_node_named_child(stmt, 0), "assignment") && m_facts.text(field(ts_node_named_child(stmt, 0), "left")) == target)
                return true;
        }
    }
    return false;
}

Guard GuardFinder::from_if(TSNode if_statement, TSNode node) const {
    // Which branch holds the node, and the conditions of the whole chain.
    std::vector<TSNode> conditions{field(if_statement, "condition")};
    TSNode branch_condition{};
    bool in_else = false;
    if (contains(field(if_statement, "consequence"), node)) branch_condition = conditions[0];
    const uint32_t n = ts_node_named_child_count(if_statement);
    for (uint32_t i = 0; i < n; ++i) {
        TSNode clause = ts_node_named_child(if_statement, i);
        if (is_type(clause, "elif_clause")) {
            conditions.push_back(field(clause, "condition"));
            if (contains(field(clause, "consequence"), node)) branch_condition = field(clause, "condition");
        } else if (is_type(clause, "else_clause") && contains(clause, node)) {
            in_else = true;
        }
    }
    bool chain_mps = false;
    for (TSNode c : conditions) chain_mps = chain_mps || classify(c).mps;
    // An arm after `if not torch.cuda.is_available():` (or `if sys.platform == "darwin":`) runs only
    // where that test failed: on CUDA, never on a Mac (moco-v3's `if not torch.cuda.is_available():
    // print('using CPU') elif args.distributed: ... DistributedDataParallel(model)`).
    const std::size_t arm = in_else ? conditions.size()
                                    : static_cast<std::size_t>(std::find_if(conditions.begin(), conditions.end(),
                                                                            [&](TSNode c) { return ts_node_eq(c, branch_condition); }) -
                                                               conditions.begin());
    // An arm after `if is_mps_tensor_safe(X):` runs only off MPS (kornia's triangulation: float32 there,
    // float64 in the `elif` after it).
    for (std::size_t k = 0; k < arm && k < conditions.size(); ++k) {
        const Test earlier = classify(conditions[k]);
        if (earlier.mps && !earlier.negated) return {GuardKind::none, true, ""};
    }
    // An else after one negated test is the branch below's; a chain or its siblings that test MPS
    // know MPS, as there.
    for (std::size_t k = 0; !(in_else && conditions.size() == 1) && !chain_mps && k < arm && k < conditions.size(); ++k) {
        const Test earlier = classify(conditions[k]);
        const bool cuda_only = earlier.kind == GuardKind::device_check && earlier.negated && !earlier.cpu;
        const bool not_mac = earlier.kind == GuardKind::platform && earlier.names_mac && !earlier.negated;
        if (!cuda_only && !not_mac) continue;
        if (sibling_checks_mps(if_statement)) break;
        return cuda_only ? Guard{GuardKind::device_check, false, "after `" + one_line(conditions[k]) + "`: this arm runs only with CUDA"}
                         : Guard{GuardKind::platform, false, "after `" + one_line(conditions[k]) + "`: this arm never runs on a Mac"};
    }
    if (in_else) {
        // The else of `if sys.platform == "darwin":` never runs on a Mac; the else of a negated
        // device test (`if not x.is_cuda: ... else: <cuda path>`) is the CUDA path.
        const Test first = classify(conditions[0]);
        if (first.kind == GuardKind::platform && first.names_mac && !first.negated) return {GuardKind::platform, false, "else of: " + one_line(conditions[0])};
        if (first.kind == GuardKind::device_check && first.mps) return {GuardKind::none, true, ""};
        if (conditions.size() == 1 && first.negated && first.kind != GuardKind::none && first.kind != GuardKind::platform) {
            if (chain_mps || sibling_checks_mps(if_statement)) return {GuardKind::none, true, ""};
            return {first.cpu ? GuardKind::non_cpu_branch : first.kind, false, "else of: " + one_line(conditions[0])};
        }
        return from_alternative(if_statement, node);
    }
    if (ts_node_is_null(branch_condition)) {
        // In a condition of the chain: `elif torch.cuda.is_available():` after an MPS check knows MPS.
        return chain_mps || sibling_checks_mps(if_statement) ? Guard{GuardKind::none, true, ""} : Guard{};
    }
    const Test t = classify(branch_condition);
    if (t.kind == GuardKind::none) {
        if (t.mps) return Guard{};
        // One arm of a choice first (`if use_fused: <apex> else: <torch>`); else an option that is off
        // by default (`if args.benchmark: torch.cuda.synchronize()`), which the default run never takes.
        const Guard alternative = from_alternative(if_statement, node);
        if (alternative.kind != GuardKind::none || alternative.mps_aware) return alternative;
        // A flag the function sets to False and never again: the branch is dead code, not an option.
        if (const auto dead = never_holds(branch_condition, m_facts)) return {GuardKind::never_called, false, *dead + " is never set again: this branch never runs"};
        if (const auto flag = off_by_default(branch_condition)) return {GuardKind::off_by_default, false, "off by default: " + *flag};
        // A lazy import under `if <option> == "<name>":` with no other arm (llm-foundry's `if
        // self.fc_type['name'] == 'te' ...: import transformer_engine`): the package loads only where
        // the run picks that implementation by name; with any other value the code goes on without it.
        if (if_arms(if_statement).blocks.size() == 1 && names_implementation(branch_condition) && !ts_node_is_null(enclosing(node, {"function_definition"})) &&
            (is_type(node, "import_statement") || is_type(node, "import_from_statement") ||
             !ts_node_is_null(enclosing(node, {"import_statement", "import_from_statement"}))))
            return {GuardKind::alternative_branch, false, "imported only where `" + one_line(branch_condition) + "` picks it; other values run without it"};
        if (const auto package = tested_package(branch_condition, node))
            return {GuardKind::import_fallback, false, "imported only where `" + one_line(branch_condition) + "`, a test named for " + *package + ", holds: elsewhere the code goes on without it"};
        return alternative;
    }
    if (t.kind == GuardKind::platform) {
        if (t.names_mac != t.negated) return {};  // the macOS branch
        return {GuardKind::platform, false, one_line(branch_condition)};
    }
    // `if x.device.type != "mps":` knows MPS whichever branch this is.
    if (t.kind == GuardKind::device_check && (t.mps || chain_mps || sibling_checks_mps(if_statement))) return {GuardKind::none, true, ""};
    if (t.negated) return {};  // `if not torch.cuda.is_available():` is the non-CUDA path
    // `if args.distributed: ... DDP ... elif ...: raise ... else: raise NotImplementedError("Only
    // DistributedDataParallel is supported.")` (moco's main_moco.py): every other arm refuses to run,
    // so this one is required.
    if (t.kind == GuardKind::distributed_gate || t.kind == GuardKind::device_check) {
        bool has_else = false, others_leave = true;
        // the first arm too, where this is an elif: fairseq2's `if device.type == "cpu": GLOO elif
        // device.type == "cuda": NCCL else: raise ValueError(...)` has a way round on a Mac
        const TSNode first_arm = field(if_statement, "consequence");
        if (!contains(first_arm, node)) others_leave = always_leaves(first_arm);
        for (uint32_t i = 0; i < n && others_leave; ++i) {
            const TSNode clause = ts_node_named_child(if_statement, i);
            if (contains(clause, node)) continue;
            if (is_type(clause, "else_clause")) {
                has_else = true;
                others_leave = always_leaves(field(clause, "body"));
            } else if (is_type(clause, "elif_clause")) {
                others_leave = always_leaves(field(clause, "consequence"));
            }
        }
        if (has_else && others_leave) return {};
    }
    return {t.cpu && t.kind == GuardKind::device_check ? GuardKind::non_cpu_branch : t.kind, false, one_line(branch_condition)};
}

namespace {

// What a block binds for the code after it: assignment targets as written (`encoder`,
// `self.attention`), the names imports bind, and "return" for a return with a value. Nested
// functions and classes bind for themselves.
void bound_in(TSNode n, const ModuleFacts& facts, std::set<std::string, std::less<>>& out) {
    const std::string_view type = node_type(n);
    if (type == "function_definition" || type == "class_definition" || type == "lambda") return;
    if (type == "assignment") {
        const TSNode left = field(n, "left");
        if (is_type(left, "identifier") || is_type(left, "attribute") || is_type(left, "subscript")) out.emplace(facts.text(left));
        if (is_type(left, "pattern_list") || is_type(left, "tuple_pattern"))
            for (uint32_t i = 0; i < ts_node_named_child_count(left); ++i) out.emplace(facts.text(ts_node_named_child(left, i)));
    } else if (type == "import_statement" || type == "import_from_statement") {
        for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
            const TSNode c = ts_node_named_child(n, i);
            if (type == "import_from_statement" && ts_node_start_byte(c) == ts_node_start_byte(field(n, "module_name"))) continue;
            if (is_type(c, "aliased_import")) out.emplace(facts.text(field(c, "alias")));
            else if (is_type(c, "dotted_name")) {
                const std::string_view written = facts.text(c);
                out.emplace(type == "import_statement" ? written.substr(0, written.find('.')) : written);
            }
        }
    } else if (type == "return_statement" && ts_node_named_child_count(n) > 0) {
        out.emplace("return");
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) bound_in(ts_node_named_child(n, i), facts, out);
}

}  // namespace

std::optional<ArgparseOption> argparse_option(TSNode call, const ModuleFacts& facts) {
    if (!is_type(call, "call")) return std::nullopt;
    const TSNode fn = field(call, "function");
    if (!is_type(fn, "attribute") || facts.text(field(fn, "attribute")) != "add_argument") return std::nullopt;
    ArgparseOption out;  // flag: the first long option ("--use-flash"), else the first option
    const TSNode args = field(call, "arguments");
    for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
        const TSNode a = ts_node_named_child(args, i);
        if (!is_type(a, "string")) break;
        const auto v = facts.string_value(a);
        if (!v || v->empty() || (*v)[0] != '-') return std::nullopt;  // a positional argument: always given
        if (out.flag.empty() || (v->rfind("--", 0) == 0 && out.flag.rfind("--", 0) != 0)) out.flag = *v;
    }
    if (out.flag.empty()) return std::nullopt;
    if (const TSNode d = keyword_argument(call, "dest", facts); !ts_node_is_null(d)) {
        if (const auto v = facts.string_value(d)) out.dest = *v;
    } else if (const std::size_t name = out.flag.find_first_not_of('-'); name != std::string::npos) {
        out.dest = out.flag.substr(name);
        std::replace(out.dest.begin(), out.dest.end(), '-', '_');
    }
    if (out.dest.empty()) return std::nullopt;
    return out;
}

std::optional<Guard> option_default_guard(TSNode value, const ModuleFacts& facts, const FullTree& full, const GuardVocabulary& vocabulary) {
    const TSNode keyword = ts_node_parent(value);
    if (!is_type(keyword, "keyword_argument") || !ts_node_eq(field(keyword, "value"), value) || facts.text(field(keyword, "name")) != "default")
        return std::nullopt;
    const auto option = argparse_option(ts_node_parent(ts_node_parent(keyword)), facts);
    if (!option) return std::nullopt;
    const TSNode root = full.root();
    if (ts_node_is_null(root)) return std::nullopt;
    const ModuleFacts& all = full.facts();
    std::optional<GuardFinder> guards;  // of the whole file, built at the first read
    std::optional<Guard> weakest;
    bool unguarded = false;
    for_each_node(root, [&](TSNode n) {
        if (unguarded || !is_type(n, "attribute") || all.text(field(n, "attribute")) != option->dest || !is_type(field(n, "object"), "identifier"))
            return;
        // an object's own attribute of that name (`self.device`) is no read of the option
        if (all.text(field(n, "object")) == "self" || all.text(field(n, "object")) == "cls") return;
        const TSNode parent = ts_node_parent(n);
        if (is_type(parent, "assignment") && ts_node_eq(field(parent, "left"), n)) return;  // `args.backend = "gloo"`: a write
        if (!guards) guards.emplace(vocabulary, all, root);
        const Guard g = guards->guard_of(n);
        if (g.kind == GuardKind::none || g.kind == GuardKind::import_fallback) {
            unguarded = true;
            return;
        }
        if (!weakest || guard_strength(g.kind) > guard_strength(weakest->kind)) {
            weakest = g;
            weakest->note = "every read of " + std::string(all.text(n)) + " is guarded; line " + std::to_string(ts_node_start_point(n).row + 1) + ": " + g.note;
        }
    });
    if (unguarded) return std::nullopt;
    return weakest;
}

std::vector<ArgparseDeclaration> argparse_declarations(TSNode root, const ModuleFacts& facts) {
    std::vector<ArgparseDeclaration> out;
    for_each_node(root, [&](TSNode call) {
        auto option = argparse_option(call, facts);
        if (!option) return;
        const TSNode action = keyword_argument(call, "action", facts);
        const TSNode dflt = keyword_argument(call, "default", facts);
        const auto action_value = ts_node_is_null(action) ? std::optional<std::string>() : facts.string_value(action);
        ArgparseDeclaration& d = out.emplace_back();
        d.option = std::move(*option);
        if (action_value && *action_value == "store_true") d.off = ts_node_is_null(dflt) || is_type(dflt, "false") || is_type(dflt, "none");
        else if (ts_node_is_null(action) && !ts_node_is_null(dflt)) d.off = is_type(dflt, "false") || is_type(dflt, "none");
        if (!ts_node_is_null(dflt) && is_type(dflt, "string")) d.string_default = facts.string_value(dflt);
        d.line = static_cast<int>(ts_node_start_point(call).row) + 1;
    });
    return out;
}

const std::map<std::string, std::string, std::less<>>& GuardFinder::argparse_off_flags() const {
    if (m_off_flags) return *m_off_flags;
    m_off_flags.emplace();
    m_string_defaults.emplace();
    std::set<std::string> on;  // destinations some declaration turns on by default: not off, whatever others say
    for (const ArgparseDeclaration& d : argparse_declarations(m_root, m_facts)) {
        m_declared.insert(d.option.dest);
        if (d.off) m_off_flags->emplace(d.option.dest, d.option.flag);
        else on.insert(d.option.dest);
        if (d.string_default) {
            // two declarations of one destination with different defaults: none is the default
            const auto [it, added] = m_string_defaults->emplace(d.option.dest, *d.string_default);
            if (!added && it->second != *d.string_default) it->second.clear();
        }
    }
    for (const auto& d : on) m_off_flags->erase(d);
    return *m_off_flags;
}

const std::map<std::string, std::string, std::less<>>& GuardFinder::argparse_string_defaults() const {
    argparse_off_flags();  // one pass fills both
    return *m_string_defaults;
}

namespace {

// `os.getenv("NAME")`, `os.environ.get("NAME", "0")`: the variable's name, and the default as written
// (empty when none is given).
std::optional<std::pair<std::string, std::string>> env_read(TSNode call, const ModuleFacts& facts) {
    if (!is_type(call, "call")) return std::nullopt;
    const std::string q = facts.qualname(field(call, "function"));
    if (q != "os.getenv" && q != "os.environ.get") return std::nullopt;
    const auto name = facts.string_value(positional_argument(call, 0));
    if (!name || name->empty()) return std::nullopt;
    const TSNode fallback = positional_argument(call, 1);
    if (ts_node_is_null(fallback)) return std::make_pair(*name, std::string());
    // gemma_pytorch's `USE_CUDA = os.environ.get('USE_CUDA', False)`: a default of False, None or 0 is
    // off as an empty string is (a Python value, not the string the variable would hold)
    if (is_type(fallback, "false") || is_type(fallback, "none") || (is_type(fallback, "integer") && facts.text(fallback) == "0"))
        return std::make_pair(*name, std::string(facts.text(fallback)));
    const auto value = facts.string_value(fallback);
    if (!value) return std::nullopt;  // a default that is no literal: not known to be off
    return std::make_pair(*name, *value);
}

// The operator of a comparison of two operands (`==`, `in`, `not in`), trimmed; empty for any other node.
std::string_view comparison_op(TSNode condition, const ModuleFacts& facts) {
    if (!is_type(condition, "comparison_operator") || ts_node_named_child_count(condition) != 2) return {};
    const TSNode left = ts_node_named_child(condition, 0), right = ts_node_named_child(condition, 1);
    std::string_view op = facts.text(condition).substr(ts_node_end_byte(left) - ts_node_start_byte(condition),
                                                       ts_node_start_byte(right) - ts_node_end_byte(left));
    const auto first = op.find_first_not_of(" \t\r\n\\");
    if (first == std::string_view::npos) return {};
    op = op.substr(first, op.find_last_not_of(" \t\r\n\\") - first + 1);
    return op;
}

// `x == "s"` or `"s" == x`: the other operand and the string's
// value (a literal, or a module constant holding one). nullopt for any other condition.
std::optional<std::pair<TSNode, std::string>> equals_string(TSNode condition, const ModuleFacts& facts) {
    if (comparison_op(condition, facts) != "==") return std::nullopt;
    const TSNode left = ts_node_named_child(condition, 0), right = ts_node_named_child(condition, 1);
    const bool string_left = is_type(left, "string");
    const auto value = facts.string_value(string_left ? left : right);
    if (!value) return std::nullopt;
    return std::make_pair(string_left ? right : left, *value);
}

bool truthy_word(std::string_view v) {
    for (std::string_view w : {"1", "True", "true", "TRUE", "yes", "on", "ON"})
        if (v == w) return true;
    return false;
}

}  // namespace

// `if os.getenv("USE_JIT") == "True":`, `if os.environ.get("FLAG"):`, or through a module constant
// bound from such a read: an environment switch that is off unless the run sets it. The note names it
// as `$NAME`, which analyzer/option_flags.cpp looks for as `NAME=` in the repository's commands.
const std::map<std::string, std::pair<std::string, std::string>, std::less<>>& GuardFinder::env_constants() const {
    if (m_env_constants) return *m_env_constants;
    m_env_constants.emplace();
    std::set<std::string, std::less<>> rebound;  // bound twice, or once from something else
    for_each_node(m_root, [&](TSNode a) {
        if (!is_type(a, "assignment") || !is_type(field(a, "left"), "identifier")) return;
        const std::string_view name = m_facts.text(field(a, "left"));
        const auto read = env_read(field(a, "right"), m_facts);
        if (!read || m_env_constants->count(name)) rebound.emplace(name);
        else m_env_constants->emplace(std::string(name), *read);
    });
    for (const auto& name : rebound) m_env_constants->erase(name);
    return *m_env_constants;
}

std::optional<std::string> GuardFinder::env_off_by_default(TSNode condition) const {
    auto read = [&](TSNode n) -> std::optional<std::pair<std::string, std::string>> {
        if (!is_type(n, "identifier")) return env_read(n, m_facts);
        const auto& constants = env_constants();
        const auto it = constants.find(m_facts.text(n));
        return it == constants.end() ? std::nullopt : std::optional<std::pair<std::string, std::string>>(it->second);
    };
    if (auto r = read(condition); r && (r->second.empty() || r->second == "0" || r->second == "False" || r->second == "false" || r->second == "None"))
        return "$" + r->first;
    const auto eq = equals_string(condition, m_facts);
    if (!eq) return std::nullopt;
    const auto r = read(eq->first);
    if (!r || !truthy_word(eq->second) || r->second == eq->second) return std::nullopt;
    return "$" + r->first;
}

std::optional<std::string> GuardFinder::off_by_default(TSNode condition) const {
    if (is_type(condition, "parenthesized_expression") && ts_node_named_child_count(condition) == 1) return off_by_default(ts_node_named_child(condition, 0));
    // `self.model.training == True and not self.training_mode` (AudioLDM's CLAP conditioner, whose
    // training_mode defaults to True): an `and` holds only where each operand does.
    if (is_type(condition, "boolean_operator") && m_facts.text(field(condition, "operator")) == "and") {
        if (auto left = off_by_default(field(condition, "left"))) return left;
        return off_by_default(field(condition, "right"));
    }
    if (auto flag = off_by_default_flag(condition, m_facts)) return flag;  // a parameter's default
    if (auto env = env_off_by_default(condition)) return env;
    // `getattr(model, "_converted_to_transformer_engine", False)` (accelerate's unwrap path): an
    // attribute that holds only where some code set it, false where none did.
    if (is_type(condition, "call") && m_facts.text(field(condition, "function")) == "getattr") {
        const TSNode args = field(condition, "arguments");
        if (!ts_node_is_null(args) && is_type(args, "argument_list") && ts_node_named_child_count(args) == 3) {
            const auto name = m_facts.string_value(ts_node_named_child(args, 1));
            const std::string_view fallback = m_facts.text(ts_node_named_child(args, 2));
            if (name && (fallback == "False" || fallback == "None" || fallback == "0"))
                return "getattr(..., \"" + *name + "\", " + std::string(fallback) + "): false where no code set " + *name;
        }
    }
    // `wass_metric = args.wass_flag` at module level, then `if wass_metric:` (PyTorch-GAN's cluster_gan):
    // a name the module binds once, to an option off by default, is that option. Bindings in functions
    // and classes are theirs (cluster_gan's `def __init__(self, wass_metric=False)`), unless they are
    // the tested name's own scope's.
    if (is_type(condition, "identifier")) {
        const TSNode own = enclosing(condition, {"function_definition", "class_definition"});
        TSNode bound{};
        int bindings = 0;
        for (TSNode use : m_facts.identifiers_named(m_facts.text(condition))) {
            const TSNode parent = ts_node_parent(use);
            const std::string_view type = node_type(parent);
            const bool stores = (type == "assignment" || type == "augmented_assignment" || type == "for_statement") && ts_node_eq(field(parent, "left"), use);
            const bool names = ((type == "default_parameter" || type == "typed_default_parameter") && ts_node_eq(field(parent, "name"), use)) ||
                               type == "parameters" || type == "typed_parameter" || type == "pattern_list" || type == "tuple_pattern" ||
                               type == "global_statement" || type == "nonlocal_statement" || type == "as_pattern_target";
            if (!stores && !names) continue;
            const TSNode scope = enclosing(use, {"function_definition", "class_definition"});
            if (!ts_node_is_null(own) && ts_node_eq(scope, own)) return std::nullopt;  // a local of the tested name's function
            if (!ts_node_is_null(scope)) continue;  // another function's or class's own
            ++bindings;
            if (type == "assignment" && is_type(ts_node_parent(ts_node_parent(parent)), "module")) bound = parent;
        }
        if (bindings != 1 || ts_node_is_null(bound)) return std::nullopt;
        const TSNode value = field(bound, "right");
        if (!is_type(value, "attribute")) return std::nullopt;
        return off_by_default(value);  // the option's own note: a command that passes it turns the branch on
    }
    if (!is_type(condition, "attribute")) return std::nullopt;
    if (auto elsewhere = off_elsewhere(condition)) return elsewhere;
    if (!is_type(field(condition, "object"), "identifier") || m_facts.text(field(condition, "object")) == "self") return std::nullopt;
    const auto& flags = argparse_off_flags();
    const auto it = flags.find(m_facts.text(field(condition, "attribute")));
    if (it == flags.end()) return std::nullopt;
    return it->second;
}

std::optional<std::string> GuardFinder::off_elsewhere(TSNode attribute) const {
    if (!m_elsewhere) return std::nullopt;
    const TSNode object = field(attribute, "object");
    const bool options = (is_type(object, "identifier") && listed(m_vocab.argparse_objects, m_facts.text(object))) ||
                         (is_type(object, "attribute") && m_facts.text(field(object, "object")) == "self" &&
                          listed(m_vocab.argparse_objects, m_facts.text(field(object, "attribute"))));
    if (!options) return std::nullopt;
    const std::string_view name = m_facts.text(field(attribute, "attribute"));
    argparse_off_flags();  // fills m_declared
    if (m_declared.count(name)) return std::nullopt;  // this file's own option: its declaration decides
    const auto it = m_elsewhere->find(name);
    if (it == m_elsewhere->end()) return std::nullopt;
    return it->second;
}

bool GuardFinder::is_option_test(TSNode condition) const {
    // `attention_type == "flash"`, `opt.backbone in ("grid", "grid_tcnn")`, `not use_fused`, `opt.ff`:
    // a value the run chooses among named implementations, or a switch named for one (rules/program.yaml
    // option_flag_prefixes) or read off the options object (option_objects). Not `x is None`, `n == 0`
    // or `os.path.exists(p)`: control flow, no choice.
    const std::string_view type = node_type(condition);
    if (type == "parenthesized_expression" && ts_node_named_child_count(condition) == 1) return is_option_test(ts_node_named_child(condition, 0));
    if (type == "not_operator") return is_option_test(field(condition, "argument"));
    if (type == "boolean_operator") return is_option_test(field(condition, "left")) || is_option_test(field(condition, "right"));
    if (type == "attribute" && listed(m_vocab.option_objects, m_facts.text(field(condition, "object")))) return true;  // `opt.ff`
    if (type == "identifier" && unpacked_kind(condition)) return true;
    if (type == "identifier" || type == "attribute") {
        const std::string_view name = type == "identifier" ? m_facts.text(condition) : m_facts.text(field(condition, "attribute"));
        return std::any_of(m_vocab.option_flag_prefixes.begin(), m_vocab.option_flag_prefixes.end(),
                           [&](const std::string& p) { return name.substr(0, p.size()) == p; });
    }
    if (type != "comparison_operator" || ts_node_named_child_count(condition) != 2) return false;
    // A name among named implementations: a string, or a member of an enumeration written as one
    // (accelerate's `self.fp8_backend == FP8BackendType.TE`: a class's name, an upper-case member).
    auto member = [&](TSNode n) {
        if (!is_type(n, "attribute")) return false;
        const std::string_view attr = m_facts.text(field(n, "attribute"));
        const TSNode object = field(n, "object");
        const std::string_view cls = is_type(object, "identifier") ? m_facts.text(object)
                                   : is_type(object, "attribute") ? m_facts.text(field(object, "attribute"))
                                                                  : std::string_view();
        const bool upper = !attr.empty() && std::any_of(attr.begin(), attr.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); }) &&
                           std::all_of(attr.begin(), attr.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'; });
        const bool class_name = cls.size() > 1 && std::isupper(static_cast<unsigned char>(cls[0])) &&
                                std::any_of(cls.begin(), cls.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)); });
        return upper && class_name;
    };
    auto strings = [&](TSNode n) {
        if (is_type(n, "string")) return m_facts.string_value(n).has_value();
        if (member(n)) return true;
        if (!is_type(n, "tuple") && !is_type(n, "list") && !is_type(n, "set")) return false;
        for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
            if (!is_type(ts_node_named_child(n, i), "string") && !member(ts_node_named_child(n, i))) return false;
        return ts_node_named_child_count(n) > 0;
    };
    const TSNode left = ts_node_named_child(condition, 0), right = ts_node_named_child(condition, 1);
    if (strings(left) == strings(right)) return false;
    // `for n, p in model.named_parameters(): if n == "emb.weight":` tests each item in turn, every
    // arm runs: the variable of an enclosing `for` loop is no option.
    const TSNode tested = strings(left) ? right : left;
    return !is_type(tested, "identifier") || ts_node_is_null(binding_loop(condition, m_facts.text(tested), m_facts));
}

bool GuardFinder::distributed_name(std::string_view name) const {
    // in any case: a config key (TimeSformer's and SlowFast's `cfg.NUM_GPUS > 1`) is the flag's name too
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return listed(m_vocab.distributed_names, lower);
}

bool GuardFinder::names_mps(std::string_view name) const {
    std::size_t start = 0;
    while (start <= name.size()) {
        const std::size_t end = std::min(name.find('_', start), name.size());
        std::string word(name.substr(start, end - start));
        std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (!word.empty() && listed(m_vocab.mps_strings, word)) return true;
        start = end + 1;
    }
    return false;
}

bool GuardFinder::names_implementation(TSNode condition) const {
    // `impl == "te"`, `kind in ("a", "b")`, and `or` of such: a value named among implementations
    const std::string_view type = node_type(condition);
    if (type == "parenthesized_expression" && ts_node_named_child_count(condition) == 1) return names_implementation(ts_node_named_child(condition, 0));
    if (type == "boolean_operator")
        return m_facts.text(field(condition, "operator")) == "or" && names_implementation(field(condition, "left")) &&
               names_implementation(field(condition, "right"));
    const std::string_view op = comparison_op(condition, m_facts);
    return (op == "==" || op == "in") && is_option_test(condition);
}

bool GuardFinder::unpacked_kind(TSNode name) const {
    // yolov5's DetectMultiBackend: `pt, jit, onnx, engine, ... = self._model_type(w)` unpacks one flag
    // per kind of weights from one call, and `if pt: ... elif engine: ...` picks the arm of the kind
    // given: a choice among implementations, as `if backend == "trt":` is. At least three names, each
    // bound only there in the function.
    const TSNode scope = enclosing(name, {"function_definition"});
    if (ts_node_is_null(scope)) return false;
    const std::string_view text = m_facts.text(name);
    int unpacked = 0, other = 0;
    for_each_node(field(scope, "body"), [&](TSNode n) {
        if (!is_type(n, "assignment")) return;
        const TSNode left = field(n, "left");
        if (is_type(left, "identifier")) {
            other += m_facts.text(left) == text;
            return;
        }
        if (!is_type(left, "pattern_list") && !is_type(left, "tuple_pattern")) return;
        bool names = ts_node_named_child_count(left) >= 3, here = false;
        for (uint32_t i = 0; i < ts_node_named_child_count(left); ++i) {
            const TSNode c = ts_node_named_child(left, i);
            names = names && is_type(c, "identifier");
            here = here || (is_type(c, "identifier") && m_facts.text(c) == text);
        }
        if (here) (names && is_type(field(n, "right"), "call") ? unpacked : other) += 1;
    });
    return unpacked == 1 && other == 0;
}

std::optional<std::string> GuardFinder::tested_package(TSNode condition, TSNode node) const {
    // Fooocus' `if model_management.xformers_enabled(): import xformers`: a test that names the package
    // it guards says whether the package is there (or wanted); where it is not, the code goes on
    // without it. The package's name is matched inside the test's identifiers, ignoring case, and only
    // a name of four letters or more (`te`, `os` would match by chance); a negated test is not one.
    if (is_type(condition, "not_operator")) return std::nullopt;
    const TSNode import = is_type(node, "import_statement") || is_type(node, "import_from_statement")
                              ? node : enclosing(node, {"import_statement", "import_from_statement"});
    if (ts_node_is_null(import)) return std::nullopt;
    std::vector<std::string> packages;
    for (std::string top : imported_packages(import, m_facts)) {
        std::transform(top.begin(), top.end(), top.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (top.size() >= 4) packages.push_back(std::move(top));
    }
    std::optional<std::string> found;
    for_each_node(condition, [&](TSNode n) {
        if (found || !is_type(n, "identifier")) return;
        std::string name(m_facts.text(n));
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        for (const auto& p : packages)
            if (name.find(p) != std::string::npos) found = p;
    });
    return found;
}

Guard GuardFinder::from_alternative(TSNode if_statement, TSNode node) const {
    // `if attention_type == "flash": self.attention = QKVFlashAttention(...)` / `else:
    // self.attention = QKVAttentionLegacy(...)`: one job, two ways. When another arm binds what the
    // node's arm binds and writes no CUDA word, a Mac selects that arm (rules/program.yaml cuda_words).
    std::vector<TSNode> arms{field(if_statement, "consequence")};
    std::vector<std::string> labels{one_line(field(if_statement, "condition"))};
    std::vector<TSNode> conditions{field(if_statement, "condition")};
    // Among kinds unpacked from one call, a flag parameter off by default is one more kind
    // (DetectMultiBackend's `elif dnn:`, `def __init__(..., dnn=False)`).
    bool kinds = false;
    for (uint32_t i = 0; i < ts_node_named_child_count(if_statement) && !kinds; ++i) {
        const TSNode clause = ts_node_named_child(if_statement, i);
        const TSNode c = is_type(clause, "elif_clause") ? field(clause, "condition") : i == 0 ? field(if_statement, "condition") : TSNode{};
        kinds = !ts_node_is_null(c) && is_type(c, "identifier") && unpacked_kind(c);
    }
    auto choice = [&](TSNode condition) {
        return classify(condition).kind == GuardKind::none &&
               (is_option_test(condition) || (kinds && is_type(condition, "identifier") && off_by_default_flag(condition, m_facts)));
    };
    if (!choice(field(if_statement, "condition"))) return {};
    for (uint32_t i = 0; i < ts_node_named_child_count(if_statement); ++i) {
        const TSNode clause = ts_node_named_child(if_statement, i);
        if (is_type(clause, "elif_clause")) {
            if (!choice(field(clause, "condition"))) return {};
            arms.push_back(field(clause, "consequence"));
            labels.push_back(one_line(field(clause, "condition")));
            conditions.push_back(field(clause, "condition"));
        } else if (is_type(clause, "else_clause")) {
            arms.push_back(field(clause, "body"));
            labels.push_back("else");
            conditions.push_back(TSNode{});
        }
    }
    const auto own = std::find_if(arms.begin(), arms.end(), [&](TSNode arm) { return !ts_node_is_null(arm) && contains(arm, node); });
    if (arms.size() < 2 || own == arms.end()) return {};
    // The arm the option's default takes is the run as documented, not one way among others
    // (style-based-gan-pytorch: `if args.loss == 'wgan-gp':` with `--loss` defaulting to 'wgan-gp').
    if (const TSNode c = conditions[static_cast<std::size_t>(own - arms.begin())]; !ts_node_is_null(c))
        if (const auto eq = equals_string(c, m_facts);
            eq && is_type(eq->first, "attribute") && listed(m_vocab.option_objects, m_facts.text(field(eq->first, "object")))) {
            const auto& defaults = argparse_string_defaults();
            const auto it = defaults.find(m_facts.text(field(eq->first, "attribute")));
            if (it != defaults.end() && it->second == eq->second) return {};
        }
    // The arm a parameter's default takes (consistency_models' `def __init__(..., attention_type='flash')`
    // then `if attention_type == 'flash':`): the run as written takes it (default-arm).
    bool default_arm = false;
    if (const TSNode c = conditions[static_cast<std::size_t>(own - arms.begin())]; !ts_node_is_null(c))
        if (const auto eq = equals_string(c, m_facts)) {
            const TSNode value = flag_default(eq->first, m_facts);
            default_arm = is_type(value, "string") && m_facts.string_value(value) == eq->second;
        }
    std::set<std::string, std::less<>> mine;
    bound_in(*own, m_facts, mine);
    if (mine.empty()) return {};
    // What the node does: the callee around it (`DDP` in both arms of yolov5's smart_DDP is one job
    // done one way) or the module it imports. An arm that writes it again is no alternative.
    // The object a method is called on counts too: nvdiffrast calls `_get_plugin().texture_grad_linear`
    // in one arm and `_get_plugin().texture_grad_nearest` in the other, one extension both ways.
    std::vector<std::string> subjects;
    TSNode start = node;  // a statement asked about: the first call in it
    if (!is_type(node, "call")) for_each_node(node, [&](TSNode n) {
            if (ts_node_eq(start, node) && is_type(n, "call")) start = n;
        });
    for (TSNode cur = start; !ts_node_is_null(cur) && subjects.empty() && contains(*own, cur); cur = ts_node_parent(cur)) {
        if (is_type(cur, "call")) {
            const TSNode fn = field(cur, "function");
            if (is_type(fn, "attribute")) {
                const std::string_view receiver = m_facts.text(field(fn, "object"));
                // `torch.device(...)`: torch is no subject of its own (every arm names it), the
                // function of it is; an extension module (`_nvdiffrast_c.texture_grad_linear`) is
                const std::string module = m_facts.qualname(field(fn, "object"));
                if (is_type(field(fn, "object"), "identifier") && m_facts.is_imported(receiver) &&
                    (module == "torch" || module.rfind("torch.", 0) == 0 || module == "numpy")) {
                    subjects.emplace_back(m_facts.text(fn));
                    continue;
                }
                subjects.emplace_back(m_facts.text(field(fn, "attribute")));
                if (receiver != "self" && receiver != "cls") subjects.emplace_back(receiver);
            } else {
                subjects.emplace_back(m_facts.text(fn));
            }
        } else if (is_type(cur, "import_from_statement")) {
            subjects.emplace_back(m_facts.text(field(cur, "module_name")));
        } else if (is_type(cur, "import_statement") && ts_node_named_child_count(cur) > 0) {
            const TSNode first = ts_node_named_child(cur, 0);
            subjects.emplace_back(m_facts.text(is_type(first, "aliased_import") ? field(first, "name") : first));
        }
    }
    Guard found;  // every arm that does the job without CUDA: the first names it
    for (std::size_t i = 0; i < arms.size(); ++i) {
        if (arms[i].id == own->id || ts_node_is_null(arms[i])) continue;
        // what the arm's code writes, not its comments (`# .to(), .cpu(), .cuda() work on it`)
        std::string code;
        std::size_t from = ts_node_start_byte(arms[i]);
        for_each_node(arms[i], [&](TSNode n) {
            if (!is_type(n, "comment") || ts_node_start_byte(n) < from) return;
            code.append(m_facts.source().substr(from, ts_node_start_byte(n) - from));
            from = ts_node_end_byte(n);
        });
        code.append(m_facts.source().substr(from, ts_node_end_byte(arms[i]) - from));
        if (std::any_of(m_vocab.cuda_words.begin(), m_vocab.cuda_words.end(),
                        [&](const std::string& w) { return code.find(w) != std::string::npos; }))
            continue;
        if (std::any_of(subjects.begin(), subjects.end(), [&](const std::string& w) { return code.find(w) != std::string::npos; })) continue;
        std::set<std::string, std::less<>> theirs;
        bound_in(arms[i], m_facts, theirs);
        const auto shared = std::find_if(mine.begin(), mine.end(), [&](const std::string& name) { return theirs.count(name) > 0; });
        if (shared == mine.end()) continue;
        const std::string note = "the arm `" + labels[i] + "` binds " + *shared + " without CUDA";
        if (found.kind == GuardKind::none)
            found = {default_arm ? GuardKind::default_arm : GuardKind::alternative_branch, false,
                     default_arm ? "the default takes this arm (" + one_line(conditions[static_cast<std::size_t>(own - arms.begin())]) + "); " + note : note};
        found.arms.push_back({static_cast<int>(ts_node_start_point(arms[i]).row) + 1, static_cast<int>(ts_node_end_point(arms[i]).row) + 1, note});
    }
    return found;
}

Guard GuardFinder::from_exiting_else(TSNode if_statement) const {
    // `if "RANK" in os.environ: ... elif "SLURM_PROCID" in os.environ: ... else: return`: past the
    // chain, one of its conditions held (DETR's and MAE's init_distributed_mode, which returns early in
    // a single process). Only when the else alone leaves, and every condition is the same kind of test
    // of the CUDA path; the weakest of them guards the rest of the block.
    std::vector<TSNode> conditions{field(if_statement, "condition")}, bodies{field(if_statement, "consequence")};
    TSNode else_body{};
    for (uint32_t i = 0; i < ts_node_named_child_count(if_statement); ++i) {
        const TSNode clause = ts_node_named_child(if_statement, i);
        if (is_type(clause, "elif_clause")) {
            conditions.push_back(field(clause, "condition"));
            bodies.push_back(field(clause, "consequence"));
        } else if (is_type(clause, "else_clause")) {
            else_body = field(clause, "body");
        }
    }
    auto leaves = [&](TSNode block) {
        for (uint32_t k = 0; !ts_node_is_null(block) && k < ts_node_named_child_count(block); ++k)
            if (is_exit(ts_node_named_child(block, k))) return true;
        return false;
    };
    if (ts_node_is_null(else_body) || !leaves(else_body) || std::any_of(bodies.begin(), bodies.end(), leaves)) return {};
    GuardKind weakest = GuardKind::none;
    for (TSNode c : conditions) {
        const Test t = classify(c);
        if (t.mps) return {GuardKind::none, true, ""};
        if (t.kind == GuardKind::none || t.negated || t.cpu || t.kind == GuardKind::import_fallback ||
            (t.kind == GuardKind::platform && t.names_mac))
            return {};
        if (weakest == GuardKind::none || guard_strength(t.kind) > guard_strength(weakest)) weakest = t.kind;  // more of the path
    }
    return {weakest, false, "past the else that returns: " + one_line(conditions[0]) + (conditions.size() > 1 ? " / elif ..." : "")};
}

Guard GuardFinder::after_absent_import(TSNode block, TSNode node) const {
    const TSNode arm = ts_node_parent(block);
    if (!is_type(arm, "if_statement") && !is_type(arm, "elif_clause") && !is_type(arm, "else_clause")) return {};
    // a later import is weighed as an import (`import triton` then `import triton.language as tl` is
    // one dependency, whose guard is the arm's)
    if (is_type(node, "import_statement") || is_type(node, "import_from_statement")) return {};
    // The packages a statement imports for certain: an import, or a try that imports them in its body
    // and again in every handler that goes on (MobileSAMv2's ultralytics: `try: import tensorrt as trt
    // except ImportError: check_requirements(...); import tensorrt as trt`).
    auto certain_imports = [&](TSNode stmt) {
        if (!is_type(stmt, "try_statement")) return imported_packages(stmt, m_facts);
        auto direct = [&](TSNode b) {
            std::vector<std::string> out;
            for (uint32_t k = 0; !ts_node_is_null(b) && k < ts_node_named_child_count(b); ++k) {
                const auto more = imported_packages(ts_node_named_child(b, k), m_facts);
                out.insert(out.end(), more.begin(), more.end());
            }
            return out;
        };
        std::vector<std::string> out = direct(field(stmt, "body"));
        for (uint32_t k = 0; k < ts_node_named_child_count(stmt); ++k) {
            const TSNode clause = ts_node_named_child(stmt, k);
            if (!is_type(clause, "except_clause")) continue;
            const TSNode handler = ts_node_named_child(clause, ts_node_named_child_count(clause) - 1);
            if (!is_type(handler, "block") || always_leaves(handler)) continue;
            const std::vector<std::string> again = direct(handler);
            out.erase(std::remove_if(out.begin(), out.end(), [&](const std::string& p) { return std::find(again.begin(), again.end(), p) == again.end(); }),
                      out.end());
        }
        return out;
    };
    for (uint32_t i = 0; i < ts_node_named_child_count(block); ++i) {
        const TSNode stmt = ts_node_named_child(block, i);
        if (ts_node_start_byte(stmt) >= ts_node_start_byte(node)) break;
        for (const std::string& top : certain_imports(stmt))
            for (const std::string& word : identifier_words(top))
                if (listed(m_vocab.mac_absent_package_words, word)) {
                    // a try is named by the import in its body (the handler imports it again)
                    TSNode shown = stmt;
                    for (uint32_t k = 0; is_type(stmt, "try_statement") && k < ts_node_named_child_count(field(stmt, "body")); ++k)
                        if (const TSNode b = ts_node_named_child(field(stmt, "body"), k); !imported_packages(b, m_facts).empty()) {
                            shown = b;
                            break;
                        }
                    return {GuardKind::device_check, false,
                            "after `" + one_line(shown) + "` (line " + std::to_string(ts_node_start_point(shown).row + 1) + "): a package a Mac never has, so the arm stops there"};
                }
    }
    return {};
}

Guard GuardFinder::from_early_exit(TSNode block, TSNode node) const {
    // `if not x.is_cuda: return cpu_path(x)` guards the rest of the block; so does a test's
    // `if not torch.cuda.is_available(): self.skipTest(...)`. A `raise` is a requirement, not a guard.
    const uint32_t n = ts_node_named_child_count(block);
    for (uint32_t i = 0; i < n; ++i) {
        TSNode stmt = ts_node_named_child(block, i);
        if (ts_node_start_byte(stmt) >= ts_node_start_byte(node)) break;
        if (const TSNode call = is_type(stmt, "expression_statement") ? ts_node_named_child(stmt, 0) : TSNode{};
            is_type(call, "call") && is_type(field(call, "function"), "identifier") && m_skip_helpers.count(m_facts.text(field(call, "function"))))
            return {GuardKind::test_skip, false, "after " + one_line(stmt) + ", which skips the test without CUDA"};
        if (!is_type(stmt, "if_statement")) continue;
        if (Guard g = from_exiting_else(stmt); g.kind != GuardKind::none || g.mps_aware) return g;
        TSNode body = field(stmt, "consequence");
        bool exits = false, skips = false;
        for (uint32_t k = 0; k < ts_node_named_child_count(body); ++k) {
            TSNode s = ts_node_named_child(body, k);
            if (is_exit(s)) exits = true;
            if (is_skip_statement(s)) skips = true;
        }
        if (!exits && !skips) continue;
        const Test t = classify(field(stmt, "condition"));
        if (skips) return {GuardKind::test_skip, false, one_line(field(stmt, "condition"))};
        // A test that names MPS either way knows it: past `if cpu_mode() or mps_mode(): return False`
        // (Fooocus) MPS never gets, past `if not use_mps: return` only MPS does.
        if (t.mps) return {GuardKind::none, true, ""};
        if (t.kind == GuardKind::none || !t.negated) continue;
        return {t.cpu && t.kind == GuardKind::device_check ? GuardKind::non_cpu_branch : t.kind, false, "after: " + one_line(field(stmt, "condition"))};
    }
    return {};
}

namespace {

void collect(TSNode node, std::string_view type, std::vector<TSNode>& out) {
    if (is_type(node, type)) out.push_back(node);
    for (uint32_t i = 0; i < ts_node_named_child_count(node); ++i) collect(ts_node_named_child(node, i), type, out);
}

}  // namespace

bool GuardFinder::rebuilds_import(TSNode try_statement, TSNode handler) const {
    // `try: import pkg._ext as _ext` / `except ImportError: _ext = load(...)` builds the same CUDA
    // code just in time: no fallback at all (Pointnet2, gsplat). So does a handler that imports the
    // same module again by another path.
    std::vector<TSNode> imports, assignments;
    collect(field(try_statement, "body"), "import_statement", imports);
    collect(field(try_statement, "body"), "import_from_statement", imports);
    std::vector<std::string> bound;
    for (TSNode imp : imports)
        for (uint32_t i = 0; i < ts_node_named_child_count(imp); ++i) {
            TSNode c = ts_node_named_child(imp, i);
            TSNode name = is_type(c, "aliased_import") ? field(c, "alias") : c;
            const std::string_view text = m_facts.text(name);
            bound.push_back(last_component(text));
        }
    // `try: from .correlation import correlation` / `except: sys.path.insert(0, './correlation');
    // import correlation` (sniklaus/pytorch-pwc's run.py): the same module by another path, no other
    // code. One dotted path ending the other (`.utils.box_ops` and `utils.box_ops` too) is the same
    // module; `ujson` and `json`, `flash_attn.flash_attn_func` and `.attn.flash_attn_func` are not.
    auto split = [](std::string_view dotted, std::vector<std::string>& into) {  // "a.b" -> a, b; leading dots dropped
        dotted.remove_prefix(std::min(dotted.size(), dotted.find_first_not_of('.')));
        for (std::size_t pos = 0; !dotted.empty() && pos <= dotted.size();) {
            const std::size_t dot = std::min(dotted.find('.', pos), dotted.size());
            into.emplace_back(dotted.substr(pos, dot - pos));
            pos = dot + 1;
        }
    };
    auto paths = [&](TSNode imp) {
        std::vector<std::vector<std::string>> out;
        std::vector<std::string> base;
        const bool from = is_type(imp, "import_from_statement");
        if (from) split(m_facts.text(field(imp, "module_name")), base);
        for (uint32_t i = 0; i < ts_node_named_child_count(imp); ++i) {
            const TSNode c = ts_node_named_child(imp, i);
            if (from && ts_node_start_byte(c) == ts_node_start_byte(field(imp, "module_name"))) continue;
            const TSNode name = is_type(c, "aliased_import") ? field(c, "name") : c;
            if (!is_type(name, "dotted_name")) continue;
            out.push_back(base);
            split(m_facts.text(name), out.back());
        }
        return out;
    };
    auto ends = [](const std::vector<std::string>& longer, const std::vector<std::string>& shorter) {
        return shorter.size() <= longer.size() && std::equal(shorter.rbegin(), shorter.rend(), longer.rbegin());
    };
    // Only for the repository's own code found another way: a relative import tried first, or a
    // handler that edits sys.path. A package imported again after installing it (yolov5's
    // `except Exception: check_requirements("tensorrt"); import tensorrt as trt`) is weighed as before.
    bool own_path = false;
    for (TSNode imp : imports)
        own_path = own_path || (is_type(imp, "import_from_statement") && m_facts.text(field(imp, "module_name")).substr(0, 1) == ".");
    for_each_node(handler, [&](TSNode n) {
        if (!is_type(n, "call")) return;
        const std::string q = m_facts.qualname(field(n, "function"));
        own_path = own_path || q == "sys.path.insert" || q == "sys.path.append";
    });
    std::vector<TSNode> again;
    if (own_path) {
        collect(handler, "import_statement", again);
        collect(handler, "import_from_statement", again);
    }
    for (TSNode imp : imports)
        for (const auto& tried : paths(imp))
            for (TSNode other : again)
                for (const auto& p : paths(other))
                    if (ends(tried, p) || ends(p, tried)) return true;
    collect(handler, "assignment", assignments);
    for (TSNode a : assignments) {
        TSNode right = field(a, "right");
        if (!is_type(right, "call") || !listed(bound, m_facts.text(field(a, "left")))) continue;
        TSNode fn = field(right, "function");
        const std::string callee = last_component(m_facts.text(fn));
        if (callee.find("load") != std::string::npos || callee.find("build") != std::string::npos) return true;
    }
    return false;
}

// Whether a handler's block always ends the program or re-raises: a top-level `raise`, or a call of
// sys.exit/exit/quit/os._exit, however much it logs first, or an if whose every arm does (Mask2Former's
// setup: `else: if CUDA_HOME is None: raise ... else: raise ...`), or one that does unless an install
// script's flag is set (rules/program.yaml install_flags). Such a handler holds no fallback (dinov2's
// `except ImportError: raise AssertionError("xFormers is required")`).
bool GuardFinder::always_leaves(TSNode block) const {
    if (ts_node_is_null(block)) return false;
    // `not <a read of an install flag>`: true whenever the program runs
    auto unless_installing = [&](TSNode condition) {
        if (!is_type(condition, "not_operator")) return false;
        bool flag = false;
        for_each_node(field(condition, "argument"), [&](TSNode n) {
            if (flag) return;
            if (is_type(n, "identifier")) flag = matches_any_glob(m_vocab.install_flags, m_facts.text(n));
            else if (is_type(n, "string"))
                if (const auto v = m_facts.string_value(n)) flag = matches_any_glob(m_vocab.install_flags, *v);
        });
        return flag;
    };
    for (uint32_t k = 0; k < ts_node_named_child_count(block); ++k) {
        TSNode s = ts_node_named_child(block, k);
        if (is_type(s, "raise_statement")) return true;
        if (is_type(s, "if_statement")) {
            const IfArms arms = if_arms(s);
            if (arms.has_else && std::all_of(arms.blocks.begin(), arms.blocks.end(), [&](TSNode b) { return always_leaves(b); })) return true;
            if (arms.blocks.size() == 1 && unless_installing(field(s, "condition")) && always_leaves(arms.blocks.front())) return true;
            continue;
        }
        if (!is_type(s, "expression_statement") || ts_node_named_child_count(s) != 1) continue;
        TSNode call = ts_node_named_child(s, 0);
        if (is_type(call, "call") && listed(m_vocab.exit_calls, m_facts.qualname(field(call, "function")))) return true;
    }
    return false;
}

std::vector<TSNode> GuardFinder::import_error_handlers(TSNode try_statement) const {
    // The blocks of the except clauses that catch an import error (rules/program.yaml import_errors).
    std::vector<TSNode> handlers;
    const uint32_t n = ts_node_named_child_count(try_statement);
    for (uint32_t i = 0; i < n; ++i) {
        TSNode clause = ts_node_named_child(try_statement, i);
        if (!is_type(clause, "except_clause")) continue;
        // Its named children, less comments (a `# CPU` after a bare `except:` is a child of the
        // clause, not of its block: Mask2Former's fallback was taken for a clause naming a comment).
        std::vector<TSNode> parts;
        for (uint32_t k = 0; k < ts_node_named_child_count(clause); ++k)
            if (!is_type(ts_node_named_child(clause, k), "comment")) parts.push_back(ts_node_named_child(clause, k));
        if (parts.empty()) continue;
        bool catches = parts.size() == 1;  // a bare `except:`
        for (std::size_t k = 0; k + 1 < parts.size() && !catches; ++k) {
            // the exception names, also inside a tuple or an `as` pattern
            for_each_node(parts[k], [&](TSNode e) {
                if (!catches && (is_type(e, "identifier") || is_type(e, "attribute")))
                    catches = listed(m_vocab.import_errors, last_component(m_facts.text(e)));
            });
        }
        if (catches) handlers.push_back(parts.back());
    }
    return handlers;
}

Guard GuardFinder::from_try(TSNode try_statement, TSNode node) const {
    if (!contains(field(try_statement, "body"), node)) return {};
    // Code that is no import: a handler that skips the rest of the work (`except Exception as e:
    // print(e); continue` around Yet-Another-EfficientDet-Pytorch's whole training step; break; a
    // bare return) leaves no way round the CUDA call, it only hides the failure on every batch.
    bool import_site = false;
    for (TSNode n = node; !ts_node_is_null(n) && !ts_node_eq(n, try_statement) && !import_site; n = ts_node_parent(n))
        import_site = is_type(n, "import_statement") || is_type(n, "import_from_statement");
    auto skips_the_rest = [&](TSNode block) {
        const uint32_t count = ts_node_named_child_count(block);
        for (uint32_t k = count; k > 0; --k) {
            const TSNode last = ts_node_named_child(block, k - 1);
            if (is_type(last, "comment")) continue;
            // `return x` (sam2's `except Exception: return x`) hands back another result: a way round
            if (is_type(last, "return_statement"))
                return ts_node_named_child_count(last) == 0 || m_facts.text(ts_node_named_child(last, 0)) == "None";
            return is_type(last, "continue_statement") || is_type(last, "break_statement");
        }
        return false;
    };
    // `world_size, rank = 1, 0` in the handler (I-JEPA's and V-JEPA's init_distributed around
    // init_process_group(backend='nccl')): where the multi-process start fails, as on a Mac, the run
    // goes on as one process, the path a Mac takes anyway.
    auto one_process = [&](TSNode block) -> std::optional<std::string> {
        for (uint32_t k = 0; k < ts_node_named_child_count(block); ++k) {
            const TSNode stmt = ts_node_named_child(block, k);
            const TSNode a = is_type(stmt, "expression_statement") ? ts_node_named_child(stmt, 0) : TSNode{};
            if (!is_type(a, "assignment")) continue;
            const TSNode left = field(a, "left"), right = field(a, "right");
            const bool many = is_type(left, "pattern_list") || is_type(left, "tuple_pattern");
            if (many != (is_type(right, "expression_list") || is_type(right, "tuple"))) continue;
            const uint32_t n = many ? ts_node_named_child_count(left) : 1;
            if (many && n != ts_node_named_child_count(right)) continue;
            for (uint32_t i = 0; i < n; ++i) {
                const TSNode target = many ? ts_node_named_child(left, i) : left;
                const TSNode value = many ? ts_node_named_child(right, i) : right;
                const TSNode name = is_type(target, "attribute") ? field(target, "attribute") : target;
                if (is_type(name, "identifier") && distributed_name(m_facts.text(name)) && is_type(value, "integer") && m_facts.text(value) == "1")
                    return one_line(stmt);
            }
        }
        return std::nullopt;
    };
    for (TSNode body : import_error_handlers(try_statement)) {
        if (rebuilds_import(try_statement, body)) continue;
        if (!import_site && skips_the_rest(body)) continue;
        if (always_leaves(body)) continue;
        if (!import_site)
            if (const auto single = one_process(body)) return {GuardKind::distributed_gate, false, "try/except going on as one process: " + *single};
        return {GuardKind::import_fallback, false, "try/except with a fallback"};
    }
    return {};
}

// Does the scope (a function's body, or the module) use a name the import binds, anywhere but in the
// import itself? A wildcard import binds what it binds: used.
bool GuardFinder::uses_what_it_imports(TSNode import, TSNode scope) const {
    std::set<std::string, std::less<>> names;
    bool wildcard = false;
    for (uint32_t i = 0; i < ts_node_named_child_count(import); ++i) wildcard = wildcard || is_type(ts_node_named_child(import, i), "wildcard_import");
    bound_in(import, m_facts, names);
    if (wildcard || names.empty()) return true;
    bool used = false;
    for_each_node(scope, [&](TSNode n) {
        if (used || !is_type(n, "identifier") || contains(import, n)) return;
        used = names.count(m_facts.text(n)) > 0;
    });
    return used;
}

std::optional<std::string> GuardFinder::required_by_handler(TSNode node) const {
    for (TSNode parent = ts_node_parent(node); !ts_node_is_null(parent); parent = ts_node_parent(parent)) {
        if (is_type(parent, "function_definition") || is_type(parent, "class_definition")) return std::nullopt;
        if (!is_type(parent, "try_statement") || !contains(field(parent, "body"), node)) continue;
        std::optional<std::string> leaves;
        for (TSNode body : import_error_handlers(parent))
            if (always_leaves(body) && ts_node_named_child_count(body) > 0) {
                leaves = one_line(ts_node_named_child(body, ts_node_named_child_count(body) - 1));
                break;
            }
        if (!leaves || !(is_type(node, "import_statement") || is_type(node, "import_from_statement"))) return leaves;
        // A probe: audiocraft's _verify_xformers_memory_efficient_compat() imports xformers' attention
        // `# noqa` and raises without it, but uses nothing it imports (the attention runs through
        // torch's SDPA by default). It demands the package and runs none of it: the package weighs
        // what its uses weigh, where they are. Only in a function, which the scan parses whole; of a
        // module it may have parsed only the statements around its matches.
        TSNode scope = parent;
        while (!ts_node_is_null(scope) && !is_type(scope, "function_definition")) scope = ts_node_parent(scope);
        return ts_node_is_null(scope) || uses_what_it_imports(node, scope) ? leaves : std::nullopt;
    }
    return std::nullopt;
}

bool GuardFinder::is_skip_decorator(TSNode e) const {
    const std::string q = m_facts.qualname(is_type(e, "call") ? field(e, "function") : e);
    return listed(m_vocab.skip_decorators, q) || listed(m_vocab.skip_decorator_names, last_segment(q)) ||
           (is_type(e, "identifier") && m_skip_aliases.count(m_facts.text(e)));
}

TSNode GuardFinder::unread_condition(TSNode e) const {
    // A skip on a comparison that names no device, platform, process count or package
    // (`@pytest.mark.skipif(device_platform == "intel")`, `skipIf(sys.version_info < (3, 9))`)
    // says nothing of a Mac: the test runs there. A bare flag (apex's `skipIf(SKIP_TEST)`,
    // `not HAS_CONV_BIAS_RELU`, set where its CUDA extension fails to import) is taken as the
    // availability test it usually is.
    if (!is_type(e, "call")) return TSNode{};
    const std::string q = m_facts.qualname(field(e, "function"));
    const std::string_view tail = last_segment(q);
    if (tail != "skipif" && tail != "skipIf" && tail != "skipUnless") return TSNode{};
    const TSNode condition = positional_argument(e, 0);
    if (ts_node_is_null(condition) || classify(condition).kind != GuardKind::none) return TSNode{};
    bool compares = false;
    for_each_node(condition, [&](TSNode c) { compares = compares || is_type(c, "comparison_operator"); });
    return compares ? condition : TSNode{};
}

std::vector<TSNode> GuardFinder::unread_skip_conditions(TSNode decorated) const {
    std::vector<TSNode> out;
    for (uint32_t i = 0; i < ts_node_named_child_count(decorated); ++i) {
        const TSNode d = ts_node_named_child(decorated, i);
        if (!is_type(d, "decorator")) continue;
        const TSNode e = ts_node_named_child(d, 0);
        if (!is_skip_decorator(e)) continue;
        if (const TSNode condition = unread_condition(e); !ts_node_is_null(condition)) out.push_back(condition);
    }
    return out;
}

Guard GuardFinder::from_decorators(TSNode decorated) const {
    const uint32_t n = ts_node_named_child_count(decorated);
    for (uint32_t i = 0; i < n; ++i) {
        TSNode d = ts_node_named_child(decorated, i);
        if (!is_type(d, "decorator")) continue;
        TSNode e = ts_node_named_child(d, 0);
        if (is_skip_decorator(e) && ts_node_is_null(unread_condition(e))) return {GuardKind::test_skip, false, one_line(d)};
    }
    return {};
}

Guard GuardFinder::guard_of(TSNode node) const {
    // The innermost guard, unless an outer one says a Mac never gets here at all (a try/except
    // fallback inside `if x.is_cuda:` is dead code on a Mac, not merely optional).
    Guard found;
    TSNode child = node;
    for (TSNode parent = ts_node_parent(node); !ts_node_is_null(parent); child = parent, parent = ts_node_parent(parent)) {
        const std::string_view type = node_type(parent);
        Guard g;
        if (type == "conditional_expression") {
            // children: consequence 'if' condition 'else' alternative
            TSNode condition = ts_node_named_child(parent, 1);
            // `if mps: return "mps"` before `return "cuda" if cuda else "cpu"` also knows MPS
            TSNode statement = parent;
            while (!ts_node_is_null(ts_node_parent(statement)) && !is_type(ts_node_parent(statement), "block") &&
                   !is_type(ts_node_parent(statement), "module"))
                statement = ts_node_parent(statement);
            const bool knows_mps = classify(parent).mps || earlier_return_checks_mps(statement);
            if (contains(condition, node)) {
                if (knows_mps) return {GuardKind::none, true, ""};
                continue;
            }
            const Test t = classify(condition);
            if (t.kind == GuardKind::device_check) {
                if (t.mps || knows_mps) return {GuardKind::none, true, ""};
                return {GuardKind::availability_select, false, one_line(parent)};
            }
            if (t.kind != GuardKind::none && !t.negated) g = {t.kind, false, one_line(condition)};
            // The value an option off by default picks (doctr's latency scripts: `torch.device("cuda:0"
            // if args.gpu else "cpu")` with `--gpu` a store_true flag), as under `if args.gpu:`.
            else if (t.kind == GuardKind::none && !t.mps && contains(ts_node_named_child(parent, 0), node))
                if (const auto flag = off_by_default(condition)) g = {GuardKind::off_by_default, false, "off by default: " + *flag};
        } else if (type == "boolean_operator") {
            // `torch.cuda.is_available() and torch.cuda.is_bf16_supported()`: the right operand is
            // evaluated only where the left one holds.
            const TSNode left = field(parent, "left");
            if (!contains(left, node) && m_facts.text(field(parent, "operator")) == "and") {
                const Test t = classify(left);
                if (t.mps) return found.kind == GuardKind::none ? Guard{GuardKind::none, true, ""} : found;
                if (t.kind != GuardKind::none && !t.negated) g = {t.kind, false, one_line(left)};
            }
        } else if (type == "if_statement") {
            g = from_if(parent, node);
        } else if (type == "block" || type == "module") {
            if (rebound_under_mps_test(child, node)) return {GuardKind::none, true, ""};
            if (type == "block") g = from_early_exit(parent, child);
            if (type == "block" && g.kind == GuardKind::none && !g.mps_aware) g = after_absent_import(parent, child);
        } else if (type == "for_statement") {
            // `for i in range(torch.cuda.device_count()):` runs its body once per CUDA device: never
            // on a Mac (accelerate's get_max_memory), as under `if torch.cuda.device_count():`.
            const TSNode right = field(parent, "right");
            if (contains(field(parent, "body"), node) && is_type(right, "call") && m_facts.text(field(right, "function")) == "range") {
                const TSNode args = field(right, "arguments");
                if (ts_node_named_child_count(args) == 1) {
                    // (or a name bound from the count: `num_gpus = torch.cuda.device_count()`, which the
                    // vocabulary also calls distributed)
                    const TSNode count = ts_node_named_child(args, 0);
                    const auto bound = is_type(count, "identifier") ? m_bound.find(m_facts.text(count)) : m_bound.end();
                    const Test t = classify(count);
                    if (((t.kind == GuardKind::device_check && !t.negated) || (bound != m_bound.end() && bound->second == GuardKind::device_check)) && !t.mps)
                        g = {GuardKind::device_check, false, "for over " + one_line(right) + ": no iteration without a CUDA device"};
                }
            }
        } else if (type == "try_statement") {
            g = from_try(parent, node);
        } else if (type == "decorated_definition") {
            g = from_decorators(parent);
        } else if (type == "class_definition") {
            if (const auto it = m_cuda_only_classes.find(m_facts.text(field(parent, "name"))); it != m_cuda_only_classes.end())
                g = {GuardKind::test_skip, false, it->second};
        } else if (type == "function_definition") {
            // `def cuda(self): self.feats = self.feats.cuda()`: the class's own device move
            TSNode up = ts_node_parent(parent);
            if (is_type(up, "decorated_definition")) up = ts_node_parent(up);
            const TSNode owner = is_type(up, "block") ? ts_node_parent(up) : TSNode{};
            const std::string_view name = m_facts.text(field(parent, "name"));
            if (is_type(owner, "class_definition") && listed(m_vocab.device_move_methods, name))
                g = {GuardKind::device_check, false, "def " + std::string(name) + "(): the class's own device move, run only where its caller asks for CUDA"};
            // A function defined in another function, or in the `__main__` block, whose name nothing else
            // writes (DeepSDF's reconstruct.py `def empirical_stat(...)` under `if __name__ ==
            // "__main__":`, never called): dead code. Read in the text, outside the definition: of the
            // enclosing function, or of the whole file for the block (whose names are the script's
            // globals, which a function above it may call).
            if (!is_type(ts_node_parent(parent), "decorated_definition")) {
                TSNode scope = ts_node_parent(parent);
                while (!ts_node_is_null(scope) && !is_type(scope, "function_definition") && !is_type(scope, "class_definition") &&
                       !(is_type(scope, "if_statement") && is_main_guard(scope, m_facts)))
                    scope = ts_node_parent(scope);
                if (!ts_node_is_null(scope) && !is_type(scope, "class_definition")) {
                    const std::string_view source = m_facts.source();
                    const std::size_t from = is_type(scope, "function_definition") ? ts_node_start_byte(scope) : 0;
                    const std::size_t to = is_type(scope, "function_definition") ? ts_node_end_byte(scope) : source.size();
                    const bool used = contains_word(source.substr(from, ts_node_start_byte(parent) - from), name) ||
                                      contains_word(source.substr(ts_node_end_byte(parent), to - ts_node_end_byte(parent)), name);
                    if (!used)
                        g = {GuardKind::never_called, false,
                             "def " + std::string(name) + "() is never called: " +
                                 (is_type(scope, "function_definition") ? "nothing else in its function " + std::string(m_facts.text(field(scope, "name"))) + "() names it"
                                                                        : std::string("defined in the `__main__` block, and nothing else in the file names it"))};
                }
            }
        }
        if (g.mps_aware) return found.kind == GuardKind::none ? g : found;
        if (g.kind == GuardKind::none) continue;
        if (found.kind == GuardKind::none) found = g;
        // An import with a fallback inside one arm of a choice (Fooocus' `if args.disable_xformers: ...
        // else: try: import xformers / except: XFORMERS_IS_AVAILABLE = False`) is optional whichever
        // arm runs: the fallback says more than the arm.
        else if (found.kind == GuardKind::import_fallback && (g.kind == GuardKind::alternative_branch || g.kind == GuardKind::default_arm))
            continue;
        // ... and an option off by default around it says more: the default run never tries (ChatRWKV's
        // `if os.environ.get('RWKV_CUDA_ON') == '1':` around its `try: load(...)`); the fallback stays
        // in the note, for a command that turns the option on (option_flags.cpp).
        else if (found.kind == GuardKind::import_fallback && g.kind == GuardKind::off_by_default)
            found = {g.kind, false, g.note + std::string(kInsideOption) + found.note};
        else if ((found.kind == GuardKind::import_fallback || found.kind == GuardKind::alternative_branch || found.kind == GuardKind::default_arm) &&
                 g.kind != GuardKind::off_by_default)
            found = g;
        // an option off by default inside a branch a Mac never takes (`if x.is_cuda:` around `if
        // args.profile:`): the outer guard says more
        else if (found.kind == GuardKind::off_by_default && guard_strength(g.kind) < guard_strength(found.kind)) found = g;
        if (found.kind != GuardKind::import_fallback && found.kind != GuardKind::alternative_branch && found.kind != GuardKind::off_by_default &&
            found.kind != GuardKind::default_arm)
            return found;
    }
    return found.kind != GuardKind::none ? found : m_file_guard;
}

}  // namespace mpsport::python
