#include "analyzer/python/guards.hpp"

namespace mpsport::python {
namespace {

// A condition that chooses between devices: an availability check, a device-type test, a --cuda flag.
bool selects_device(std::string_view condition) {
    for (std::string_view word : {"is_available", "device_count", "cuda", "device", ".type"})
        if (condition.find(word) != std::string_view::npos) return true;
    return false;
}

bool mentions_mps(std::string_view text) {
    return text.find("mps") != std::string_view::npos || text.find("accelerator") != std::string_view::npos;
}

// The conditions of an if/elif chain, joined.
std::string chain_conditions(TSNode if_statement, const ModuleFacts& facts) {
    std::string conditions(facts.text(field(if_statement, "condition")));
    const uint32_t n = ts_node_named_child_count(if_statement);
    for (uint32_t i = 0; i < n; ++i) {
        TSNode clause = ts_node_named_child(if_statement, i);
        if (!is_type(clause, "elif_clause")) continue;
        conditions += " ";
        conditions += facts.text(field(clause, "condition"));
    }
    return conditions;
}

// `if cuda: return "cuda"` followed by `if mps: return "mps"` in the same block also knows about MPS.
bool sibling_checks_mps(TSNode if_statement, const ModuleFacts& facts) {
    TSNode parent = ts_node_parent(if_statement);
    if (ts_node_is_null(parent)) return false;
    const uint32_t n = ts_node_named_child_count(parent);
    for (uint32_t i = 0; i < n; ++i) {
        TSNode sibling = ts_node_named_child(parent, i);
        if (is_type(sibling, "if_statement") && !ts_node_eq(sibling, if_statement) && mentions_mps(chain_conditions(sibling, facts)))
            return true;
    }
    return false;
}

}  // namespace

Guard availability_guard(TSNode node, const ModuleFacts& facts) {
    for (TSNode parent = ts_node_parent(node); !ts_node_is_null(parent); parent = ts_node_parent(parent)) {
        const std::string_view type = ts_node_type(parent);
        if (type == "conditional_expression") {
            // children: consequence 'if' condition 'else' alternative
            TSNode condition = ts_node_named_child(parent, 1);
            if (!selects_device(facts.text(condition))) continue;
            if (mentions_mps(facts.text(parent))) return {GuardKind::mps_aware, ""};
            return {GuardKind::cuda_check,
                    "guarded by a device check: device-agnostic, but on a Mac it picks the CPU, not MPS"};
        }
        if (type == "if_statement") {
            const std::string conditions = chain_conditions(parent, facts);
            if (!selects_device(conditions)) continue;
            if (mentions_mps(conditions) || sibling_checks_mps(parent, facts)) return {GuardKind::mps_aware, ""};
            // Only the branches the check selects are guarded: code in `else:` runs on a Mac.
            TSNode else_clause{};
            for (uint32_t i = 0; i < ts_node_named_child_count(parent); ++i)
                if (is_type(ts_node_named_child(parent, i), "else_clause")) else_clause = ts_node_named_child(parent, i);
            if (!ts_node_is_null(else_clause) && contains(else_clause, node)) continue;
            return {GuardKind::cuda_check, "inside a CUDA/device check: on a Mac this path is skipped and the CPU path runs"};
        }
    }
    return {};
}

}  // namespace mpsport::python
