// requirements*.txt and constraints files, the format pip reads: one requirement or option per
// logical line, `\` continuations, `#` comments (at the start or after whitespace).
#include <cctype>
#include <stdexcept>

#include "analyzer/manifests/dependencies.hpp"

namespace mpsport::manifests {
namespace {

struct LogicalLine {
    std::string text;  // continuation lines joined, comment removed
    Span span;
    int line = 0;  // first physical line
};

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::string_view strip_comment(std::string_view line) {
    for (std::size_t i = 0; i < line.size(); ++i)
        if (line[i] == '#' && (i == 0 || std::isspace(static_cast<unsigned char>(line[i - 1])))) return line.substr(0, i);
    return line;
}

std::vector<LogicalLine> logical_lines(const SourceText& source) {
    std::vector<LogicalLine> out;
    LogicalLine current;
    bool open = false;
    for (int i = 1; i <= static_cast<int>(source.line_count()); ++i) {
        const std::string_view raw = source.line(i);
        const std::size_t begin = static_cast<std::size_t>(raw.data() - source.text().data());
        std::string_view body = strip_comment(raw);
        const bool continues = !trim(body).empty() && trim(body).back() == '\\';
        if (continues) body = trim(body).substr(0, trim(body).size() - 1);
        if (!open) current = LogicalLine{"", {begin, begin + raw.size()}, i};
        current.text += std::string(body);
        current.text += ' ';
        current.span.end = begin + raw.size();
        open = continues;
        if (!open && !trim(current.text).empty()) out.push_back(current);
    }
    if (open && !trim(current.text).empty()) out.push_back(current);
    return out;
}

// "--index-url=URL", "--index-url URL", "-iURL": the value after the option, or nullopt.
std::optional<std::string> option_value(std::string_view text, std::initializer_list<std::string_view> names) {
    for (std::string_view name : names) {
        if (text.compare(0, name.size(), name) != 0) continue;
        std::string_view rest = text.substr(name.size());
        const bool long_opt = name.size() > 2;
        if (long_opt && !rest.empty() && rest.front() != '=' && !std::isspace(static_cast<unsigned char>(rest.front()))) continue;
        if (!rest.empty() && rest.front() == '=') rest.remove_prefix(1);
        rest = trim(rest);
        std::size_t end = 0;
        while (end < rest.size() && !std::isspace(static_cast<unsigned char>(rest[end]))) ++end;
        return std::string(rest.substr(0, end));
    }
    return std::nullopt;
}

// Per-requirement options (--hash=..., --config-settings ...) end the requirement.
std::string_view without_requirement_options(std::string_view text) {
    for (std::size_t i = 0; i + 2 < text.size(); ++i)
        if (text[i] == '-' && text[i + 1] == '-' && (i == 0 || std::isspace(static_cast<unsigned char>(text[i - 1]))))
            return trim(text.substr(0, i));
    return trim(text);
}

void add_requirement(const Requirement& r, const LogicalLine& l, ManifestFacts& out) {
    out.dependencies.push_back(make_dependency(r, Scope::required, "", l.span));
}

}  // namespace

ManifestFacts read_requirements(const SourceText& source) {
    ManifestFacts out;
    for (const LogicalLine& l : logical_lines(source)) {
        const std::string_view text = trim(l.text);
        try {
            if (auto v = option_value(text, {"--requirement", "-r"})) {
                out.includes.push_back({*v, false, l.span});
            } else if (auto c = option_value(text, {"--constraint", "-c"})) {
                out.includes.push_back({*c, true, l.span});
            } else if (auto u = option_value(text, {"--index-url", "-i"})) {
                out.indexes.push_back({*u, "", false, false, l.span});
            } else if (auto x = option_value(text, {"--extra-index-url", "--find-links", "-f"})) {
                out.indexes.push_back({*x, "", false, true, l.span});
            } else if (auto e = option_value(text, {"--editable", "-e"})) {
                // A VCS or local editable: the name is the #egg= fragment, when there is one.
                const std::size_t egg = e->find("#egg=");
                if (egg != std::string::npos)
                    if (auto r = parse_requirement(e->substr(egg + 5))) add_requirement(*r, l, out);
            } else if (text.front() == '-') {
                continue;  // --pre, --no-binary, --trusted-host, ...: no package named
            } else if (text.find("://") != std::string_view::npos && text.find(" @ ") == std::string_view::npos &&
                       text.find('@') == std::string_view::npos) {
                // A bare URL or path to a wheel: its file name carries the build tag, not a clean name.
                Dependency d;
                d.url = std::string(without_requirement_options(text));
                d.name = d.url.substr(d.url.rfind('/') + 1);
                d.name = d.name.substr(0, d.name.find('-'));
                d.cuda_build = cuda_build_tag(d.url);
                d.span = l.span;
                out.dependencies.push_back(std::move(d));
            } else if (auto r = parse_requirement(without_requirement_options(text))) {
                add_requirement(*r, l, out);
            }
        } catch (const std::runtime_error& e) {
            throw std::runtime_error("invalid requirement at line " + std::to_string(l.line) + ": " + e.what());
        }
    }
    return out;
}

}  // namespace mpsport::manifests
