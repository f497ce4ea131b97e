// environment.yml (conda dependencies, channels, the pip: section) with yaml-cpp, and setup.cfg's
// install_requires / setup_requires / extras_require.
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <regex>
#include <stdexcept>

#include "analyzer/manifests/dependencies.hpp"

namespace mpsport::manifests {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

Span span_of(const YAML::Node& node, std::size_t length) {
    const std::size_t begin = static_cast<std::size_t>(std::max(0, node.Mark().pos));
    return {begin, begin + std::max<std::size_t>(1, length)};
}

// "pytorch=2.1.0=py3.10_cuda11.8_cudnn8.7.0_0", "nvidia::cuda-toolkit", "cudatoolkit>=11.3"
Dependency conda_dependency(const std::string& spec, const YAML::Node& node) {
    std::string_view s = trim(spec);
    if (const std::size_t colons = s.find("::"); colons != std::string_view::npos) s.remove_prefix(colons + 2);
    std::size_t n = 0;
    while (n < s.size() && (std::isalnum(static_cast<unsigned char>(s[n])) || s[n] == '-' || s[n] == '_' || s[n] == '.')) ++n;
    Dependency d;
    d.name = std::string(s.substr(0, n));
    d.version = std::string(trim(s.substr(n)));
    d.span = span_of(node, spec.size());
    static const std::regex cuda_build(R"((cuda[0-9]*(\.[0-9]+)?|cu[0-9]{2,3}))");
    // Only the build string (after the second '=' or a ' ') names a CUDA build; "cuda" in a version cannot.
    const std::size_t build = d.version.find_first_of("= ", d.version.find('=') == 0 ? 1 : 0);
    std::smatch m;
    const std::string build_part = build == std::string::npos ? std::string() : d.version.substr(build);
    if (std::regex_search(build_part, m, cuda_build)) d.cuda_build = m.str(1);
    return d;
}

void pip_section(const YAML::Node& list, ManifestFacts& out) {
    for (const auto& item : list) {
        if (!item.IsScalar()) continue;
        const std::string text = item.as<std::string>();
        const std::string_view t = trim(text);
        if (t.empty()) continue;
        if (t.front() == '-') {
            // The same options as a requirements file.
            const SourceText one(text);
            ManifestFacts sub = read_requirements(one);
            for (auto& i : sub.indexes) out.indexes.push_back({i.url, "", false, i.beside_pypi, span_of(item, text.size())});
            for (auto& inc : sub.includes) out.includes.push_back({inc.target, inc.constraint, span_of(item, text.size())});
            for (auto& d : sub.dependencies) d.span = span_of(item, text.size()), out.dependencies.push_back(std::move(d));
            continue;
        }
        std::optional<Requirement> r;
        try {
            r = parse_requirement(t);
        } catch (const std::runtime_error& e) {
            throw std::runtime_error("invalid pip requirement at line " + std::to_string(item.Mark().line + 1) + ": " + e.what());
        }
        if (!r) continue;
        out.dependencies.push_back(make_dependency(*r, Scope::required, "", span_of(item, text.size())));
    }
}

}  // namespace

ManifestFacts read_conda_env(const SourceText& source) {
    YAML::Node doc;
    try {
        doc = YAML::Load(source.text());
    } catch (const YAML::Exception& e) {
        throw std::runtime_error("invalid YAML at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    ManifestFacts out;
    if (!doc.IsMap()) return out;
    if (const YAML::Node channels = doc["channels"]; channels && channels.IsSequence()) {
        for (const auto& c : channels) {
            if (!c.IsScalar()) continue;
            const std::string name = c.as<std::string>();
            out.channels.push_back(name);
            if (name == "nvidia" || name.rfind("nvidia/", 0) == 0 || name.find("conda.anaconda.org/nvidia") != std::string::npos)
                out.nvidia_channels.push_back(span_of(c, name.size()));
        }
    }
    const YAML::Node deps = doc["dependencies"];
    if (!deps || !deps.IsSequence()) return out;
    for (const auto& item : deps) {
        if (item.IsScalar()) {
            out.dependencies.push_back(conda_dependency(item.as<std::string>(), item));
        } else if (item.IsMap() && item["pip"] && item["pip"].IsSequence()) {
            pip_section(item["pip"], out);
        }
    }
    return out;
}

ManifestFacts read_setup_cfg(const SourceText& source) {
    // install_requires / extras_require values are a key's value plus its indented continuation lines.
    ManifestFacts out;
    std::string section;
    Scope scope = Scope::required;
    std::string group;
    bool in_list = false;
    for (int i = 1; i <= static_cast<int>(source.line_count()); ++i) {
        const std::string_view line = source.line(i);
        const std::size_t begin = static_cast<std::size_t>(line.data() - source.text().data());
        if (!line.empty() && line.front() == '[') {
            section = std::string(line.substr(1, line.find(']') - 1));
            in_list = false;
            continue;
        }
        const bool indented = !line.empty() && (line.front() == ' ' || line.front() == '\t');
        std::string_view value = line;
        if (!indented) {
            const std::size_t eq = line.find_first_of("=:");
            if (eq == std::string_view::npos) {
                in_list = false;
                continue;
            }
            const std::string key(trim(line.substr(0, eq)));
            in_list = true;
            if (section == "options" && key == "install_requires") scope = Scope::required, group.clear();
            else if (section == "options" && key == "setup_requires") scope = Scope::build, group.clear();
            else if (section == "options.extras_require") {
                scope = Scope::optional, group = key;
                out.groups.push_back({key, Scope::optional, {begin, begin + key.size()}});
            } else in_list = false;
            value = line.substr(eq + 1);
        }
        if (!in_list) continue;
        value = trim(value);
        if (value.empty() || value.front() == '#') continue;
        std::optional<Requirement> r;
        try {
            r = parse_requirement(value.substr(0, value.find(" #")));
        } catch (const std::runtime_error& e) {
            throw std::runtime_error("invalid requirement at line " + std::to_string(i) + ": " + e.what());
        }
        if (!r) continue;
        out.dependencies.push_back(make_dependency(*r, scope, group, {begin, begin + line.size()}));
    }
    return out;
}

}  // namespace mpsport::manifests
