#include "analyzer/python/query_set.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "analyzer/python/local_bindings.hpp"
#include "core/rule_catalogue.hpp"

namespace mpsport::python {
namespace {

const char* query_error_name(TSQueryError e) {
    switch (e) {
        case TSQueryErrorSyntax: return "syntax error";
        case TSQueryErrorNodeType: return "unknown node type";
        case TSQueryErrorField: return "unknown field";
        case TSQueryErrorCapture: return "unknown capture";
        case TSQueryErrorStructure: return "impossible pattern structure";
        case TSQueryErrorLanguage: return "language mismatch";
        default: return "error";
    }
}

int line_at(const std::string& text, uint32_t offset) {
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + std::min<std::size_t>(offset, text.size()), '\n'));
}

// At namespace scope, not function-local: the queries compile on a thread of their own
// (PythonEngine::build), which may still run while a static engine is destroyed at exit. A
// function-local set, first built on that thread, would be destroyed before such an engine (which
// waits for the thread): a use after free that the sanitizer build caught. These are built before
// main and destroyed after every engine.
const std::set<std::string> kKnownPredicates = {"eq", "not-eq", "any-of", "not-any-of", "match", "not-match",
                                                "qualname-eq", "qualname-any-of", "qualname-match", "value-match",
                                                "not-in-call", "in-function", "not-beside-call", "rebound-by-call", "not-rebound-by-call", "assigned-qualname-match",
                                                "not-keyword-eq", "not-parent-type", "not-assigned-to", "not-bare-call-of", "not-in-table-of",
                                                "none-default", "not-none-default"};
const std::set<std::string> kRegexPredicates = {"match",       "not-match",       "qualname-match",         "value-match",
                                                "not-in-call", "not-beside-call", "rebound-by-call", "not-rebound-by-call", "assigned-qualname-match",
                                                "not-bare-call-of", "not-in-table-of"};

bool known_predicate(const std::string& op) { return kKnownPredicates.count(op) > 0; }
bool takes_regex(const std::string& op) { return kRegexPredicates.count(op) > 0; }

}  // namespace

std::vector<QueryPattern> split_query(std::string_view q) {
    std::vector<QueryPattern> out;
    int depth = 0;
    bool group_done = false;  // the current pattern's outermost group is closed: a new one starts a pattern
    std::size_t predicate_depth = 0;  // inside `(#...)`: its depth, else 0
    auto text_of = [&]() -> std::string& { return predicate_depth ? out.back().predicates : out.back().shape; };
    auto put_space = [&] {
        std::string& t = text_of();
        if (!t.empty() && t.back() != ' ') t += ' ';
    };
    for (std::size_t i = 0; i < q.size();) {
        const char c = q[i];
        if (c == ';') {  // a comment, to the end of its line
            const std::size_t eol = q.find('\n', i);
            i = eol == std::string_view::npos ? q.size() : eol;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) {
            if (!out.empty()) put_space();
            ++i;
            continue;
        }
        if (depth == 0 && (out.empty() || group_done) && c != '@' && c != '*' && c != '+' && c != '?') {
            out.emplace_back();
            group_done = false;
        }
        if (out.empty()) out.emplace_back();  // a stray capture or quantifier: tree-sitter says what is wrong
        if (c == '"') {  // a string, escapes and all
            std::size_t end = i + 1;
            while (end < q.size() && q[end] != '"') end += q[end] == '\\' ? 2 : 1;
            end = std::min(end + 1, q.size());
            text_of().append(q.substr(i, end - i));
            i = end;
            continue;
        }
        if (c == '(' || c == '[') {
            std::size_t next = i + 1;
            while (next < q.size() && std::isspace(static_cast<unsigned char>(q[next]))) ++next;
            ++depth;
            if (c == '(' && next < q.size() && q[next] == '#' && !predicate_depth) {
                predicate_depth = static_cast<std::size_t>(depth);
                put_space();
            }
            text_of() += c;
            ++i;
            continue;
        }
        if (c == ')' || c == ']') {
            text_of() += c;
            if (predicate_depth == static_cast<std::size_t>(depth)) predicate_depth = 0;
            if (--depth == 0) group_done = true;
            ++i;
            continue;
        }
        if (c == '@') {  // a capture: read by predicates, written by patterns
            std::size_t end = i + 1;
            while (end < q.size() && (std::isalnum(static_cast<unsigned char>(q[end])) || q[end] == '_' || q[end] == '-' || q[end] == '.')) ++end;
            if (predicate_depth) {
                const std::string name(q.substr(i + 1, end - i - 1));
                auto& caps = out.back().captures;
                if (std::find(caps.begin(), caps.end(), name) == caps.end()) caps.push_back(name);
            }
            text_of().append(q.substr(i, end - i));
            i = end;
            continue;
        }
        text_of() += c;
        ++i;
    }
    for (auto& p : out)
        while (!p.shape.empty() && p.shape.back() == ' ') p.shape.pop_back();
    return out;
}

