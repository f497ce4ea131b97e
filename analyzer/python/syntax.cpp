#include "analyzer/python/syntax.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace mpsport::python {

std::string_view node_type(TSNode node) { return ts_node_type(node); }
bool is_type(TSNode node, std::string_view type) {
    if (ts_node_is_null(node)) return false;
    const char* t = ts_node_type(node);  // compared without a strlen: most differ in the first byte
    return std::strncmp(t, type.data(), type.size()) == 0 && t[type.size()] == '\0';
}

TSNode field(TSNode node, std::string_view name) {
    return ts_node_child_by_field_name(node, name.data(), static_cast<uint32_t>(name.size()));
}

TSNode enclosing(TSNode node, std::initializer_list<std::string_view> types) {
    for (TSNode p = ts_node_parent(node); !ts_node_is_null(p); p = ts_node_parent(p)) {
        const std::string_view t = ts_node_type(p);
        for (auto want : types)
            if (t == want) return p;
    }
    return TSNode{};
}

std::optional<std::vector<std::string>> names_bound_by(TSNode import, const ModuleFacts& facts) {
    std::vector<std::string> out;
    const bool from = is_type(import, "import_from_statement");
    const TSNode module_name = from ? field(import, "module_name") : TSNode{};
    for (uint32_t i = 0; i < ts_node_named_child_count(import); ++i) {
        const TSNode c = ts_node_named_child(import, i);
        if (is_type(c, "wildcard_import")) return std::nullopt;
        if (from && ts_node_eq(c, module_name)) continue;
        if (is_type(c, "aliased_import")) {
            out.emplace_back(facts.text(field(c, "alias")));
        } else if (is_type(c, "dotted_name")) {
            const std::string_view dotted = facts.text(c);
            out.emplace_back(from ? dotted.substr(dotted.rfind('.') + 1) : dotted.substr(0, dotted.find('.')));
        }
    }
    return out;
}

TSNode parameter_default(TSNode function_definition, std::string_view name, const ModuleFacts& facts) {
    const TSNode params = field(function_definition, "parameters");
    for (uint32_t i = 0; i < ts_node_named_child_count(params); ++i) {
        const TSNode p = ts_node_named_child(params, i);
        if ((is_type(p, "default_parameter") || is_type(p, "typed_default_parameter")) && facts.text(field(p, "name")) == name) return field(p, "value");
    }
    return TSNode{};
}

// A name the function binds once, by `name = False` (or None, or 0), and nowhere else: neither a
// parameter, nor global or nonlocal, nor another assignment, loop variable, `as` target or walrus.
// gaussian-opacity-fields' training(): `is_save_images = False`, then `if is_save_images and ...:`.
// The value written, or a null node.
TSNode local_constant(TSNode def, std::string_view name, const ModuleFacts& facts) {
    TSNode value{};
    int bindings = 0;
    const TSNode params = field(def, "parameters");
    for_each_node(params, [&](TSNode n) { bindings += is_type(n, "identifier") && facts.text(n) == name ? 1 : 0; });
    for_each_node(field(def, "body"), [&](TSNode n) {
        if (is_type(n, "global_statement") || is_type(n, "nonlocal_statement")) {
            for_each_node(n, [&](TSNode id) { bindings += is_type(id, "identifier") && facts.text(id) == name ? 2 : 0; });
            return;
        }
        if (!is_type(n, "identifier") || facts.text(n) != name) return;
        // Where the name is written to: the left of an assignment (alone or in a pattern), a loop's
        // variable, an `as` target, a walrus, a nested function's or class's name, an import.
        TSNode child = n;
        for (TSNode up = ts_node_parent(n); !ts_node_is_null(up); child = up, up = ts_node_parent(up)) {
            const std::string_view t = node_type(up);
            if (t == "pattern_list" || t == "tuple_pattern" || t == "list_pattern" || t == "list_splat_pattern" || t == "parenthesized_expression" ||
                t == "as_pattern_target" || t == "dotted_name" || t == "aliased_import")
                continue;
            const bool left = (t == "assignment" || t == "augmented_assignment" || t == "for_statement" || t == "for_in_clause") &&
                              ts_node_eq(field(up, "left"), child);
            const bool other = ((t == "named_expression" || t == "function_definition" || t == "class_definition") && ts_node_eq(field(up, "name"), child)) ||
                               t == "as_pattern" || t == "import_statement" || t == "import_from_statement";
            if (left || other) {
                ++bindings;
                if (t == "assignment" && ts_node_eq(field(up, "left"), n)) value = field(up, "right");
            }
            break;
        }
    });
    if (bindings != 1 || ts_node_is_null(value)) return TSNode{};
    const std::string_view v = facts.text(value);
    return is_type(value, "false") || is_type(value, "none") || v == "0" ? value : TSNode{};
}

