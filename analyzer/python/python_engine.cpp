#include "analyzer/python/python_engine.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

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

bool is_word_char(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }

// Below this size a file is parsed whole: choosing regions would cost more than it saves.
constexpr std::size_t kRegionMinBytes = 8192;
// When the chosen regions cover more than this share of a file, it is parsed whole.
constexpr double kRegionMaxShare = 0.7;

TSPoint point_at(std::string_view text, std::size_t offset, const std::vector<Chunk>& chunks, std::size_t next_chunk) {
    if (next_chunk < chunks.size()) return {chunks[next_chunk].row, 0};
    uint32_t row = 0;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset; ++i)
        if (text[i] == '\n') ++row, line_start = i + 1;
    return {row, static_cast<uint32_t>(offset - line_start)};
}

// The statements holding a trigger hit, plus the imports, as tree-sitter ranges; empty when the whole
// file should be parsed. Large classes are split into their members, so one method that calls
// `.cuda()` does not pull in the rest of the class (its header always comes along).
std::vector<TSRange> regions_to_parse(std::string_view text, const std::vector<std::pair<std::size_t, std::uint32_t>>& hits) {
    if (text.size() < kRegionMinBytes) return {};
    constexpr std::size_t kSplitClassBytes = 2048;
    std::vector<Chunk> units;
    std::vector<std::ptrdiff_t> header_of;  // for a class member: the index of its class header unit
    for (const Chunk& c : top_level_chunks(text)) {
        const std::string_view first = text.substr(c.begin, std::min<std::size_t>(6, c.end - c.begin));
        const std::size_t indent = first == "class " && c.end - c.begin > kSplitClassBytes ? body_indent(text, c) : 0;
        std::vector<Chunk> members = indent ? block_chunks(text, c.begin, c.end, c.row, indent) : std::vector<Chunk>{};
        if (members.empty()) {
            units.push_back(c);
            header_of.push_back(-1);
            continue;
        }
        const std::ptrdiff_t header = static_cast<std::ptrdiff_t>(units.size());
        units.push_back({c.begin, members.front().begin, c.row, false});
        header_of.push_back(-1);
        for (const Chunk& m : members) {
            units.push_back(m);
            header_of.push_back(header);
        }
    }
    std::vector<bool> keep(units.size(), false);
    auto unit_at = [&](std::size_t offset) -> std::ptrdiff_t {
        const auto it = std::upper_bound(units.begin(), units.end(), offset, [](std::size_t off, const Chunk& ch) { return off < ch.begin; });
        if (it == units.begin()) return -1;
        const std::size_t i = static_cast<std::size_t>(it - units.begin()) - 1;
        return offset < units[i].end ? static_cast<std::ptrdiff_t>(i) : -1;
    };
    for (const auto& hit : hits)
        if (const auto u = unit_at(hit.first); u >= 0) keep[static_cast<std::size_t>(u)] = true;

    // Names bound in kept statements reach the rest of the file: `... import DistributedDataParallel as DDP`
    // makes `DDP(model)` a use; `DEVICE = "cuda"` at the top makes `model.to(DEVICE)` one.
    std::vector<std::string> names;
    for (std::size_t i = 0; i < units.size(); ++i) {
        if (!keep[i]) continue;
        const std::string_view chunk = text.substr(units[i].begin, units[i].end - units[i].begin);
        for (std::size_t at = chunk.find(" as "); at != std::string_view::npos; at = chunk.find(" as ", at + 4)) {
            std::size_t b = at + 4, e = b;
            while (e < chunk.size() && is_word_char(chunk[e])) ++e;
            if (e - b >= 2) names.emplace_back(chunk.substr(b, e - b));
        }
        std::size_t e = 0;
        while (e < chunk.size() && is_word_char(chunk[e])) ++e;
        if (e >= 2 && chunk.compare(e, 3, " = ") == 0) names.emplace_back(chunk.substr(0, e));
        // `from torch.cuda.amp import autocast, GradScaler`: the imported names themselves
        if (chunk.compare(0, 5, "from ") == 0) {
            const std::size_t imp = chunk.find(" import ");
            if (imp != std::string_view::npos) {
                const std::size_t stop = chunk.find('\n', imp);
                const std::string_view list = chunk.substr(imp + 8, (stop == std::string_view::npos ? chunk.size() : stop) - imp - 8);
                for (std::size_t b = 0; b < list.size();) {
                    while (b < list.size() && !is_word_char(list[b])) ++b;
                    std::size_t w = b;
                    while (w < list.size() && is_word_char(list[w])) ++w;
                    if (w - b >= 2 && list.substr(b, w - b) != "as") names.emplace_back(list.substr(b, w - b));
                    b = w;
                }
            }
        }
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const auto& name : names) {
        for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + name.size())) {
            if ((at > 0 && is_word_char(text[at - 1])) || (at + name.size() < text.size() && is_word_char(text[at + name.size()]))) continue;
            if (const auto u = unit_at(at); u >= 0) keep[static_cast<std::size_t>(u)] = true;
        }
    }
    for (std::size_t i = 0; i < units.size(); ++i) {
        if (units[i].is_import) keep[i] = true;
        if (keep[i] && header_of[i] >= 0) keep[static_cast<std::size_t>(header_of[i])] = true;
    }

    std::vector<TSRange> ranges;
    std::size_t covered = 0;
    for (std::size_t i = 0; i < units.size(); ++i) {
        if (!keep[i]) continue;
        covered += units[i].end - units[i].begin;
        const TSPoint end_point = point_at(text, units[i].end, units, i + 1);
        if (!ranges.empty() && ranges.back().end_byte == units[i].begin) {
            ranges.back().end_byte = static_cast<uint32_t>(units[i].end);
            ranges.back().end_point = end_point;
            continue;
        }
        ranges.push_back({{units[i].row, 0}, end_point, static_cast<uint32_t>(units[i].begin), static_cast<uint32_t>(units[i].end)});
    }
    if (ranges.empty() || static_cast<double>(covered) > kRegionMaxShare * static_cast<double>(text.size())) return {};
    return ranges;
}

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
