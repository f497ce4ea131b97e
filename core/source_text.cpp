#include "core/source_text.hpp"

#include <cctype>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace mpsport {

std::optional<std::string> text_problem(std::string_view bytes) {
    if (std::memchr(bytes.data(), '\0', bytes.size()) != nullptr) return std::string("binary file (contains NUL bytes)");
    const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
    const std::size_t n = bytes.size();
    std::size_t i = 0;
    while (i < n) {
        // ASCII fast path, 8 bytes a step.
        if (i + 8 <= n) {
            std::uint64_t w;
            std::memcpy(&w, s + i, 8);
            if ((w & 0x8080808080808080ULL) == 0) {
                i += 8;
                continue;
            }
        }
        const unsigned char c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len;
        unsigned min;
        unsigned cp;
        if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F, min = 0x80;
        else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F, min = 0x800;
        else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07, min = 0x10000;
        else return "invalid UTF-8 at byte " + std::to_string(i) + " (re-save the file as UTF-8)";
        if (i + len > n) return "invalid UTF-8 at byte " + std::to_string(i) + " (truncated sequence)";
        for (std::size_t k = 1; k < len; ++k) {
            if ((s[i + k] & 0xC0) != 0x80) return "invalid UTF-8 at byte " + std::to_string(i) + " (re-save the file as UTF-8)";
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return "invalid UTF-8 at byte " + std::to_string(i) + " (overlong or surrogate)";
        i += len;
    }
    return std::nullopt;
}

bool is_binary(std::string_view bytes) { return std::memchr(bytes.data(), '\0', bytes.size()) != nullptr; }

std::string decode_utf8_lossy(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size() + 16);
    const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
    const std::size_t n = bytes.size();
    for (std::size_t i = 0; i < n;) {
        const unsigned char c = s[i];
        if (c < 0x80) {
            out.push_back(static_cast<char>(c));
            ++i;
            continue;
        }
        std::size_t len = 0;
        unsigned cp = 0, min = 0;
        if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F, min = 0x80;
        else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F, min = 0x800;
        else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07, min = 0x10000;
        bool ok = len > 0 && i + len <= n;
        for (std::size_t k = 1; ok && k < len; ++k) {
            if ((s[i + k] & 0xC0) != 0x80) ok = false;
            else cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (ok && (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))) ok = false;
        if (ok) {
            out.append(bytes.data() + i, len);
            i += len;
        } else {
            out += "\xEF\xBF\xBD";  // U+FFFD for this one byte; the next byte starts afresh
            ++i;
        }
    }
    return out;
}

SourceText::SourceText(std::string text) : m_text(std::move(text)) {
    m_line_starts.push_back(0);
    const char* base = m_text.data();
    const char* p = base;
    const char* end = base + m_text.size();
    while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)))) != nullptr) {
        ++p;
        m_line_starts.push_back(static_cast<std::size_t>(p - base));
    }
}

int SourceText::line_of(std::size_t offset) const {
    auto it = std::upper_bound(m_line_starts.begin(), m_line_starts.end(), offset);
    return static_cast<int>(it - m_line_starts.begin());
}

std::string_view SourceText::line(int n) const {
    if (n < 1 || static_cast<std::size_t>(n) > m_line_starts.size()) return {};
    const std::size_t begin = m_line_starts[static_cast<std::size_t>(n - 1)];
    std::size_t end = static_cast<std::size_t>(n) < m_line_starts.size() ? m_line_starts[static_cast<std::size_t>(n)] : m_text.size();
    std::string_view v(m_text.data() + begin, end - begin);
    while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.remove_suffix(1);
    return v;
}

std::string SourceText::snippet(std::size_t begin, std::size_t /*end*/) const {
    std::string_view l = line(line_of(begin));
    while (!l.empty() && (l.front() == ' ' || l.front() == '\t')) l.remove_prefix(1);
    while (!l.empty() && (l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
    if (l.size() > 200) return std::string(l.substr(0, 197)) + "...";
    return std::string(l);
}

namespace {

// Parses "[a, b]" after a directive; empty set when there is no list.
std::set<std::string> parse_id_list(std::string_view rest) {
    std::set<std::string> ids;
    if (rest.empty() || rest.front() != '[') return ids;
    const std::size_t close = rest.find(']');
    std::string_view list = rest.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1);
    std::size_t pos = 0;
    while (pos < list.size()) {
        std::size_t comma = list.find(',', pos);
        if (comma == std::string_view::npos) comma = list.size();
        std::string_view id = list.substr(pos, comma - pos);
        while (!id.empty() && id.front() == ' ') id.remove_prefix(1);
        while (!id.empty() && id.back() == ' ') id.remove_suffix(1);
        if (!id.empty()) ids.insert(std::string(id));
        pos = comma + 1;
    }
    return ids;
}

bool is_comment_or_blank(std::string_view line) {
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    return line.empty() || line.front() == '#' || line.rfind("//", 0) == 0;
}

}  // namespace

Suppressions Suppressions::parse(const SourceText& source) {
    Suppressions s;
    const std::string& text = source.text();
    constexpr std::string_view marker = "mpsport:";
    std::size_t pos = 0;
    while ((pos = text.find(marker, pos)) != std::string::npos) {
        const int line_no = source.line_of(pos);
        std::string_view rest(text.data() + pos + marker.size(), text.size() - pos - marker.size());
        pos += marker.size();
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        if (rest.rfind("ignore-file", 0) == 0) {
            bool at_top = true;
            for (int l = 1; l < line_no; ++l)
                if (!is_comment_or_blank(source.line(l))) at_top = false;
            if (at_top) {
                auto ids = parse_id_list(rest.substr(std::strlen("ignore-file")));
                if (!s.m_file) s.m_file.emplace();
                if (ids.empty()) s.m_file->clear(), s.m_file->insert("*");
                else s.m_file->insert(ids.begin(), ids.end());
            }
        } else if (rest.rfind("ignore", 0) == 0) {
            auto ids = parse_id_list(rest.substr(std::strlen("ignore")));
            auto& set = s.m_lines[line_no];
            if (ids.empty()) set.insert("*");
            else set.insert(ids.begin(), ids.end());
        }
    }
    return s;
}

bool Suppressions::covers(const std::set<std::string>& ids, std::string_view rule_id) {
    return ids.count("*") || ids.count(std::string(rule_id));
}

bool Suppressions::suppressed(std::string_view rule_id, int line) const {
    if (m_file && covers(*m_file, rule_id)) return true;
    auto it = m_lines.find(line);
    return it != m_lines.end() && covers(it->second, rule_id);
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool contains_word(std::string_view text, std::string_view word) {
    if (word.empty()) return false;
    for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1))
        if ((at == 0 || !is_word_char(text[at - 1])) && (at + word.size() >= text.size() || !is_word_char(text[at + word.size()])))
            return true;
    return false;
}

}  // namespace mpsport
