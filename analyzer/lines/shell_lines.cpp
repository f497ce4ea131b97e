#include "analyzer/lines/shell_lines.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

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

namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `$NAME` and `${NAME}` in `token`, each passed to `value(name, written)` for what replaces it.
template <class F>
std::string replace_variables(const std::string& token, F&& value) {
    std::string out;
    for (std::size_t i = 0; i < token.size(); ++i) {
        if (token[i] != '$' || i + 1 == token.size()) {
            out += token[i];
            continue;
        }
        std::size_t begin = i + 1, end = begin;
        const bool braced = token[begin] == '{';
        if (braced) {
            end = token.find('}', begin);
            if (end == std::string::npos) {
                out += token.substr(i);
                break;
            }
            ++begin;
        } else {
            while (end < token.size() && is_name_char(token[end])) ++end;
        }
        const std::string name = token.substr(begin, end - begin);
        const std::string written = token.substr(i, end + (braced ? 1 : 0) - i);
        if (name.empty() || !std::all_of(name.begin(), name.end(), is_name_char)) {
            out += written;
        } else {
            out += value(name, written);
        }
        i = end + (braced ? 1 : 0) - 1;
    }
    return out;
}

}  // namespace

std::vector<std::string> tokens_of(std::string_view command) {
    std::string cleaned;
    for (char c : command) cleaned.push_back(c == '"' || c == '\'' || c == ',' || c == '[' || c == ']' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' ? ' ' : c);
    std::istringstream in(cleaned);
    std::vector<std::string> out;
    for (std::string t; in >> t;) out.push_back(t);
    return out;
}

std::string expand(const std::string& text, const ShellVariables& variables) {
    if (text.find('$') == std::string::npos) return text;
    return replace_variables(text, [&](const std::string& name, const std::string& written) {
        const auto it = variables.find(name);
        return it == variables.end() ? written : it->second;
    });
}

std::string as_placeholders(const std::string& token) {
    return replace_variables(token, [](const std::string& name, const std::string&) { return "{" + name + "}"; });
}

void assign(const std::vector<std::string>& tokens, ShellVariables& variables) {
    for (const std::string& t : tokens) {
        if (t == "export") continue;
        const auto eq = t.find('=');
        if (eq == std::string::npos || eq == 0 || !std::all_of(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(eq), is_name_char) ||
            std::isdigit(static_cast<unsigned char>(t.front())))
            return;
        variables[t.substr(0, eq)] = t.substr(eq + 1);
    }
}

}  // namespace mpsport::lines
