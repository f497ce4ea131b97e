#include "analyzer/python/regions.hpp"

#include <string>

namespace mpsport::python {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.compare(0, p.size(), p) == 0; }

bool continues_previous(std::string_view line) {
    for (std::string_view kw : {"else", "elif", "except", "finally"})
        if (starts_with(line, kw) && (line.size() == kw.size() || line[kw.size()] == ':' || line[kw.size()] == ' ' || line[kw.size()] == '('))
            return true;
    return false;
}

}  // namespace

std::vector<Chunk> top_level_chunks(std::string_view text) { return block_chunks(text, 0, text.size(), 0, 0); }

std::size_t body_indent(std::string_view text, const Chunk& chunk) {
    std::size_t pos = text.find('\n', chunk.begin);
    while (pos != std::string_view::npos && pos + 1 < chunk.end) {
        const std::size_t line = pos + 1;
        std::size_t i = line;
        while (i < chunk.end && text[i] == ' ') ++i;
        if (i < chunk.end && text[i] != '\n' && text[i] != '#' && text[i] != '\r') return i - line;
        pos = text.find('\n', line);
    }
    return 0;
}

std::vector<Chunk> block_chunks(std::string_view text, std::size_t begin, std::size_t end, unsigned first_row, std::size_t indent) {
    std::vector<Chunk> chunks;
    char triple = 0;      // the quote of an open triple-quoted string
    int depth = 0;        // open brackets
    bool continued = false;  // previous line ended with a backslash
    bool decorator_pending = false;
    unsigned row = first_row;
    std::size_t pos = begin;
    while (pos < end) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos || eol > end) eol = end;
        const std::string_view full_line = text.substr(pos, eol - pos);
        const bool indented_enough = full_line.size() > indent && full_line.find_first_not_of(' ') == indent;
        const std::string_view line = indented_enough ? full_line.substr(indent) : std::string_view();
        const bool statement_start = triple == 0 && depth == 0 && !continued && indented_enough && line[0] != ' ' &&
                                     line[0] != '\t' && line[0] != '#' && line[0] != '\r';
        if (statement_start) {
            if (chunks.empty() || !(continues_previous(line) || decorator_pending)) {
                Chunk c;
                c.begin = pos;
                c.row = row;
                c.is_import = starts_with(line, "import ") || starts_with(line, "from ") || starts_with(line, "try:");
                chunks.push_back(c);
            }
            decorator_pending = line[0] == '@';
        }
        // Scan the line for strings, comments, brackets.
        continued = false;
        const std::string_view line_text = full_line;
        for (std::size_t i = 0; i < line_text.size(); ++i) {
            const char ch = line_text[i];
            if (triple) {
                if (ch == '\\') ++i;
                else if (ch == triple && line_text.compare(i, 3, std::string(3, triple)) == 0) {
                    triple = 0;
                    i += 2;
                }
                continue;
            }
            if (ch == '#') break;
            if (ch == '"' || ch == '\'') {
                if (line_text.compare(i, 3, std::string(3, ch)) == 0) {
                    triple = ch;
                    i += 2;
                    continue;
                }
                for (++i; i < line_text.size() && line_text[i] != ch; ++i)
                    if (line_text[i] == '\\') ++i;
                continue;
            }
            if (ch == '(' || ch == '[' || ch == '{') ++depth;
            else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0) --depth;
            else if (ch == '\\' && i + 1 == line_text.size()) continued = true;
            else if (ch == '\\' && i + 2 == line_text.size() && line_text[i + 1] == '\r') continued = true;
        }
        if (!chunks.empty()) chunks.back().end = eol < end ? eol + 1 : eol;
        pos = eol + 1;
        ++row;
    }
    return chunks;
}

}  // namespace mpsport::python