std::optional<std::string> never_holds(TSNode condition, const ModuleFacts& facts) {
    while (is_type(condition, "parenthesized_expression") && ts_node_named_child_count(condition) == 1) condition = ts_node_named_child(condition, 0);
    if (is_type(condition, "boolean_operator") && facts.text(field(condition, "operator")) == "and") {
        if (auto left = never_holds(field(condition, "left"), facts)) return left;
        return never_holds(field(condition, "right"), facts);
    }
    if (!is_type(condition, "identifier")) return std::nullopt;
    const TSNode def = enclosing(condition, {"function_definition"});
    if (ts_node_is_null(def)) return std::nullopt;
    const TSNode value = local_constant(def, facts.text(condition), facts);
    if (ts_node_is_null(value)) return std::nullopt;
    return std::string(facts.text(condition)) + " = " + std::string(facts.text(value)) + " (line " +
           std::to_string(ts_node_start_point(value).row + 1) + ")";
}

// The default of the parameter a flag stands for: `flag` a parameter of the enclosing function, or
// `self.flag` one of the class's __init__ that __init__ stores as it is (`self.flag = flag`) and no
// other method of the class assigns (llm-foundry's MPTConfig: `use_pad_tok_in_ffn: bool = True`, read
// as `if not self.use_pad_tok_in_ffn:` in _validate_config). A null node when not known.
TSNode flag_default(TSNode flag_node, const ModuleFacts& facts) {
    const bool self = is_type(flag_node, "attribute") && facts.text(field(flag_node, "object")) == "self";
    const std::string_view flag = is_type(flag_node, "identifier") ? facts.text(flag_node) : self ? facts.text(field(flag_node, "attribute")) : "";
    if (flag.empty()) return TSNode{};
    const TSNode def = enclosing(flag_node, {"function_definition"});
    if (ts_node_is_null(def)) return TSNode{};
    if (const TSNode value = parameter_default(def, flag, facts); !ts_node_is_null(value)) return value;
    if (!self) return local_constant(def, flag, facts);
    const TSNode cls = enclosing(def, {"class_definition"});
    if (ts_node_is_null(cls)) return TSNode{};
    TSNode init{};
    int stores = 0, others = 0;
    for_each_node(field(cls, "body"), [&](TSNode n) {
        if (is_type(n, "function_definition") && facts.text(field(n, "name")) == "__init__" && ts_node_eq(enclosing(n, {"class_definition"}), cls))
            init = n;
        if (!is_type(n, "assignment") && !is_type(n, "augmented_assignment")) return;
        const TSNode left = field(n, "left");
        if (!is_type(left, "attribute") || facts.text(field(left, "object")) != "self" || facts.text(field(left, "attribute")) != flag) return;
        const TSNode in = enclosing(n, {"function_definition"});
        const bool stored = is_type(n, "assignment") && facts.text(field(n, "right")) == flag && !ts_node_is_null(in) &&
                            facts.text(field(in, "name")) == "__init__";
        (stored ? stores : others) += 1;
    });
    if (!ts_node_is_null(init)) return stores != 1 || others != 0 ? TSNode{} : parameter_default(init, flag, facts);
    // No __init__ of its own: a field of a dataclass that no method assigns (accelerate's
    // MegatronLMPlugin: `set_all_logging_options: bool = field(default=False, ...)`).
    if (stores != 0 || others != 0) return TSNode{};
    const TSNode body = field(cls, "body");
    for (uint32_t i = 0; !ts_node_is_null(body) && i < ts_node_named_child_count(body); ++i) {
        const TSNode stmt = ts_node_named_child(body, i);
        const TSNode assign = is_type(stmt, "expression_statement") ? ts_node_named_child(stmt, 0) : TSNode{};
        if (!is_type(assign, "assignment") || ts_node_is_null(field(assign, "type")) || facts.text(field(assign, "left")) != flag) continue;
        TSNode value = field(assign, "right");
        if (is_type(value, "call")) {
            const std::string_view fn = last_segment(facts.text(field(value, "function")));
            value = fn == "field" || fn == "ib" || fn == "attrib" ? keyword_argument(value, "default", facts) : TSNode{};
        }
        return value;
    }
    return TSNode{};
}

