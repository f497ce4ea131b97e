// Python checks that a tree-sitter query cannot express (data flow, try/except context, package
// lists). Each is registered by name in one table; a rule names it with `python.analysis`.
#pragma once

#include <string_view>
#include <vector>

#include "analyzer/match.hpp"
#include "analyzer/python/guards.hpp"
#include "analyzer/python/syntax.hpp"
#include "core/rule_catalogue.hpp"

namespace mpsport::python {

struct OpTables;

struct AnalysisInput {
    TSNode root;
    const ModuleFacts& facts;
    const GuardFinder& guards;
    const RuleCatalogue& catalogue;
    const OpTables* op_tables;  // loaded when a rule's analysis needs them; null otherwise
    // The whole file, parsed on first use, once for all the file's analyses (`root` may hold only the
    // statements around the rules' triggers)
    const FullTree& full;
};

using Analysis = void (*)(const AnalysisInput& in, const Rule& rule, std::vector<Match>& out);

// A rule's string-list parameter (python.params), empty when the rule has none.
const std::vector<std::string>& rule_param(const Rule& rule, const char* key);

// nullptr when no analysis has that name.
Analysis find_analysis(std::string_view name);
// Does the analysis read the MPS op tables (rules/mps/)?
bool needs_op_tables(std::string_view name);

}  // namespace mpsport::python
