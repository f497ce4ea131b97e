#include "analyzer/lines/line_engine.hpp"

#include <algorithm>

#include "analyzer/lines/shell_lines.hpp"

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
    std::vector<ShellCommand> lines;
    for (const auto& l : m_rules) {
        if (std::find(l.kinds.begin(), l.kinds.end(), kind) == l.kinds.end()) continue;
        // A shell script, Dockerfile or Makefile is read by command (shell_lines.hpp), any other file by line.
        if (lines.empty()) lines = shell_commands(source.text(), kind == FileKind::shell || kind == FileKind::dockerfile || kind == FileKind::makefile);
        for (const auto& line : lines) {
            if (l.rule->line_skip_comments && line.comment) continue;
            std::smatch cm;
            if (!std::regex_search(line.text, cm, l.pattern)) continue;
            Match m;
            m.rule = l.rule;
            const auto at = static_cast<std::size_t>(cm.position(0));
            m.begin = line.source_offset(at);
            m.end = std::max(m.begin + 1, line.source_offset(at + static_cast<std::size_t>(cm.length(0))));
            m.captures["finding"] = cm.str(0);
            out.push_back(std::move(m));
        }
    }
    return out;
}

}  // namespace mpsport::lines