std::optional<std::string> off_by_default_flag(TSNode condition, const ModuleFacts& facts) {
    // `not flag` with the flag on by default is off by default as `flag` with it off is
    const bool negated = is_type(condition, "not_operator");
    const TSNode flag = negated ? field(condition, "argument") : condition;
    if (!is_type(flag, "identifier") && !is_type(flag, "attribute")) return std::nullopt;
    const TSNode value = flag_default(flag, facts);
    if (ts_node_is_null(value)) return std::nullopt;
    const bool off = negated ? is_type(value, "true") : is_type(value, "false") || is_type(value, "none");
    const std::string_view name = is_type(flag, "identifier") ? facts.text(flag) : facts.text(field(flag, "attribute"));
    if (off) return std::string(name) + "=" + std::string(facts.text(value));
    return std::nullopt;
}

namespace {

void collect_named(TSNode node, std::string_view name, const ModuleFacts& facts, uint32_t after, std::vector<TSNode>& out) {
    if (ts_node_end_byte(node) <= after) return;
    if (is_type(node, "identifier")) {
        if (ts_node_start_byte(node) >= after && facts.text(node) == name) out.push_back(node);
        return;
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(node); ++i) collect_named(ts_node_named_child(node, i), name, facts, after, out);
}

}  // namespace

std::vector<std::string> imported_packages(TSNode import, const ModuleFacts& facts) {
    std::vector<std::string> out;
    auto add = [&](TSNode dotted) {
        if (is_type(dotted, "dotted_name")) out.emplace_back(facts.text(dotted).substr(0, facts.text(dotted).find('.')));
    };
    if (is_type(import, "import_from_statement")) {
        add(field(import, "module_name"));  // a relative import's module is no dotted_name
    } else if (is_type(import, "import_statement")) {
        for (uint32_t i = 0; i < ts_node_named_child_count(import); ++i) {
            const TSNode c = ts_node_named_child(import, i);
            add(is_type(c, "aliased_import") ? field(c, "name") : c);
        }
    }
    return out;
}

TSNode scope_of(TSNode node) {
    TSNode f = enclosing(node, {"function_definition"});
    if (!ts_node_is_null(f)) return f;
    TSNode root = node;
    while (!ts_node_is_null(ts_node_parent(root))) root = ts_node_parent(root);
    return root;
}

std::vector<TSNode> later_uses(TSNode name, uint32_t after, const ModuleFacts& facts) {
    std::vector<TSNode> out;
    collect_named(scope_of(name), facts.text(name), facts, after, out);
    return out;
}

bool contains(TSNode outer, TSNode inner) {
    return ts_node_start_byte(outer) <= ts_node_start_byte(inner) && ts_node_end_byte(inner) <= ts_node_end_byte(outer);
}

