#include "core/program_facts.hpp"

#include <algorithm>

#include "core/hash.hpp"

namespace mpsport {

std::uint32_t name_hash(std::string_view name) { return static_cast<std::uint32_t>(fnv1a64(name)); }

std::size_t python_comment_start(std::string_view line) {
    char quote = 0;  // the quote of the one-line string we are in, 0 outside
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quote) {
            if (c == '\\') ++i;
            else if (c == quote) quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '#') {
            return i;
        }
    }
    return std::string_view::npos;
}

namespace {

// The text with each line's `#` comment blanked (python_comment_start): a call in a comment
// (Step-Audio's `# self.capture_inference()`) is no call. Offsets stay as they were.
std::string without_comments(std::string_view text) {
    std::string out(text);
    for (std::size_t start = 0; start < out.size();) {
        std::size_t end = out.find('\n', start);
        if (end == std::string::npos) end = out.size();
        if (const std::size_t hash = python_comment_start(std::string_view(out).substr(start, end - start)); hash != std::string_view::npos)
            std::fill(out.begin() + static_cast<std::ptrdiff_t>(start + hash), out.begin() + static_cast<std::ptrdiff_t>(end), ' ');
        start = end + 1;
    }
    return out;
}

}  // namespace

std::vector<std::uint32_t> attribute_names_of(std::string_view source) {
    const std::string code = without_comments(source);
    const std::string_view text = code;
    auto word = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; };
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c != '.' && c != '\'' && c != '"') continue;
        std::size_t end = i + 1;
        while (end < text.size() && word(text[end])) ++end;
        if (end == i + 1 || digit(text[i + 1])) continue;  // `.5`, `..`, `""`
        if (c != '.' && (end == text.size() || text[end] != c)) continue;  // a string that is more than one name
        out.push_back(name_hash(text.substr(i + 1, end - i - 1)));
        i = end - 1;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

int module_call_line_of(std::string_view text, const std::vector<std::string>& setup_calls) {
    static const std::vector<std::string_view> keywords = {"if", "elif", "while", "for", "with", "assert", "return", "not", "and", "or",
                                                           "del", "raise", "yield", "await", "lambda", "def", "class", "import", "from"};
    auto word = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; };
    static const std::string_view kTriple[] = {"\"\"\"", "'''"};
    std::string_view open;  // the triple quote of a string left open by an earlier line
    int line = 0;
    for (std::size_t at = 0; at < text.size();) {
        ++line;
        std::size_t eol = text.find('\n', at);
        if (eol == std::string_view::npos) eol = text.size();
        const std::string_view row = text.substr(at, eol - at);
        at = eol + 1;
        const bool was_inside = !open.empty();
        // An odd count of one kind of triple quote opens or closes a string that spans lines.
        for (std::string_view q : kTriple) {
            if (!open.empty() && open != q) continue;
            int n = 0;
            for (std::size_t i = row.find(q); i != std::string_view::npos; i = row.find(q, i + 3)) ++n;
            if (n % 2 == 1) open = open.empty() ? q : std::string_view();
        }
        if (was_inside || row.empty() || !word(row[0]) || (row[0] >= '0' && row[0] <= '9')) continue;
        // a loop or a context at module level: a script's steps (`for step in range(20):`)
        for (std::string_view loop : {"for ", "while ", "with "})
            if (row.substr(0, loop.size()) == loop) return line;
        // a dotted callee written from column 0, then `(`: `generate(`, `demo.queue().launch(`
        std::size_t end = 0;
        while (end < row.size() && (word(row[end]) || row[end] == '.')) ++end;
        if (end == row.size() || row[end] != '(') continue;
        const std::string_view callee = row.substr(0, end);
        const std::string_view head = callee.substr(0, callee.find('.'));
        if (std::find(keywords.begin(), keywords.end(), head) != keywords.end()) continue;
        if (std::any_of(setup_calls.begin(), setup_calls.end(), [&](const std::string& s) { return callee.substr(0, s.size()) == s; })) continue;
        return line;
    }
    return 0;
}

}  // namespace mpsport
