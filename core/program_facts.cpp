#include "core/program_facts.hpp"

#include <algorithm>

#include "core/hash.hpp"

namespace mpsport {

std::uint32_t name_hash(std::string_view name) { return static_cast<std::uint32_t>(fnv1a64(name)); }

std::vector<std::uint32_t> attribute_names_of(std::string_view text) {
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

}  // namespace mpsport
