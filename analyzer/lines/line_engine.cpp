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

namespace {

// One command of a shell script, Dockerfile or Makefile as the shell reads it: physical lines that end
// in a backslash continue on the next (mmpose's dist_train.sh writes `python -m
// torch.distributed.launch \` and `--nproc_per_node=$GPUS \` on lines of their own). The text joins
// them with one space where each backslash and the next line's indent were; `pieces` maps it back to
// the source. A comment line ends its command: its backslash continues nothing.
struct LogicalLine {
    std::string text;
    struct Piece {
        std::size_t at;      // offset in text
        std::size_t source;  // offset in the source
    };
    std::vector<Piece> pieces;
    bool comment = false;  // the first physical line is a comment

    std::size_t source_offset(std::size_t offset) const {
        auto it = std::upper_bound(pieces.begin(), pieces.end(), offset, [](std::size_t o, const Piece& p) { return o < p.at; });
        --it;  // pieces[0].at == 0
        return it->source + (offset - it->at);
    }
};

bool continues(FileKind kind) { return kind == FileKind::shell || kind == FileKind::dockerfile || kind == FileKind::makefile; }

std::vector<LogicalLine> logical_lines(FileKind kind, const SourceText& source) {
    std::vector<LogicalLine> out;
    const int count = static_cast<int>(source.line_count());
    for (int i = 1; i <= count; ++i) {
        LogicalLine l;
        std::string_view line = source.line(i);
        const std::size_t first = line.find_first_not_of(" \t");
        l.comment = first != std::string_view::npos && line[first] == '#';
        l.pieces.push_back({0, static_cast<std::size_t>(line.data() - source.text().data())});
        for (;;) {
            std::string_view body = line;
            while (!body.empty() && body.back() == '\r') body.remove_suffix(1);
            const bool more = continues(kind) && !l.comment && !body.empty() && body.back() == '\\' && i < count;
            if (!more) {
                l.text.append(line);
                break;
            }
            body.remove_suffix(1);
            l.text.append(body);
            l.text.push_back(' ');
            line = source.line(++i);
            const std::size_t indent = std::min(line.find_first_not_of(" \t"), line.size());
            line.remove_prefix(indent);
            l.pieces.push_back({l.text.size(), static_cast<std::size_t>(line.data() - source.text().data())});
        }
        out.push_back(std::move(l));
    }
    return out;
}

}  // namespace

std::vector<Match> LineEngine::analyze(FileKind kind, const SourceText& source) const {
    std::vector<Match> out;
    std::vector<LogicalLine> lines;
    for (const auto& l : m_rules) {
        if (std::find(l.kinds.begin(), l.kinds.end(), kind) == l.kinds.end()) continue;
        if (lines.empty()) lines = logical_lines(kind, source);
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
