#include "analyzer/lines/line_engine.hpp"

#include <algorithm>

namespace mpsport::lines {

LineEngine::LineEngine(const RuleCatalogue& catalogue) {
    for (const auto& r : catalogue.rules()) {
        if (r.engine != "lines") continue;
        LineRule l{&r, {}, {}};
        for (const auto& name : r.file_kinds) {
            const auto kind = parse_file_kind(name);
            if (!kind) throw RuleError(r.source.generic_string() + ": lines.files: unknown file kind '" + name + "'");
            l.kinds.push_back(*kind);
        }
        try {
            l.pattern = std::regex(r.line_pattern, std::regex::ECMAScript | std::regex::optimize);
        } catch (const std::regex_error& e) {
            throw RuleError(r.source.generic_string() + ": lines.pattern: " + e.what());
        }
        m_rules.push_back(std::move(l));
    }
}

bool LineEngine::reads(FileKind kind) const {
    return std::any_of(m_rules.begin(), m_rules.end(),
                       [&](const LineRule& l) { return std::find(l.kinds.begin(), l.kinds.end(), kind) != l.kinds.end(); });
}

std::vector<Match> LineEngine::analyze(FileKind kind, const SourceText& source) const {
    std::vector<Match> out;
    for (const auto& l : m_rules) {
        if (std::find(l.kinds.begin(), l.kinds.end(), kind) == l.kinds.end()) continue;
        for (int i = 1; i <= static_cast<int>(source.line_count()); ++i) {
            const std::string_view line = source.line(i);
            if (l.rule->line_skip_comments) {
                const std::size_t first = line.find_first_not_of(" \t");
                if (first != std::string_view::npos && line[first] == '#') continue;
            }
            std::cmatch cm;
            if (!std::regex_search(line.data(), line.data() + line.size(), cm, l.pattern)) continue;
            Match m;
            m.rule = l.rule;
            m.begin = static_cast<std::size_t>(line.data() - source.text().data() + cm.position(0));
            m.end = m.begin + std::max<std::size_t>(1, static_cast<std::size_t>(cm.length(0)));
            m.captures["finding"] = cm.str(0);
            out.push_back(std::move(m));
        }
    }
    return out;
}

}  // namespace mpsport::lines
