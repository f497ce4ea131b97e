#include "analyzer/match.hpp"

namespace mpsport {

std::string expand_message(const std::string& templ, const std::map<std::string, std::string>& captures) {
    std::string out;
    out.reserve(templ.size());
    for (std::size_t i = 0; i < templ.size(); ++i) {
        if (templ[i] == '{') {
            const std::size_t close = templ.find('}', i);
            if (close != std::string::npos) {
                auto it = captures.find(templ.substr(i + 1, close - i - 1));
                if (it != captures.end()) {
                    out += it->second;
                    i = close;
                    continue;
                }
            }
        }
        out.push_back(templ[i]);
    }
    return out;
}

void append_findings(const std::vector<Match>& matches, const SourceText& source, const std::string& path,
                     const Suppressions& suppressions, std::vector<Finding>& out,
                     const std::vector<std::pair<int, int>>* cell_lines) {
    for (const auto& m : matches) {
        const int line = source.line_of(m.begin);
        if (suppressions.suppressed(m.rule->id, line)) continue;
        const int end_line = source.line_of(m.end > m.begin ? m.end - 1 : m.begin);
        Finding f;
        f.rule_id = m.rule->id;
        f.severity = m.severity.value_or(m.rule->severity);
        f.category = m.rule->category;
        f.impact = m.impact.value_or(m.rule->impact);
        f.location.path = path;
        f.location.line = line;
        f.location.col = static_cast<int>(m.begin - static_cast<std::size_t>(source.line(line).data() - source.text().data())) + 1;
        f.location.end_line = end_line;
        f.location.end_col = static_cast<int>(m.end - static_cast<std::size_t>(source.line(end_line).data() - source.text().data())) + 1;
        f.snippet = source.snippet(m.begin, m.end);
        f.matched = source.text().substr(m.begin, m.end - m.begin);
        f.message = expand_message(m.rule->message, m.captures);
        f.fix = expand_message(m.rule->fix, m.captures);
        f.note = m.note;
        if (cell_lines && static_cast<std::size_t>(end_line) <= cell_lines->size()) {
            const auto [cell, cell_line] = (*cell_lines)[static_cast<std::size_t>(line - 1)];
            f.location.cell = cell;
            f.location.line = cell_line;
            f.location.end_line = (*cell_lines)[static_cast<std::size_t>(end_line - 1)].second;
        }
        out.push_back(std::move(f));
    }
}

}  // namespace mpsport

namespace mpsport {
void describe_package(Match& m, const PackageInfo& pkg) {
    m.captures["package"] = pkg.import_name;
    m.captures["alternative"] = pkg.alternative;
    m.captures["why"] = pkg.why;
    if (pkg.impact == m.rule->impact || pkg.impact > m.rule->impact) return;
    m.impact = pkg.impact;
    if (m.rule->severity > Severity::major) {
        m.severity = Severity::major;
        m.note = "this package is needed for scale or speed, not for correctness";
    }
}
}  // namespace mpsport