bool listed(const std::vector<std::string>& list, std::string_view value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

TSNode keyword_argument(TSNode call, std::string_view name, const ModuleFacts& facts) {
    TSNode args = field(call, "arguments");
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); ++i) {
        TSNode a = ts_node_named_child(args, i);
        if (is_type(a, "keyword_argument") && facts.text(field(a, "name")) == name) return field(a, "value");
    }
    return TSNode{};
}

TSNode positional_argument(TSNode call, uint32_t index) {
    TSNode args = field(call, "arguments");
    uint32_t seen = 0;
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); ++i) {
        TSNode a = ts_node_named_child(args, i);
        if (is_type(a, "keyword_argument") || is_type(a, "comment")) continue;
        if (seen++ == index) return a;
    }
    return TSNode{};
}

std::string_view last_segment(std::string_view dotted) {
    const auto dot = dotted.rfind('.');
    return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

std::vector<std::string_view> decorator_names(TSNode decorated, const ModuleFacts& facts) {
    std::vector<std::string_view> out;
    for (uint32_t k = 0; k < ts_node_named_child_count(decorated); ++k) {
        const TSNode d = ts_node_named_child(decorated, k);
        if (!is_type(d, "decorator") || ts_node_named_child_count(d) == 0) continue;
        TSNode e = ts_node_named_child(d, 0);
        if (is_type(e, "call")) e = field(e, "function");
        out.push_back(last_segment(facts.text(e)));
    }
    return out;
}

ParsedModule::ParsedModule(std::string_view text) : m_text(text), m_parser(ts_parser_new()) {
    if (ts_parser_set_language(m_parser, tree_sitter_python()))
        m_tree = ts_parser_parse_string(m_parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
}

ParsedModule::~ParsedModule() {
    if (m_tree) ts_tree_delete(m_tree);
    ts_parser_delete(m_parser);
}

TSNode ParsedModule::root() const { return m_tree ? ts_tree_root_node(m_tree) : TSNode{}; }

const ModuleFacts& ParsedModule::facts() const {
    if (!m_facts) m_facts = std::make_unique<ModuleFacts>(root(), m_text);
    return *m_facts;
}

TSNode FullTree::node_at(TSNode node) const {
    TSNode r = root();
    if (ts_node_is_null(r)) return {};
    TSNode n = ts_node_descendant_for_byte_range(r, ts_node_start_byte(node), ts_node_end_byte(node));
    while (!ts_node_is_null(n) && !(node_type(n) == node_type(node) && ts_node_start_byte(n) == ts_node_start_byte(node) &&
                                     ts_node_end_byte(n) == ts_node_end_byte(node)))
        n = ts_node_parent(n);
    return n;
}

TSNode binding_loop(TSNode use, std::string_view name, const ModuleFacts& facts) {
    for (TSNode cur = ts_node_parent(use); !ts_node_is_null(cur); cur = ts_node_parent(cur)) {
        if (is_type(cur, "function_definition")) break;
        if (!is_type(cur, "for_statement")) continue;
        bool binds = false;
        for_each_node(field(cur, "left"), [&](TSNode n) { binds = binds || (is_type(n, "identifier") && facts.text(n) == name); });
        if (binds) return cur;
    }
    return TSNode{};
}

PassedArguments passed_arguments(TSNode call, const ModuleFacts& facts) {
    PassedArguments out;
    const TSNode args = field(call, "arguments");
    if (!is_type(args, "argument_list")) {  // `f(x for x in y)`: one positional generator
        out.positional = ts_node_is_null(args) ? 0 : 1;
        return out;
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
        const TSNode a = ts_node_named_child(args, i);
        if (is_type(a, "comment")) continue;
        if (is_type(a, "keyword_argument")) out.keywords.emplace_back(facts.text(field(a, "name")));
        else if (is_type(a, "list_splat") || is_type(a, "dictionary_splat")) out.spread = true;
        else ++out.positional;
    }
    return out;
}

void for_each_parameter(TSNode def, int skipped, const std::function<void(TSNode, int)>& fn) {
    const TSNode params = field(def, "parameters");
    int position = -skipped;
    bool keyword_only = false;
    for (uint32_t i = 0; !ts_node_is_null(params) && i < ts_node_named_child_count(params); ++i) {
        const TSNode p = ts_node_named_child(params, i);
        if (is_type(p, "list_splat_pattern") || is_type(p, "keyword_separator") || is_type(p, "dictionary_splat_pattern")) {
            keyword_only = true;
            continue;
        }
        if (is_type(p, "positional_separator") || is_type(p, "comment")) continue;
        fn(p, keyword_only ? -1 : position);
        ++position;
    }
}

std::optional<std::string> string_literal(TSNode node, std::string_view text) {
    if (!is_type(node, "string")) return std::nullopt;
    std::string out;
    const uint32_t n = ts_node_child_count(node);
    for (uint32_t i = 0; i < n; ++i) {
        TSNode c = ts_node_child(node, i);
        const std::string_view t = ts_node_type(c);
        if (t == "string_start" || t == "string_end") continue;
        out.append(text.substr(ts_node_start_byte(c), ts_node_end_byte(c) - ts_node_start_byte(c)));
    }
    return out;
}

ModuleFacts::ModuleFacts(TSNode root, std::string_view text) : m_text(text), m_root(root) {
    // Imports anywhere in the file bind names for the whole file: a deliberate simplification,
    // since labs often import inside functions (`import apex` in a try block, say).
    TSTreeCursor cursor = ts_tree_cursor_new(root);
    bool descend = true;
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&cursor);
        const std::string_view t = ts_node_type(n);
        const bool is_import = t == "import_statement" || t == "import_from_statement";
        if (is_import) {
            m_imports.push_back(n);
            add_import(n);
        }
        // Imports never hold statements: skip their insides; expressions never hold imports.
        const bool can_hold_import = !is_import && (t == "module" || t == "block" || t.find("statement") != std::string_view::npos ||
                                                    t.find("clause") != std::string_view::npos || t == "function_definition" ||
                                                    t == "class_definition" || t == "decorated_definition");
        if (descend && can_hold_import && ts_tree_cursor_goto_first_child(&cursor)) continue;
        descend = true;
        if (ts_tree_cursor_goto_next_sibling(&cursor)) continue;
        bool done = true;
        while (ts_tree_cursor_goto_parent(&cursor)) {
            if (ts_tree_cursor_goto_next_sibling(&cursor)) {
                done = false;
                break;
            }
        }
        if (done) break;
    }
    ts_tree_cursor_delete(&cursor);
    add_constants(root);
}