std::string untyped_parents(std::string_view shape, std::vector<std::pair<std::string, std::string>>& typed) {
    typed.clear();
    struct Open {
        std::size_t close;  // where its `)` or `]` is
        bool named;         // a node of a named type, not a group or an alternation
        std::string capture;  // written `(_ ...) @capture` here, its type checked through that capture
    };
    // Where each bracket closes, strings skipped whole.
    std::vector<std::size_t> close(shape.size(), std::string_view::npos);
    std::vector<std::size_t> opened;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        const char c = shape[i];
        if (c == '"') {
            ++i;
            while (i < shape.size() && shape[i] != '"') i += shape[i] == '\\' ? 2 : 1;
        } else if (c == '(' || c == '[') {
            opened.push_back(i);
        } else if (c == ')' || c == ']') {
            if (opened.empty()) return std::string(shape);  // tree-sitter says what is wrong
            close[opened.back()] = i;
            opened.pop_back();
        } else if (c == '*' || c == '+' || c == '?') {
            // A quantified step may be left out: tree-sitter keeps the state that took a wrongly typed
            // node over the one that skipped it (the latter's captures are a subset), so it stays typed.
            return std::string(shape);
        }
    }
    if (!opened.empty()) return std::string(shape);
    const auto is_name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    std::string out;
    out.reserve(shape.size() + 32);
    std::vector<Open> stack;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        const char c = shape[i];
        if (c == '"') {
            std::size_t end = i + 1;
            while (end < shape.size() && shape[end] != '"') end += shape[end] == '\\' ? 2 : 1;
            out.append(shape.substr(i, end + 1 - i));
            i = end;
            continue;
        }
        if (c == '[') {
            // An alternation of nodes inside a node: its branches are states of one pattern that
            // tree-sitter may merge, so that whole pattern stays typed (one of strings is harmless).
            const std::string_view inside = shape.substr(i + 1, close[i] - i - 1);
            const bool in_node = std::any_of(stack.begin(), stack.end(), [](const Open& o) { return o.named; });
            if (in_node && inside.find('(') != std::string_view::npos) {
                typed.clear();
                return std::string(shape);
            }
            stack.push_back({close[i], false, {}});
            out += c;
            continue;
        }
        if (c == '(') {
            std::size_t n = i + 1;
            while (n < shape.size() && std::isspace(static_cast<unsigned char>(shape[n]))) ++n;
            std::size_t end = n;
            while (end < shape.size() && is_name_char(shape[end])) ++end;
            const std::string_view name = shape.substr(n, end - n);
            const bool named = !name.empty() && name != "_" && name != "ERROR" && name != "MISSING";
            // children: another node, an alternation, a string or a wildcard between its name and its `)`
            const std::string_view rest = shape.substr(end, close[i] - end);
            bool children = rest.find_first_of("([\"") != std::string_view::npos;
            for (std::size_t k = 0; !children && k < rest.size(); ++k)
                children = rest[k] == '_' && (k == 0 || !is_name_char(rest[k - 1])) && (k + 1 == rest.size() || !is_name_char(rest[k + 1]));
            const bool nested = std::any_of(stack.begin(), stack.end(), [](const Open& o) { return o.named; });
            if (named && nested && children) {
                typed.emplace_back("__t" + std::to_string(typed.size()), std::string(name));
                stack.push_back({close[i], true, typed.back().first});
                out += "(_";
                i = end - 1;
                continue;
            }
            stack.push_back({close[i], named, {}});
            out += c;
            continue;
        }
        if ((c == ')' || c == ']') && !stack.empty() && stack.back().close == i) {
            const std::string capture = std::move(stack.back().capture);
            stack.pop_back();
            out += c;
            if (!capture.empty()) out += " @" + capture;
            continue;
        }
        out += c;
    }
    return out;
}

