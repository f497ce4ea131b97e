#include "analyzer/manifests/pep508.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <stdexcept>

namespace mpsport::manifests {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }

// Splits on a keyword (" and ", " or ") outside parentheses.
std::vector<std::string_view> split_top(std::string_view s, std::string_view word) {
    std::vector<std::string_view> parts;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '(') ++depth;
        else if (s[i] == ')') --depth;
        else if (depth == 0 && s.compare(i, word.size(), word) == 0) {
            parts.push_back(trim(s.substr(start, i - start)));
            i += word.size() - 1;
            start = i + 1;
        }
    }
    parts.push_back(trim(s.substr(start)));
    return parts;
}

std::string unquote(std::string_view s) {
    s = trim(s);
    if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
    return std::string(s);
}

// One comparison: `sys_platform == "linux"` (either side may be the variable).
bool clause_excludes_macos(std::string_view clause) {
    static const std::regex cmp(R"(^\s*([A-Za-z_]+|"[^"]*"|'[^']*')\s*(===|==|!=|not in|in)\s*(.+?)\s*$)");
    std::cmatch m;
    if (!std::regex_match(clause.begin(), clause.end(), m, cmp)) return false;
    const std::string lhs = m[1].str();
    const std::string op = m[2].str();
    const bool literal_first = lhs.front() == '"' || lhs.front() == '\'';
    const std::string var = literal_first ? std::string(trim(m[3].str())) : lhs;
    std::string value = unquote(literal_first ? lhs : m[3].str());
    auto lower = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return s;
    };
    value = lower(value);
    // What a Mac reports: sys_platform darwin, platform_system Darwin, os_name posix, machine arm64 / x86_64.
    if (var == "sys_platform" || var == "platform_system") {
        const bool mac = value == "darwin";
        if (op == "==" || op == "===") return !mac;
        if (op == "!=") return mac;
        if (op == "in") return value.find("darwin") == std::string::npos && var == "sys_platform" && value.find("linux") != std::string::npos;
        if (op == "not in") return value.find("darwin") != std::string::npos;
    }
    if (var == "platform_machine") {
        // x86_64 still matches an Intel Mac, which has no MPS either; arm64 is the only Mac with MPS.
        const bool apple_silicon = value == "arm64" || value == "aarch64";
        if (op == "==" || op == "===") return !apple_silicon;
        if (op == "!=") return apple_silicon;
    }
    return false;
}

}  // namespace

namespace {

std::vector<long> version_parts(std::string_view v) {
    std::vector<long> parts;
    long n = -1;
    for (char c : v) {
        if (std::isdigit(static_cast<unsigned char>(c))) n = (n < 0 ? 0 : n * 10) + (c - '0');
        else if (c == '.') parts.push_back(std::max(n, 0L)), n = -1;
        else break;  // a pre/post/local suffix: compare the release numbers only
    }
    if (n >= 0) parts.push_back(n);
    while (!parts.empty() && parts.back() == 0) parts.pop_back();
    return parts;
}

}  // namespace

bool allows_only_below(std::string_view specifier, std::string_view version) {
    const auto limit = version_parts(version);
    for (std::size_t pos = 0; pos <= specifier.size();) {
        std::size_t comma = specifier.find(',', pos);
        if (comma == std::string_view::npos) comma = specifier.size();
        const std::string_view clause = trim(specifier.substr(pos, comma - pos));
        pos = comma + 1;
        for (std::string_view op : {"===", "==", "<=", "<"}) {
            if (clause.compare(0, op.size(), op) != 0) continue;
            std::string_view v = trim(clause.substr(op.size()));
            if (v.find('*') != std::string_view::npos) break;
            const auto parts = version_parts(v);
            if (parts.empty() && v.empty()) break;
            if (op == "<" ? parts <= limit : parts < limit) return true;
            break;
        }
    }
    return false;
}

std::string normalise_name(std::string_view name) {
    std::string out;
    for (char c : name) {
        const bool sep = c == '-' || c == '_' || c == '.';
        if (sep) {
            if (out.empty() || out.back() != '-') out.push_back('-');
        } else {
            out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        }
    }
    return out;
}

std::optional<Requirement> parse_requirement(std::string_view text) {
    text = trim(text);
    if (text.empty()) return std::nullopt;
    Requirement r;
    std::size_t i = 0;
    while (i < text.size() && name_char(text[i])) ++i;
    r.name = std::string(text.substr(0, i));
    if (r.name.empty()) throw std::runtime_error("'" + std::string(text) + "' does not start with a package name");
    std::string_view rest = trim(text.substr(i));
    if (!rest.empty() && rest.front() == '[') {
        const std::size_t close = rest.find(']');
        if (close == std::string_view::npos) throw std::runtime_error("unbalanced '[' in '" + std::string(text) + "'");
        std::string_view list = rest.substr(1, close - 1);
        if (list.find('[') != std::string_view::npos) throw std::runtime_error("unbalanced '[' in '" + std::string(text) + "'");
        for (std::size_t pos = 0; pos <= list.size();) {
            std::size_t comma = list.find(',', pos);
            if (comma == std::string_view::npos) comma = list.size();
            const std::string_view e = trim(list.substr(pos, comma - pos));
            if (!e.empty()) r.extras.emplace_back(e);
            pos = comma + 1;
        }
        rest = trim(rest.substr(close + 1));
    } else if (rest.find(']') != std::string_view::npos && rest.find(';') > rest.find(']')) {
        throw std::runtime_error("unbalanced ']' in '" + std::string(text) + "'");
    }
    if (!rest.empty() && rest.front() == '@') {
        rest = trim(rest.substr(1));
        // A URL ends at whitespace; a marker follows as " ;".
        std::size_t end = 0;
        while (end < rest.size() && !std::isspace(static_cast<unsigned char>(rest[end]))) ++end;
        r.url = std::string(rest.substr(0, end));
        rest = trim(rest.substr(end));
    }
    const std::size_t semi = rest.find(';');
    std::string_view version = trim(rest.substr(0, semi));
    if (!version.empty() && version.front() == '(' && version.back() == ')') version = trim(version.substr(1, version.size() - 2));
    r.version = std::string(version);
    if (semi != std::string_view::npos) r.marker = std::string(trim(rest.substr(semi + 1)));
    if (std::count(r.marker.begin(), r.marker.end(), '(') != std::count(r.marker.begin(), r.marker.end(), ')'))
        throw std::runtime_error("unbalanced parentheses in the marker of '" + std::string(text) + "'");
    return r;
}

bool marker_excludes_macos(std::string_view marker) {
    marker = trim(marker);
    while (marker.size() >= 2 && marker.front() == '(' && marker.back() == ')') marker = trim(marker.substr(1, marker.size() - 2));
    if (marker.empty()) return false;
    const auto alternatives = split_top(marker, " or ");
    if (alternatives.size() > 1)
        return std::all_of(alternatives.begin(), alternatives.end(), [](std::string_view a) { return marker_excludes_macos(a); });
    const auto clauses = split_top(marker, " and ");
    if (clauses.size() > 1)
        return std::any_of(clauses.begin(), clauses.end(), [](std::string_view c) { return marker_excludes_macos(c); });
    return clause_excludes_macos(marker);
}

std::string cuda_build_tag(std::string_view s) {
    static const std::regex tag(R"((\+|%2[Bb]|/whl/(nightly/)?|/wheels/(repo/)?|torch-[0-9.]+\+)(cu[0-9]{2,3})\b)");
    std::cmatch m;
    if (std::regex_search(s.begin(), s.end(), m, tag)) return m[4].str();
    return {};
}

}  // namespace mpsport::manifests
