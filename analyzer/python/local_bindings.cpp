#include "analyzer/python/local_bindings.hpp"

namespace mpsport::python {
namespace {

void collect(TSNode n, TSNode scope, std::string_view name, const ModuleFacts& facts, std::vector<Binding>& out) {
    if (is_type(n, "assignment")) {
        const TSNode left = field(n, "left");
        const TSNode right = field(n, "right");
        if (is_type(left, "identifier") && facts.text(left) == name && !ts_node_is_null(right)) {
            const TSNode branch = enclosing(n, {"if_statement", "try_statement", "for_statement", "while_statement", "with_statement"});
            const bool conditional = !ts_node_is_null(branch) && (ts_node_is_null(scope) || contains(scope, branch));
            if (is_type(right, "conditional_expression") && ts_node_named_child_count(right) == 3) {
                // `kind = CUDAExtension if cuda else CppExtension`: either value, each under a condition
                for (uint32_t k : {0u, 2u}) {
                    const TSNode value = ts_node_named_child(right, k);
                    out.push_back({value, facts.qualname(value), true});
                }
            } else {
                out.push_back({right, facts.qualname(right), conditional});
            }
        }
    }
    const uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; ++i) {
        TSNode c = ts_node_named_child(n, i);
        if (!is_type(c, "function_definition") && !is_type(c, "class_definition")) collect(c, scope, name, facts, out);
    }
}

}  // namespace

std::vector<Binding> bindings_of(TSNode use, const ModuleFacts& facts) {
    std::vector<Binding> out;
    if (!is_type(use, "identifier")) return out;
    const TSNode function = enclosing(use, {"function_definition"});
    TSNode body{};
    TSNode scope{};  // null: the module
    if (ts_node_is_null(function)) {
        for (body = use; !ts_node_is_null(ts_node_parent(body));) body = ts_node_parent(body);
    } else {
        body = scope = field(function, "body");
    }
    collect(body, scope, facts.text(use), facts, out);
    return out;
}

}  // namespace mpsport::python
