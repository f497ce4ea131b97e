#include "analyzer/python/python_engine.hpp"

#include <map>

#include "analyzer/python/analyses.hpp"
#include "analyzer/python/guards.hpp"
#include "analyzer/python/query_set.hpp"
#include "analyzer/python/regions.hpp"

namespace mpsport::python {
namespace {

struct ParserDeleter {
    void operator()(TSParser* p) const { ts_parser_delete(p); }
};

TSParser* thread_parser() {
    thread_local std::unique_ptr<TSParser, ParserDeleter> parser = [] {
        std::unique_ptr<TSParser, ParserDeleter> p(ts_parser_new());
        if (!ts_parser_set_language(p.get(), tree_sitter_python()))
            throw std::runtime_error("tree-sitter-python grammar ABI does not match the tree-sitter runtime");
        return p;
    }();
    return parser.get();
}

struct TreeDeleter {
    void operator()(TSTree* t) const { ts_tree_delete(t); }
};

}  // namespace

PythonEngine::PythonEngine(const RuleCatalogue& catalogue) : m_catalogue(catalogue) {
    for (const auto& r : catalogue.rules()) {
        if (r.engine != "python") continue;
        if (!r.query.empty()) {
            m_query_rules.push_back(&r);
        } else {
            if (!find_analysis(r.analysis))
                throw RuleError(r.source.generic_string() + ": python.analysis '" + r.analysis + "' is not a registered analysis");
            m_analysis_rules.push_back(&r);
        }
    }
    m_queries = std::make_unique<QuerySet>(m_query_rules);
    std::map<std::string, std::size_t> literal_index;
    std::vector<std::string> literals;
    auto add_rule = [&](const Rule* r) {
        std::vector<std::size_t> idx;
        for (const auto& t : r->triggers) {
            auto [it, inserted] = literal_index.emplace(t, literals.size());
            if (inserted) literals.push_back(t);
            idx.push_back(it->second);
        }
        m_rule_triggers.push_back(std::move(idx));
    };
    for (const Rule* r : m_query_rules) add_rule(r);
    for (const Rule* r : m_analysis_rules) add_rule(r);
    m_triggers = std::make_unique<TriggerSet>(std::move(literals));
}

PythonEngine::~PythonEngine() = default;

std::vector<Match> PythonEngine::analyze(std::string_view text) const {
    std::vector<Match> out;
    const auto hits = m_triggers->find_each(text);
    std::vector<bool> found(m_triggers->literals().size(), false);
    for (const auto& hit : hits) found[hit.second] = true;
    std::vector<bool> enabled(m_rule_triggers.size(), false);
    bool any = false;
    for (std::size_t r = 0; r < m_rule_triggers.size(); ++r) {
        for (std::size_t lit : m_rule_triggers[r]) {
            if (found[lit]) {
                enabled[r] = true;
                any = true;
                break;
            }
        }
    }
    if (!any) return out;

    TSParser* parser = thread_parser();
    const std::vector<TSRange> ranges = regions_to_parse(text, hits);
    if (!ranges.empty()) ts_parser_set_included_ranges(parser, ranges.data(), static_cast<uint32_t>(ranges.size()));
    std::unique_ptr<TSTree, TreeDeleter> tree(ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size())));
    if (!ranges.empty()) ts_parser_set_included_ranges(parser, nullptr, 0);
    if (!tree) return out;
    const TSNode root = ts_tree_root_node(tree.get());
    const ModuleFacts facts(root, text);

    std::vector<NodeMatch> query_matches;
    const std::vector<bool> query_enabled(enabled.begin(), enabled.begin() + static_cast<std::ptrdiff_t>(m_query_rules.size()));
    m_queries->run(root, facts, query_enabled, query_matches);
    for (auto& nm : query_matches) {
        Match& m = nm.match;
        if (m.rule->guard != "none") {
            const Guard guard = availability_guard(nm.node, facts);
            if (guard.kind == GuardKind::mps_aware) continue;
            if (guard.kind == GuardKind::cuda_check && m.rule->guard == "downgrade") {
                m.severity = Severity::info;
                m.impact = VerdictImpact::none;
                m.note = guard.note;
            }
        }
        out.push_back(std::move(m));
    }

    const AnalysisInput input{root, facts, m_catalogue};
    for (std::size_t i = 0; i < m_analysis_rules.size(); ++i) {
        if (!enabled[m_query_rules.size() + i]) continue;
        const Rule& rule = *m_analysis_rules[i];
        find_analysis(rule.analysis)(input, rule, out);
    }
    return out;
}

}  // namespace mpsport::python
