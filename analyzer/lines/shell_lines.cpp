#include "analyzer/lines/shell_lines.hpp"

#include <algorithm>

namespace mpsport::lines {

std::size_t ShellCommand::source_offset(std::size_t offset) const {
    auto it = std::upper_bound(pieces.begin(), pieces.end(), offset, [](std::size_t o, const Piece& p) { return o < p.at; });
    --it;
    return it->source + (offset - it->at);
}

namespace {

bool is_comment(std::string_view line) {
    const std::size_t first = line.find_first_not_of(" \t");
    return first != std::string_view::npos && line[first] == '#';
}

}  // namespace

std::vector<ShellCommand> shell_commands(std::string_view text, bool join) {
    // the physical lines, without their newline or a '\r' before it
    std::vector<std::string_view> lines;
    for (std::size_t pos = 0; pos <= text.size();) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos) eol = text.size();
        std::string_view line = text.substr(pos, eol - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        pos = eol + 1;
    }
    std::vector<ShellCommand> out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        ShellCommand c;
        c.first_line = static_cast<int>(i) + 1;
        c.comment = is_comment(lines[i]);
        std::string_view line = lines[i];
        c.pieces.push_back({0, static_cast<std::size_t>(line.data() - text.data())});
        while (join && !c.comment && !line.empty() && line.back() == '\\' && i + 1 < lines.size() && !is_comment(lines[i + 1])) {
            c.text.append(line.substr(0, line.size() - 1)).push_back(' ');
            line = lines[++i];
            line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
            c.pieces.push_back({c.text.size(), static_cast<std::size_t>(line.data() - text.data())});
        }
        // a backslash before a comment line or the end continues nothing
        if (join && !c.comment && !line.empty() && line.back() == '\\') line.remove_suffix(1);
        c.text.append(line);
        c.last_line = static_cast<int>(i) + 1;
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace mpsport::lines