QuerySet::QuerySet(const std::vector<const Rule*>& rules) : m_rules(rules) {
    // No rule, no query: tree-sitter's analysis of the grammar costs a millisecond even for an empty
    // one (a check of files that name no rule's trigger).
    if (rules.empty()) return;
    const TSLanguage* lang = tree_sitter_python();
    // Compiling is most of a small check's start-up, and tree-sitter's cost is per typed node with
    // children: it walks the grammar's parse states under each, ~0.8 ms a node. Rules share shapes
    // (sixteen are `(call function: (_) @_fn) @finding` with their own #qualname-match?), so each
    // distinct shape is compiled once, with no predicates and its inner nodes with children written as
    // wildcards (`shapes`, untyped_parents), and every rule pattern's predicates go into a second query
    // whose patterns have no children and cost nothing to analyse (`carrier`:
    // `([(_) @_fn (_) @finding] (#qualname-match? @_fn "..."))`); tree-sitter parses both.
    // Only when that fails is each rule's query compiled alone, to name the bad file and line.
    std::string shapes, carrier;
    std::map<std::string, std::size_t> shape_index;  // shape text -> pattern index in `shapes`
    struct Pending {
        std::size_t rule;
        std::size_t shape;
        bool has_predicates;
    };
    std::vector<Pending> pending;
    std::vector<std::vector<std::pair<std::string, std::string>>> shape_types;  // per shape: capture -> the node type it stands for
    for (std::size_t r = 0; r < rules.size(); ++r) {
        for (const QueryPattern& p : split_query(rules[r]->query)) {
            auto [it, inserted] = shape_index.emplace(p.shape, shape_index.size());
            if (inserted) {
                shape_types.emplace_back();
                shapes += untyped_parents(p.shape, shape_types.back()) + "\n";
            }
            pending.push_back({r, it->second, !p.predicates.empty()});
            if (p.predicates.empty()) continue;
            carrier += "([";
            for (const std::string& c : p.captures) carrier += "(_) @" + c + " ";
            carrier += "] " + p.predicates + ")\n";
        }
    }
    // The types written in the shapes, each as its symbol; 0 for a name the grammar lacks (which the
    // wildcard would hide from tree-sitter: the rule's own query names it below)
    bool unknown_type = false;
    std::vector<std::vector<std::pair<std::string, TSSymbol>>> shape_symbols(shape_types.size());
    for (std::size_t shape = 0; shape < shape_types.size(); ++shape)
        for (const auto& [capture, type] : shape_types[shape]) {
            const TSSymbol symbol = ts_language_symbol_for_name(lang, type.data(), static_cast<uint32_t>(type.size()), true);
            unknown_type = unknown_type || symbol == 0;
            shape_symbols[shape].emplace_back(capture, symbol);
        }
    uint32_t err_offset = 0;
    TSQueryError err = TSQueryErrorNone;
    m_query.reset(ts_query_new(lang, shapes.data(), static_cast<uint32_t>(shapes.size()), &err_offset, &err));
    std::unique_ptr<TSQuery, QueryDelete> predicates;
    if (m_query) predicates.reset(ts_query_new(lang, carrier.data(), static_cast<uint32_t>(carrier.size()), &err_offset, &err));
    const bool split_as_compiled = !unknown_type && m_query && predicates && ts_query_pattern_count(m_query.get()) == shape_index.size() &&
                                   ts_query_pattern_count(predicates.get()) ==
                                       static_cast<uint32_t>(std::count_if(pending.begin(), pending.end(), [](const Pending& p) { return p.has_predicates; }));
    if (!split_as_compiled) {
        for (const Rule* rule : rules) {
            TSQuery* single = ts_query_new(lang, rule->query.data(), static_cast<uint32_t>(rule->query.size()), &err_offset, &err);
            if (!single)
                throw RuleError(rule->source.generic_string() + ": python.query line " + std::to_string(line_at(rule->query, err_offset)) +
                                ": " + query_error_name(err));
            ts_query_delete(single);
        }
        throw RuleError(std::string("combined python query failed: ") + (m_query && predicates ? "a pattern was split wrongly" : query_error_name(err)));
    }
    m_shape_patterns.resize(shape_index.size());
    for (std::size_t i = 0; i < pending.size(); ++i) m_shape_patterns[pending[i].shape].push_back(i);
    for (const Pending& p : pending) m_pattern_rule.push_back(p.rule);
    for (uint32_t c = 0; c < ts_query_capture_count(m_query.get()); ++c) {
        uint32_t len = 0;
        const char* name = ts_query_capture_name_for_id(m_query.get(), c, &len);
        m_capture_names.emplace_back(name, len);
        if (m_capture_names.back() == "finding") m_finding_capture = c;
    }
    {
        std::map<std::string, uint32_t, std::less<>> capture_id;
        for (uint32_t c = 0; c < m_capture_names.size(); ++c) capture_id.emplace(m_capture_names[c], c);
        m_shape_types.resize(shape_symbols.size());
        for (std::size_t shape = 0; shape < shape_symbols.size(); ++shape)
            for (const auto& [capture, symbol] : shape_symbols[shape]) m_shape_types[shape].emplace_back(capture_id.at(capture), symbol);
    }

    // Every rule's patterns must capture @finding: that is what gets reported.
    std::vector<bool> reports(rules.size(), false);
    for (const Pending& p : pending)
        if (m_finding_capture != UINT32_MAX &&
            ts_query_capture_quantifier_for_id(m_query.get(), static_cast<uint32_t>(p.shape), m_finding_capture) != TSQuantifierZero)
            reports[p.rule] = true;
    for (std::size_t r = 0; r < rules.size(); ++r)
        if (!reports[r]) throw RuleError(rules[r]->source.generic_string() + ": python.query must capture @finding (what is reported)");

    // A carrier capture is known to the shapes' query by its name.
    std::map<std::string, uint32_t, std::less<>> shape_capture;
    for (uint32_t c = 0; c < m_capture_names.size(); ++c) shape_capture.emplace(m_capture_names[c], c);
    m_predicates.resize(m_pattern_rule.size());
    uint32_t carried = 0;  // the carrier's pattern of the next rule pattern with predicates
    for (uint32_t p = 0; p < m_pattern_rule.size(); ++p) {
        if (!pending[p].has_predicates) continue;
        const Rule& rule = *m_rules[m_pattern_rule[p]];
        uint32_t steps = 0;
        const TSQueryPredicateStep* s = ts_query_predicates_for_pattern(predicates.get(), carried++, &steps);
        for (uint32_t i = 0; i < steps;) {
            Predicate pred;
            uint32_t len = 0;
            std::string op = ts_query_string_value_for_id(predicates.get(), s[i].value_id, &len);
            ++i;
            if (op.empty() || op.back() != '?' || !known_predicate(op.substr(0, op.size() - 1)))
                throw RuleError(rule.source.generic_string() + ": python.query uses unknown predicate #" + op);
            pred.op = op.substr(0, op.size() - 1);
            if (i >= steps || s[i].type != TSQueryPredicateStepTypeCapture)
                throw RuleError(rule.source.generic_string() + ": #" + op + " needs a capture as its first argument");
            const std::string capture = ts_query_capture_name_for_id(predicates.get(), s[i].value_id, &len);
            const auto known = shape_capture.find(capture);
            if (known == shape_capture.end())
                throw RuleError(rule.source.generic_string() + ": #" + op + " names @" + capture + ", which its pattern does not capture");
            pred.capture = known->second;
            ++i;
            for (; i < steps && s[i].type != TSQueryPredicateStepTypeDone; ++i) {
                if (s[i].type != TSQueryPredicateStepTypeString)
                    throw RuleError(rule.source.generic_string() + ": #" + op + " takes one capture then strings");
                pred.values.emplace_back(ts_query_string_value_for_id(predicates.get(), s[i].value_id, &len));
            }
            ++i;  // the Done step
            if (takes_regex(pred.op)) {
                if (pred.values.size() != 1) throw RuleError(rule.source.generic_string() + ": #" + op + " takes exactly one pattern");
                // RE2: compiled in microseconds and searched in linear time (std::regex compiled slowly)
                auto re = std::make_shared<const re2::RE2>(pred.values[0], re2::RE2::Quiet);
                if (!re->ok()) throw RuleError(rule.source.generic_string() + ": #" + op + " pattern '" + pred.values[0] + "': " + re->error());
                pred.regex = std::move(re);
            } else if (pred.op == "not-keyword-eq" && pred.values.size() != 2) {
                throw RuleError(rule.source.generic_string() + ": #" + op + " takes a keyword and the argument's text");
            } else if (pred.op != "in-function" && pred.op != "not-assigned-to" && pred.op != "none-default" && pred.op != "not-none-default" &&
                       pred.values.empty()) {
                throw RuleError(rule.source.generic_string() + ": #" + op + " needs at least one string");
            }
            m_predicates[p].push_back(std::move(pred));
        }
    }
}