std::string_view ModuleFacts::text(TSNode node) const {
    // A field the grammar leaves out (`self.flag: bool` is an assignment without a right side) is a
    // null node: it has no text, and tree-sitter must not be asked for its bytes.
    if (ts_node_is_null(node)) return {};
    return m_text.substr(ts_node_start_byte(node), ts_node_end_byte(node) - ts_node_start_byte(node));
}

void ModuleFacts::add_import(TSNode node) {
    const bool from = is_type(node, "import_from_statement");
    std::string module;
    if (from) {
        TSNode mod = field(node, "module_name");
        if (!is_type(mod, "dotted_name")) return;  // relative imports name the lab's own modules
        module = std::string(text(mod));
    }
    const uint32_t n = ts_node_named_child_count(node);
    for (uint32_t i = 0; i < n; ++i) {
        TSNode child = ts_node_named_child(node, i);
        if (from && ts_node_start_byte(child) == ts_node_start_byte(field(node, "module_name"))) continue;
        std::string name;
        std::string alias;
        if (is_type(child, "dotted_name")) {
            name = std::string(text(child));
        } else if (is_type(child, "aliased_import")) {
            name = std::string(text(field(child, "name")));
            alias = std::string(text(field(child, "alias")));
        } else {
            continue;
        }
        if (from) {
            m_aliases[alias.empty() ? name : alias] = module + "." + name;
        } else if (!alias.empty()) {
            m_aliases[alias] = name;
        } else {
            const std::string head = name.substr(0, name.find('.'));
            m_aliases[head] = head;
        }
    }
}

