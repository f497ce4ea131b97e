// The tree-sitter queries of all python rules, compiled once into one query, and the predicates
// (#eq?, #match?, #qualname-match?, #value-match?, ...) that tree-sitter leaves to its caller.
#pragma once

#include <re2/re2.h>
#include <tree_sitter/api.h>

#include <memory>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "analyzer/match.hpp"
#include "analyzer/python/syntax.hpp"
#include "core/rule.hpp"

namespace mpsport::python {

struct Predicate {
    std::string op;                   // without the trailing '?'
    uint32_t capture = 0;             // first argument: a capture id
    std::vector<std::string> values;  // the remaining string arguments
    std::shared_ptr<const re2::RE2> regex;  // RE2 syntax (no backreferences or lookaround)
};

// One top-level pattern of a query: its text without its predicates (`shape`, whitespace folded),
// the predicates' text, and the capture names they read. Strings and comments are skipped whole.
struct QueryPattern {
    std::string shape;
    std::string predicates;
    std::vector<std::string> captures;
};
std::vector<QueryPattern> split_query(std::string_view query);

// A shape with every node that sits inside another node and has children of its own written as a
// wildcard, `(argument_list (identifier))` as `(_ (identifier)) @__t0`, and `typed` the capture and
// type of each: when it compiles a query, tree-sitter 0.20.7 analyses each typed node with children
// against the grammar's parse table (~0.8 ms each), and a wildcard not at all. A match is kept only
// where each such capture's node has the type written (QuerySet::run). A shape with a quantifier, or
// with an alternation of nodes inside a node, is returned as written: tree-sitter drops a state whose
// captures are a subset of another's, and could keep the one that took a wrongly typed node.
std::string untyped_parents(std::string_view shape, std::vector<std::pair<std::string, std::string>>& typed);

struct NodeMatch {
    Match match;
    TSNode node;  // the @finding node, for context checks
};

class QuerySet {
public:
    // Throws RuleError naming the rule file and the line of a bad query or predicate.
    explicit QuerySet(const std::vector<const Rule*>& rules);
    ~QuerySet();
    QuerySet(const QuerySet&) = delete;
    QuerySet& operator=(const QuerySet&) = delete;

    // Runs every pattern over the tree; `enabled[i]` says whether rules()[i] applies to this file.
    void run(TSNode root, const ModuleFacts& facts, const std::vector<bool>& enabled, std::vector<NodeMatch>& out) const;
    const std::vector<const Rule*>& rules() const { return m_rules; }
    // The rules' top-level patterns, and the distinct shapes compiled for them.
    std::size_t pattern_count() const { return m_pattern_rule.size(); }
    std::size_t shape_count() const { return m_shape_patterns.size(); }

private:
    // Every node the shape wrote with a type, compiled as a wildcard (untyped_parents), has that type.
    bool typed_as_written(const TSQueryMatch& match) const;
    bool holds(const Predicate& p, const TSQueryMatch& match, const ModuleFacts& facts) const;
    // One rule pattern's match: its predicates, then one NodeMatch per rule and node.
    void emit(std::size_t pattern, const TSQueryMatch& match, const ModuleFacts& facts, const std::vector<bool>& enabled,
              std::set<std::pair<const Rule*, uint32_t>>& seen, std::vector<NodeMatch>& out) const;

    std::vector<const Rule*> m_rules;
    struct QueryDelete {
        void operator()(TSQuery* q) const { ts_query_delete(q); }
    };
    // Owned from its compilation on: a bad predicate found after it (a regex RE2 cannot compile)
    // throws out of the constructor, and the query must not leak then.
    std::unique_ptr<TSQuery, QueryDelete> m_query;          // one pattern per distinct shape
    std::vector<std::vector<std::size_t>> m_shape_patterns; // shape (pattern of m_query) -> rule patterns written with it
    std::vector<std::vector<std::pair<uint32_t, TSSymbol>>> m_shape_types;  // shape -> (capture, type) to check
    std::vector<std::size_t> m_pattern_rule;                // rule pattern -> index into m_rules
    std::vector<std::vector<Predicate>> m_predicates;       // per rule pattern
    std::vector<std::string> m_capture_names;               // per capture id
    uint32_t m_finding_capture = UINT32_MAX;
};

}  // namespace mpsport::python