QuerySet::~QuerySet() = default;

namespace {
TSNode capture_node(const TSQueryMatch& match, uint32_t id) {
    for (uint16_t i = 0; i < match.capture_count; ++i)
        if (match.captures[i].index == id) return match.captures[i].node;
    return TSNode{};
}


// What a message calls a captured node: a variable by its name and where its value comes from,
// anything else as one short line of its source (the snippet holds the code itself).
std::string describe(TSNode n, const ModuleFacts& facts) {
    if (is_type(n, "identifier")) {
        const std::string name(facts.text(n));
        const auto value = facts.string_value(n);
        if (!value) return "`" + name + "`";
        const TSNode def = facts.constant_definition(name);
        if (ts_node_is_null(def)) return "`" + name + "` (= \"" + one_line(*value, 40) + "\")";
        return "`" + name + "` (= \"" + one_line(*value, 40) + "\" on line " + std::to_string(ts_node_start_point(def).row + 1) + ")";
    }
    return one_line(facts.text(n));
}

// The name a call gives what it builds: its `name=` argument or its first positional argument.
std::string call_name(TSNode call, const ModuleFacts& facts) {
    if (!is_type(call, "call")) return {};
    TSNode arg = keyword_argument(call, "name", facts);
    if (ts_node_is_null(arg)) arg = positional_argument(call, 0);
    if (ts_node_is_null(arg)) return {};
    if (auto v = facts.string_value(arg)) return "'" + one_line(*v, 60) + "'";
    // computed (`name=name` in a helper): say so, not "extension name"
    return "named by `" + one_line(facts.text(arg), 60) + "`";
}

// A call whose function's qualified name matches, anywhere under `n` (not into nested definitions).
bool has_call(TSNode n, const re2::RE2& re, const ModuleFacts& facts) {
    if (is_type(n, "call") && re2::RE2::PartialMatch(facts.qualname(field(n, "function")), re)) return true;
    const uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; ++i) {
        TSNode c = ts_node_named_child(n, i);
        if (!is_type(c, "function_definition") && !is_type(c, "class_definition") && has_call(c, re, facts)) return true;
    }
    return false;
}
// Whether `node` (a value, or the argument of the call that makes it: `torch.device("cuda:0")`) is
// what an unset device falls back to, a default by another spelling (chai-lab's
// `torch.device(device if device is not None else "cuda:0")`, `if device is None: device = "cuda"`,
// Open-Sora-Plan's `getattr(self, "_execution_device", None) or torch.device("cuda")`): the caller or
// the flag that sets it moves it, as with `def f(device="cuda")`.
bool none_default(TSNode node, const ModuleFacts& facts) {
    TSNode value = node;
    TSNode parent = ts_node_parent(value);
    if (is_type(parent, "argument_list") && is_type(ts_node_parent(parent), "call")) {
        value = ts_node_parent(parent);
        parent = ts_node_parent(value);
    }
    while (is_type(parent, "parenthesized_expression")) {
        value = parent;
        parent = ts_node_parent(value);
    }
    if (ts_node_is_null(parent)) return false;
    const auto text = [&](TSNode n) { return one_line(facts.text(n), 200); };
    // `X is None` or `not X` (unset: true), `X is not None` or `X` (set: false); nullopt when it tests something else
    const auto unset_test = [&](TSNode cond, const std::string& x) -> std::optional<bool> {
        const std::string c = text(cond);
        if (c == x + " is None" || c == "not " + x) return true;
        if (c == x + " is not None" || c == x) return false;
        return std::nullopt;
    };
    if (is_type(parent, "boolean_operator")) {  // `X or "cuda"`
        return ts_node_eq(field(parent, "right"), value) && facts.text(field(parent, "operator")) == "or";
    }
    if (is_type(parent, "conditional_expression") && ts_node_named_child_count(parent) == 3) {
        const TSNode then = ts_node_named_child(parent, 0), cond = ts_node_named_child(parent, 1), other = ts_node_named_child(parent, 2);
        if (ts_node_eq(other, value)) return unset_test(cond, text(then)) == std::optional<bool>(false);  // X if X is not None else "cuda"
        if (ts_node_eq(then, value)) return unset_test(cond, text(other)) == std::optional<bool>(true);   // "cuda" if X is None else X
        return false;
    }
    if (is_type(parent, "assignment") && ts_node_eq(field(parent, "right"), value)) {  // if X is None: X = "cuda"
        const TSNode statement = ts_node_parent(parent);
        const TSNode block = is_type(statement, "expression_statement") ? ts_node_parent(statement) : TSNode{};
        const TSNode branch = ts_node_is_null(block) ? TSNode{} : ts_node_parent(block);
        if (!is_type(block, "block") || !is_type(branch, "if_statement") || !ts_node_eq(field(branch, "consequence"), block)) return false;
        return unset_test(field(branch, "condition"), text(field(parent, "left"))) == std::optional<bool>(true);
    }
    return false;
}

}  // namespace

