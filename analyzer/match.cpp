#include "analyzer/match.hpp"

#include <cctype>

namespace mpsport {

namespace {

// A message is one line: a capture that spans lines (a multi-line call, a list of flags) has each line
// break, with the indentation around it, folded into one space.
void append_on_one_line(std::string& out, const std::string& text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\n' && text[i] != '\r') {
            out.push_back(text[i]);
            continue;
        }
        while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
        while (i + 1 < text.size() && std::isspace(static_cast<unsigned char>(text[i + 1]))) ++i;
        const bool after_open = !out.empty() && (out.back() == '(' || out.back() == '[' || out.back() == '{');
        const bool before_close = i + 1 < text.size() && (text[i + 1] == ')' || text[i + 1] == ']' || text[i + 1] == '}');
        if (!out.empty() && !after_open && !before_close) out.push_back(' ');
    }
}

}  // namespace

std::string expand_message(const std::string& templ, const std::map<std::string, std::string>& captures) {
    std::string out;
    out.reserve(templ.size());
    for (std::size_t i = 0; i < templ.size(); ++i) {
        if (templ[i] == '{') {
            const std::size_t close = templ.find('}', i);
            if (close != std::string::npos) {
                auto it = captures.find(templ.substr(i + 1, close - i - 1));
                if (it != captures.end()) {
                    append_on_one_line(out, it->second);
                    i = close;
                    continue;
                }
            }
        }
        out.push_back(templ[i]);
    }
    return out;
}

namespace {

Location locate(const SourceText& source, const std::string& path, std::size_t begin, std::size_t end,
                const std::vector<std::pair<int, int>>* cell_lines) {
    Location l;
    l.path = path;
    l.line = source.line_of(begin);
    l.end_line = source.line_of(end > begin ? end - 1 : begin);
    l.col = static_cast<int>(begin - static_cast<std::size_t>(source.line(l.line).data() - source.text().data())) + 1;
    l.end_col = static_cast<int>(end - static_cast<std::size_t>(source.line(l.end_line).data() - source.text().data())) + 1;
    if (cell_lines && static_cast<std::size_t>(l.end_line) <= cell_lines->size()) {
        l.cell = (*cell_lines)[static_cast<std::size_t>(l.line - 1)].first;
        const int end_cell_line = (*cell_lines)[static_cast<std::size_t>(l.end_line - 1)].second;
        l.line = (*cell_lines)[static_cast<std::size_t>(l.line - 1)].second;
        l.end_line = end_cell_line;
    }
    return l;
}

}  // namespace

void append_findings(const std::vector<Match>& matches, const SourceText& source, const std::string& path,
                     const Suppressions& suppressions, std::vector<Finding>& out,
                     const std::vector<std::pair<int, int>>* cell_lines) {
    for (const auto& m : matches) {
        if (suppressions.suppressed(m.rule->id, source.line_of(m.begin))) continue;
        Finding f;
        f.rule_id = m.rule->id;
        f.severity = f.rule_severity = m.severity.value_or(m.rule->severity);
        f.category = m.rule->category;
        f.impact = f.rule_impact = m.impact.value_or(m.rule->impact);
        f.guard = m.guard;
        f.guard_note = m.guard_note;
        f.subject = m.subject;
        f.origin = m.origin;
        f.location = locate(source, path, m.begin, m.end, cell_lines);
        f.snippet = source.snippet(m.begin, m.end);
        f.matched = source.text().substr(m.begin, m.end - m.begin);
        f.message = expand_message(m.rule->message, m.captures);
        f.fix = expand_message(m.rule->fix, m.captures);
        f.note = m.note;
        f.lines = m.lines;
        f.ops = m.ops;
        for (const auto& [range, label] : m.related) {
            RelatedLocation rel;
            rel.label = label;
            rel.location = locate(source, path, range.first, range.second, cell_lines);
            f.related.push_back(std::move(rel));
        }
        out.push_back(std::move(f));
    }
}

}  // namespace mpsport

namespace mpsport {
void describe_package(Match& m, const PackageInfo& pkg) {
    m.subject = pkg.import_name.empty() ? pkg.distributions.front() : pkg.import_name;
    m.captures["package"] = pkg.import_name.empty() ? pkg.distributions.front() : pkg.import_name;
    m.captures["provides"] = pkg.provides;
    m.captures["mps"] = std::string(to_string(pkg.mps)) + (pkg.mps_since.empty() ? "" : " since " + pkg.mps_since) +
                        (pkg.mps_note.empty() ? "" : " (" + pkg.mps_note + ")");
    m.captures["alternative"] = pkg.alternative;
    m.captures["why"] = pkg.why;
    // What a Mac does with it: a package with part of it there (faster-whisper's CPU wheels) installs
    // and runs, without the GPU path the code may take
    const bool in_part = pkg.mps == MpsStatus::partial;
    const std::string part = "runs on macOS only in part (" + pkg.mps_note + ")";
    m.captures["on_mac"] = in_part ? part : "does not install or run on macOS";
    m.captures["needs"] = in_part ? part : "needs CUDA";
    if (pkg.impact == m.rule->impact || pkg.impact > m.rule->impact) return;
    m.impact = pkg.impact;
    if (m.rule->severity > Severity::major) {
        m.severity = Severity::major;
        // dual, not the rule's stay: the package is for scale or speed, or something that runs on a Mac replaces
        // it; none: a drop-in replacement makes the swap an edit
        if (pkg.alternative.empty()) m.note = "this package is needed for scale or speed, not for correctness";
        else if (pkg.impact == VerdictImpact::none) m.note = "no verdict impact: what it provides has drop-in replacements that run on a Mac (" + pkg.alternative + ")";
        else m.note = "dual-track, not stay-on-CUDA: it has a replacement or can be left out (" + pkg.alternative + ")";
    }
}
}  // namespace mpsport