void ModuleFacts::add_constants(TSNode root) {
    const uint32_t n = ts_node_named_child_count(root);
    std::map<std::string, int> bindings;
    for (uint32_t i = 0; i < n; ++i) {
        TSNode stmt = ts_node_named_child(root, i);
        if (!is_type(stmt, "expression_statement")) continue;
        TSNode assign = ts_node_named_child(stmt, 0);
        if (!is_type(assign, "assignment")) continue;
        TSNode left = field(assign, "left");
        if (!is_type(left, "identifier")) continue;
        const std::string name(text(left));
        ++bindings[name];
        m_bindings[name] = field(assign, "right");
        auto value = string_literal(field(assign, "right"), m_text);
        if (value) {
            m_constants[name] = *value;
            m_constant_nodes[name] = field(assign, "right");
        }
    }
    // A name bound more than once at module level is not a constant.
    for (const auto& [name, count] : bindings)
        if (count > 1) {
            m_constants.erase(name);
            m_constant_nodes.erase(name);
            m_bindings.erase(name);
        }
}

TSNode ModuleFacts::module_binding(std::string_view name) const {
    auto it = m_bindings.find(name);
    return it == m_bindings.end() ? TSNode{} : it->second;
}

TSNode ModuleFacts::constant_definition(std::string_view name) const {
    auto it = m_constant_nodes.find(name);
    return it == m_constant_nodes.end() ? TSNode{} : it->second;
}

std::string ModuleFacts::qualname(TSNode node) const {
    std::string dotted;
    TSNode cur = node;
    std::string suffix;
    while (is_type(cur, "attribute")) {
        TSNode attr = field(cur, "attribute");
        suffix = "." + std::string(text(attr)) + suffix;
        cur = field(cur, "object");
    }
    if (!is_type(cur, "identifier")) return {};
    const std::string_view head = text(cur);
    auto it = m_aliases.find(head);
    return (it == m_aliases.end() ? std::string(head) : it->second) + suffix;
}

std::optional<std::string> ModuleFacts::string_value(TSNode node) const {
    if (is_type(node, "string")) return string_literal(node, m_text);
    if (is_type(node, "identifier")) {
        auto it = m_constants.find(text(node));
        if (it != m_constants.end()) return it->second;
    }
    return std::nullopt;
}


const std::vector<TSNode>& ModuleFacts::identifiers_named(std::string_view name) const {
    if (!m_identifiers) {
        m_identifiers.emplace();
        for_each_node(m_root, [&](TSNode n) {
            if (is_type(n, "identifier")) (*m_identifiers)[text(n)].push_back(n);
        });
    }
    static const std::vector<TSNode> none;
    const auto it = m_identifiers->find(name);
    return it == m_identifiers->end() ? none : it->second;
}

bool is_main_guard(TSNode if_statement, const ModuleFacts& facts) {
    const TSNode c = field(if_statement, "condition");
    if (!is_type(c, "comparison_operator")) return false;
    bool name = false, main = false;
    for (uint32_t i = 0; i < ts_node_named_child_count(c); ++i) {
        TSNode side = ts_node_named_child(c, i);
        if (facts.text(side) == "__name__") name = true;
        if (auto v = string_literal(side, facts.source()); v && *v == "__main__") main = true;
    }
    return name && main;
}

void for_each_node(TSNode root, const std::function<void(TSNode)>& fn) {
    TSTreeCursor cursor = ts_tree_cursor_new(root);
    for (bool more = true; more;) {
        fn(ts_tree_cursor_current_node(&cursor));
        if (ts_tree_cursor_goto_first_child(&cursor)) continue;
        if (ts_tree_cursor_goto_next_sibling(&cursor)) continue;
        more = false;
        while (ts_tree_cursor_goto_parent(&cursor)) {
            if (ts_tree_cursor_goto_next_sibling(&cursor)) {
                more = true;
                break;
            }
        }
    }
    ts_tree_cursor_delete(&cursor);
}