bool QuerySet::holds(const Predicate& p, const TSQueryMatch& match, const ModuleFacts& facts) const {
    TSNode node = capture_node(match, p.capture);
    if (ts_node_is_null(node)) return false;
    const std::string_view op = p.op;
    if (op == "in-function") return !ts_node_is_null(enclosing(node, {"function_definition"}));
    if (op == "none-default" || op == "not-none-default") return none_default(node, facts) == (op == "none-default");
    if (op == "not-assigned-to") {  // not the target of `=` (kohya's `torch.cuda.DoubleTensor = torch.xpu.DoubleTensor`)
        const TSNode parent = ts_node_parent(node);
        return ts_node_is_null(parent) || !(is_type(parent, "assignment") || is_type(parent, "augmented_assignment")) ||
               !ts_node_eq(field(parent, "left"), node);
    }
    if (op == "not-in-table-of") {
        // (#not-in-table-of? @finding "^torch\\."): not a key or value of a dict literal with three or
        // more entries naming such things: a lookup table over dtypes (stable-fast-3d's `EPS_DTYPE =
        // {torch.float16: 1e-4, ..., torch.float64: 1e-8}`, an old collate's `numpy_type_map`) makes none;
        // nor a tuple value of one (torchvision's MNIST reader: `14: (torch.float64, np.dtype('>f8'), 'f8')`);
        // nor an element of a tuple, list or set literal naming three or more, outside a dict: a
        // vocabulary of dtypes (tensordict's `_TORCH_DTYPES = (torch.bfloat16, torch.bool, torch.complex128, ...)`).
        const TSNode collection = ts_node_parent(node);
        if ((is_type(collection, "tuple") || is_type(collection, "list") || is_type(collection, "set")) &&
            !is_type(ts_node_parent(collection), "pair")) {
            int listed = 0;
            for (uint32_t k = 0; k < ts_node_named_child_count(collection); ++k)
                if (re2::RE2::PartialMatch(facts.qualname(ts_node_named_child(collection, k)), *p.regex)) ++listed;
            if (listed >= 3) return false;
        }
        TSNode pair = ts_node_parent(node);
        if (is_type(pair, "tuple")) pair = ts_node_parent(pair);
        const TSNode dict = ts_node_is_null(pair) ? TSNode{} : ts_node_parent(pair);
        if (!is_type(pair, "pair") || !is_type(dict, "dictionary")) return true;
        const auto names = [&](TSNode side) {
            if (ts_node_is_null(side)) return false;
            if (!is_type(side, "tuple")) return re2::RE2::PartialMatch(facts.qualname(side), *p.regex);
            for (uint32_t k = 0; k < ts_node_named_child_count(side); ++k)
                if (re2::RE2::PartialMatch(facts.qualname(ts_node_named_child(side, k)), *p.regex)) return true;
            return false;
        };
        int naming = 0;
        for (uint32_t i = 0; i < ts_node_named_child_count(dict); ++i) {
            const TSNode entry = ts_node_named_child(dict, i);
            if (is_type(entry, "pair") && (names(field(entry, "key")) || names(field(entry, "value")))) ++naming;
        }
        return naming < 3;
    }
    if (op == "not-parent-type") {  // (#not-parent-type? @call "comparison_operator"): not an operand of that
        const TSNode parent = ts_node_parent(node);
        return ts_node_is_null(parent) || std::find(p.values.begin(), p.values.end(), node_type(parent)) == p.values.end();
    }
    if (op == "not-keyword-eq") {  // a call without `KEYWORD=TEXT`: (#not-keyword-eq? @call "enabled" "False")
        const TSNode arg = keyword_argument(node, p.values[0], facts);
        return ts_node_is_null(arg) || facts.text(arg) != p.values[1];
    }
    if (op == "not-beside-call") {  // no matching call in the same function body (or module)
        TSNode scope = enclosing(node, {"function_definition"});
        if (ts_node_is_null(scope)) {
            for (scope = node; !ts_node_is_null(ts_node_parent(scope));) scope = ts_node_parent(scope);
        } else {
            scope = field(scope, "body");
        }
        return !has_call(scope, *p.regex, facts);
    }
    // A module constant that a top-level call matching the regex may bind anew: nanoGPT's
    // `exec(open('configurator.py').read())` sets any global from the command line.
    if (op == "rebound-by-call" || op == "not-rebound-by-call") {
        bool rebound = false;
        if (is_type(node, "identifier") && !ts_node_is_null(facts.constant_definition(facts.text(node)))) {
            TSNode root = node;
            while (!ts_node_is_null(ts_node_parent(root))) root = ts_node_parent(root);
            for (uint32_t i = 0; i < ts_node_named_child_count(root) && !rebound; ++i) {
                const TSNode statement = ts_node_named_child(root, i);
                const TSNode call = is_type(statement, "expression_statement") ? ts_node_named_child(statement, 0) : TSNode{};
                rebound = !ts_node_is_null(call) && is_type(call, "call") && re2::RE2::PartialMatch(facts.qualname(field(call, "function")), *p.regex);
            }
        }
        return rebound == (op == "rebound-by-call");
    }
    // Not a call of a matching class that passes nothing a module keeps as a tensor (no positional
    // argument, no weight= or pos_weight=), nor a local name only ever bound to one: `.cuda()` of
    // `nn.CrossEntropyLoss()` moves no parameter or buffer, so it never touches CUDA.
    if (op == "not-bare-call-of") {
        auto bare = [&](TSNode v) {
            if (!is_type(v, "call") || !re2::RE2::PartialMatch(facts.qualname(field(v, "function")), *p.regex)) return false;
            const TSNode args = field(v, "arguments");
            for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
                const TSNode a = ts_node_named_child(args, i);
                if (is_type(a, "comment")) continue;
                if (!is_type(a, "keyword_argument")) return false;
                const std::string_view name = facts.text(field(a, "name"));
                if (name == "weight" || name == "pos_weight") return false;
            }
            return true;
        };
        if (bare(node)) return false;
        const auto values = is_type(node, "identifier") ? bindings_of(node, facts) : std::vector<Binding>{};
        return values.empty() || !std::all_of(values.begin(), values.end(), [&](const Binding& b) { return bare(b.value); });
    }
    if (op == "assigned-qualname-match") {  // a local name some assignment in its scope binds to a matching name
        for (const auto& b : bindings_of(node, facts))
            if (!b.qualname.empty() && re2::RE2::PartialMatch(b.qualname, *p.regex)) return true;
        return false;
    }
    if (op == "not-in-call") {
        TSNode call = enclosing(node, {"call"});
        if (ts_node_is_null(call)) return true;
        return !re2::RE2::PartialMatch(facts.qualname(field(call, "function")), *p.regex);
    }
    if (op == "value-match") {
        auto v = facts.string_value(node);
        return v && re2::RE2::PartialMatch(*v, *p.regex);
    }
    if (op.rfind("qualname-", 0) == 0) {
        const std::string q = facts.qualname(node);
        if (q.empty()) return false;
        if (op == "qualname-match") return re2::RE2::PartialMatch(q, *p.regex);
        if (op == "qualname-eq") return q == p.values[0];
        return std::find(p.values.begin(), p.values.end(), q) != p.values.end();
    }
    const std::string_view text = facts.text(node);
    if (op == "eq") return text == p.values[0];
    if (op == "not-eq") return text != p.values[0];
    if (op == "any-of") return std::find(p.values.begin(), p.values.end(), text) != p.values.end();
    if (op == "not-any-of") return std::find(p.values.begin(), p.values.end(), text) == p.values.end();
    const bool found = re2::RE2::PartialMatch(text, *p.regex);
    return op == "match" ? found : !found;
}

