#include "analyzer/lines/line_engine.hpp"

#include <algorithm>
#include <map>
#include <optional>

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
        m_rules.push_back(std::move(l));
    }
}

void LineEngine::prepare() const {
    std::call_once(m_prepared, [this] {
        for (LineRule& l : m_rules) {
            try {
                l.pattern = std::regex(l.rule->line_pattern, std::regex::ECMAScript | std::regex::optimize);
            } catch (const std::regex_error& e) {
                throw RuleError(l.rule->source.generic_string() + ": lines.pattern: " + e.what());
            }
        }
    });
}

bool LineEngine::reads(FileKind kind) const {
    return std::any_of(m_rules.begin(), m_rules.end(),
                       [&](const LineRule& l) { return std::find(l.kinds.begin(), l.kinds.end(), kind) != l.kinds.end(); });
}

namespace {

// Each command of a shell script with the variables the script sets once (`NNODE=1`, `export
// GPUS=8`) replaced by their values, as the shell runs it; empty for other files. A variable set
// more than once (in both arms of an if, in a loop) stays as written.
std::vector<std::string> with_script_variables(FileKind kind, const std::vector<ShellCommand>& commands) {
    if (kind != FileKind::shell) return {};
    std::vector<std::vector<std::string>> words(commands.size());
    std::map<std::string, int> times_set;
    for (std::size_t i = 0; i < commands.size(); ++i) {
        if (commands[i].comment) continue;
        words[i] = tokens_of(commands[i].text);
        ShellVariables set_here;
        assign(words[i], set_here);
        for (const auto& [name, value] : set_here) ++times_set[name];
    }
    std::vector<std::string> out;
    ShellVariables variables;
    for (std::size_t i = 0; i < commands.size(); ++i) {
        const ShellCommand& c = commands[i];
        out.push_back(c.comment ? c.text : expand(c.text, variables));
        if (c.comment) continue;
        auto& tokens = words[i];
        for (auto& t : tokens) t = expand(t, variables);
        ShellVariables set_here;
        assign(tokens, set_here);
        for (auto& [name, value] : set_here)
            if (times_set[name] == 1) variables[name] = std::move(value);
    }
    return out;
}

}  // namespace

std::vector<Match> LineEngine::analyze(FileKind kind, const SourceText& source) const {
    prepare();
    std::vector<Match> out;
    std::vector<ShellCommand> lines;
    std::optional<std::vector<std::string>> expanded;
    for (const auto& l : m_rules) {
        if (std::find(l.kinds.begin(), l.kinds.end(), kind) == l.kinds.end()) continue;
        // A shell script, Dockerfile or Makefile is read by command (shell_lines.hpp), any other file by line.
        if (lines.empty()) lines = shell_commands(source.text(), kind == FileKind::shell || kind == FileKind::dockerfile || kind == FileKind::makefile);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const ShellCommand& line = lines[i];
            if (l.rule->line_skip_comments && line.comment) continue;
            std::smatch cm;
            if (!std::regex_search(line.text, cm, l.pattern)) continue;
            // `--nnodes=${NNODE}` after `NNODE=1`: what the shell runs decides (InternVideo's srun
            // scripts). The finding stays where the script writes it.
            if (!expanded) expanded = with_script_variables(kind, lines);
            if (!expanded->empty() && (*expanded)[i] != line.text && !std::regex_search((*expanded)[i], l.pattern)) continue;
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
