// setup.py, parsed with tree-sitter and never run: the install_requires / setup_requires /
// extras_require keywords of setup(...), as list or dict literals or module-level names bound to
// one. Requirements computed at run time (read from a file, built in a loop) are not followed; the
// requirements file they read is scanned on its own.
#include <tree_sitter/api.h>

#include <map>
#include <memory>
#include <stdexcept>

#include "analyzer/manifests/dependencies.hpp"
#include "analyzer/python/syntax.hpp"

namespace mpsport::manifests {
namespace {

using python::field;
using python::is_type;

class SetupPyReader {
public:
    explicit SetupPyReader(const SourceText& source) : m_text(source.text()) {}

    ManifestFacts read(TSNode root) {
        bind_module_names(root);
        visit(root);
        return std::move(m_out);
    }

private:
    std::string_view text(TSNode n) const {
        return std::string_view(m_text).substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
    }

    void bind_module_names(TSNode root) {
        for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
            TSNode stmt = ts_node_named_child(root, i);
            if (!is_type(stmt, "expression_statement") || ts_node_named_child_count(stmt) == 0) continue;
            TSNode a = ts_node_named_child(stmt, 0);
            if (!is_type(a, "assignment")) continue;
            TSNode left = field(a, "left");
            TSNode right = field(a, "right");
            if (!ts_node_is_null(left) && !ts_node_is_null(right) && is_type(left, "identifier")) m_names[std::string(text(left))] = right;
        }
    }

    TSNode resolve(TSNode value) const {
        if (is_type(value, "identifier")) {
            auto it = m_names.find(std::string(text(value)));
            if (it != m_names.end()) return it->second;
        }
        return value;
    }

    void requirement_list(TSNode list, Scope scope, const std::string& group) {
        list = resolve(list);
        if (is_type(list, "binary_operator")) {  // BASE + ["extra"]
            requirement_list(field(list, "left"), scope, group);
            requirement_list(field(list, "right"), scope, group);
            return;
        }
        if (!is_type(list, "list") && !is_type(list, "tuple")) return;
        for (uint32_t i = 0; i < ts_node_named_child_count(list); ++i) {
            TSNode item = ts_node_named_child(list, i);
            const auto s = python::string_literal(item, m_text);
            if (!s) continue;
            std::optional<Requirement> r;
            try {
                r = parse_requirement(*s);
            } catch (const std::runtime_error& e) {
                throw std::runtime_error("invalid requirement at line " + std::to_string(ts_node_start_point(item).row + 1) + ": " + e.what());
            }
            if (!r) continue;
            m_out.dependencies.push_back(make_dependency(*r, scope, group, {ts_node_start_byte(item), ts_node_end_byte(item)}));
        }
    }

    void extras(TSNode dict) {
        dict = resolve(dict);
        if (!is_type(dict, "dictionary")) return;
        for (uint32_t i = 0; i < ts_node_named_child_count(dict); ++i) {
            TSNode pair = ts_node_named_child(dict, i);
            if (!is_type(pair, "pair")) continue;
            TSNode key = field(pair, "key");
            const auto name = python::string_literal(key, m_text);
            if (!name) continue;
            m_out.groups.push_back({*name, Scope::optional, {ts_node_start_byte(key), ts_node_end_byte(key)}});
            requirement_list(field(pair, "value"), Scope::optional, *name);
        }
    }

    void setup_call(TSNode call) {
        TSNode args = field(call, "arguments");
        for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); ++i) {
            TSNode kw = ts_node_named_child(args, i);
            if (!is_type(kw, "keyword_argument")) continue;
            const std::string_view name = text(field(kw, "name"));
            TSNode value = field(kw, "value");
            if (name == "install_requires") requirement_list(value, Scope::required, "");
            else if (name == "setup_requires") requirement_list(value, Scope::build, "");
            else if (name == "extras_require") extras(value);
        }
    }

    void visit(TSNode node) {
        if (is_type(node, "call")) {
            const std::string_view fn = text(field(node, "function"));
            if (fn == "setup" || fn == "setuptools.setup") setup_call(node);
        }
        for (uint32_t i = 0; i < ts_node_named_child_count(node); ++i) visit(ts_node_named_child(node, i));
    }

    const std::string& m_text;
    std::map<std::string, TSNode> m_names;  // module-level NAME = value
    ManifestFacts m_out;
};

}  // namespace

ManifestFacts read_setup_py(const SourceText& source) {
    const python::ParsedModule parsed(source.text());
    if (ts_node_is_null(parsed.root())) throw std::runtime_error("setup.py could not be parsed");
    return SetupPyReader(source).read(parsed.root());
}

}  // namespace mpsport::manifests