void QuerySet::run(TSNode root, const ModuleFacts& facts, const std::vector<bool>& enabled, std::vector<NodeMatch>& out) const {
    if (m_rules.empty()) return;
    TSQueryCursor* cursor = ts_query_cursor_new();
    ts_query_cursor_exec(cursor, m_query.get(), root);
    TSQueryMatch match;
    std::set<std::pair<const Rule*, uint32_t>> seen;  // one finding per rule and node, however many patterns hit it
    while (ts_query_cursor_next_match(cursor, &match)) {
        if (!typed_as_written(match)) continue;
        // a shape: the rule patterns written with it, in the rules' order
        for (const std::size_t p : m_shape_patterns[match.pattern_index])
            emit(p, match, facts, enabled, seen, out);
    }
    ts_query_cursor_delete(cursor);
}

bool QuerySet::typed_as_written(const TSQueryMatch& match) const {
    for (const auto& [capture, symbol] : m_shape_types[match.pattern_index])
        for (uint16_t i = 0; i < match.capture_count; ++i)
            if (match.captures[i].index == capture && ts_node_symbol(match.captures[i].node) != symbol) return false;
    return true;
}

void QuerySet::emit(std::size_t pattern, const TSQueryMatch& match, const ModuleFacts& facts, const std::vector<bool>& enabled,
                    std::set<std::pair<const Rule*, uint32_t>>& seen, std::vector<NodeMatch>& out) const {
    const std::size_t rule_index = m_pattern_rule[pattern];
    if (!enabled[rule_index]) return;
    for (const auto& pred : m_predicates[pattern])
        if (!holds(pred, match, facts)) return;
    TSNode finding = capture_node(match, m_finding_capture);
    if (ts_node_is_null(finding)) return;
    const Rule* rule = m_rules[rule_index];
    if (!seen.insert({rule, ts_node_start_byte(finding)}).second) return;
    Match m;
    m.rule = rule;
    m.begin = ts_node_start_byte(finding);
    m.end = ts_node_end_byte(finding);
    for (uint16_t i = 0; i < match.capture_count; ++i) {
        const std::string& name = m_capture_names[match.captures[i].index];
        if (name.empty() || name[0] == '_') continue;
        m.captures.emplace(name, describe(match.captures[i].node, facts));
        if (name != "finding") continue;
        if (is_type(match.captures[i].node, "call")) {
            const std::string n = call_name(match.captures[i].node, facts);
            m.captures.emplace("call_name", n.empty() ? "(unnamed)" : n);
        }
        const std::string q = facts.qualname(match.captures[i].node);
        if (!q.empty()) m.captures.emplace("qualname", q);
        if (auto v = facts.string_value(match.captures[i].node)) m.captures.emplace("value", *v);
    }
    out.push_back({std::move(m), finding});
}

}  // namespace mpsport::python