std::optional<std::string> branch_in_function(TSNode node, const ModuleFacts& facts) {
    if (ts_node_is_null(enclosing(node, {"function_definition"}))) return std::nullopt;
    for (TSNode cur = node, parent = ts_node_parent(node); !ts_node_is_null(parent); cur = parent, parent = ts_node_parent(parent)) {
        if (is_type(parent, "function_definition") || is_type(parent, "class_definition") || is_type(parent, "module")) return std::nullopt;
        if (is_type(parent, "if_statement") && !ts_node_eq(cur, field(parent, "condition")))
            return "if " + one_line(facts.text(field(parent, "condition")), 60) + ":";
        if (is_type(parent, "elif_clause")) return "elif " + one_line(facts.text(field(parent, "condition")), 60) + ":";
        if (is_type(parent, "else_clause")) return std::string("else:");
        if (is_type(parent, "except_clause")) return std::string("an except clause");
    }
    return std::nullopt;
}

std::optional<std::string> past_early_return_naming(TSNode node, const ModuleFacts& facts, std::string_view word) {
    if (word.empty() || ts_node_is_null(enclosing(node, {"function_definition"}))) return std::nullopt;
    for (TSNode cur = node, parent = ts_node_parent(node); !ts_node_is_null(parent); cur = parent, parent = ts_node_parent(parent)) {
        if (is_type(parent, "block"))
            for (TSNode prev = ts_node_prev_named_sibling(cur); !ts_node_is_null(prev); prev = ts_node_prev_named_sibling(prev)) {
                if (!is_type(prev, "if_statement") || if_arms(prev).blocks.size() != 1) continue;
                const TSNode body = field(prev, "consequence");
                const uint32_t n = ts_node_named_child_count(body);
                if (n == 0 || !is_type(ts_node_named_child(body, n - 1), "return_statement")) continue;
                const std::string_view test = facts.text(field(prev, "condition"));
                if (test.find(word) != std::string_view::npos) return "past `if " + one_line(test, 60) + ": return`";
            }
        if (is_type(parent, "function_definition") || is_type(parent, "class_definition")) return std::nullopt;
    }
    return std::nullopt;
}

IfArms if_arms(TSNode if_statement) {
    IfArms out{{field(if_statement, "consequence")}};
    for (uint32_t i = 0; i < ts_node_named_child_count(if_statement); ++i) {
        const TSNode clause = ts_node_named_child(if_statement, i);
        if (is_type(clause, "elif_clause")) out.blocks.push_back(field(clause, "consequence"));
        if (is_type(clause, "else_clause")) {
            out.blocks.push_back(field(clause, "body"));
            out.has_else = true;
        }
    }
    return out;
}

std::string one_line(std::string_view text, std::size_t max) {
    std::string out;
    bool space = false;
    for (char c : text) {
        if (c == '\n' || c == '\r' || c == ' ' || c == '\t') {
            space = !out.empty();
            continue;
        }
        if (space) out.push_back(' ');
        space = false;
        out.push_back(c);
        if (out.size() >= max) return out + "...";
    }
    return out;
}

std::vector<std::string> identifier_words(std::string_view name) {
    std::vector<std::string> words;
    std::string word;
    auto flush = [&] {
        if (!word.empty()) words.push_back(word);
        word.clear();
    };
    for (std::size_t i = 0; i < name.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(name[i]);
        if (c == '_' || std::isdigit(c)) {
            flush();
            continue;
        }
        const bool upper = std::isupper(c);
        const bool prev_lower = i > 0 && std::islower(static_cast<unsigned char>(name[i - 1]));
        const bool next_lower = i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1]));
        const bool prev_upper = i > 0 && std::isupper(static_cast<unsigned char>(name[i - 1]));
        if (upper && (prev_lower || (prev_upper && next_lower))) flush();  // RCNNWith -> rcnn, with
        word.push_back(static_cast<char>(std::tolower(c)));
    }
    flush();
    return words;
}

}  // namespace mpsport::python
