// A file's text with what every engine needs: validation, line lookup, snippets, suppressions.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mpsport {

// Why the bytes cannot be analysed as text (binary, bad UTF-8), or nullopt when they can.
std::optional<std::string> text_problem(std::string_view bytes);
// True when the bytes hold NUL: a binary file, never read as text.
bool is_binary(std::string_view bytes);
// The bytes with every invalid UTF-8 sequence replaced by U+FFFD (as Python's errors="replace"):
// newlines stay where they were, so line numbers of what follows are exact.
std::string decode_utf8_lossy(std::string_view bytes);
// A letter, a digit or an underscore: what a name is made of in Python, C and shell.
bool is_word_char(char c);
// Whether `word` occurs in `text` as a whole word: no word character on either side ("mac" is not in
// "machine").
bool contains_word(std::string_view text, std::string_view word);

class SourceText {
public:
    explicit SourceText(std::string text);

    const std::string& text() const { return m_text; }
    std::size_t line_count() const { return m_line_starts.size(); }
    // 1-based line of a byte offset.
    int line_of(std::size_t offset) const;
    std::string_view line(int line_number) const;  // without the newline
    // The first line of [begin, end), trimmed, at most 200 bytes.
    std::string snippet(std::size_t begin, std::size_t end) const;

private:
    std::string m_text;
    std::vector<std::size_t> m_line_starts;
};

// `# mpsport: ignore[rule-a, rule-b]` on a line (or `// ...`), `# mpsport: ignore-file[...]` in the
// comment block at the top of a file. An empty list means every rule.
class Suppressions {
public:
    static Suppressions parse(const SourceText& source);
    bool suppressed(std::string_view rule_id, int line) const;

private:
    static bool covers(const std::set<std::string>& ids, std::string_view rule_id);
    std::map<int, std::set<std::string>> m_lines;
    std::optional<std::set<std::string>> m_file;
};

}  // namespace mpsport
