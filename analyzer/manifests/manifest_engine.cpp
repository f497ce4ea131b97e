#include "analyzer/manifests/manifest_engine.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <stdexcept>
#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

namespace mpsport::manifests {
namespace {

std::size_t offset_of(const SourceText& source, int line, int column) {
    const std::string_view l = source.line(line);
    if (l.data() == nullptr) return source.text().size();
    const std::size_t base = static_cast<std::size_t>(l.data() - source.text().data());
    return base + static_cast<std::size_t>(std::max(0, std::min<int>(column - 1, static_cast<int>(l.size()))));
}

// The distribution name at the start of a PEP 508 requirement or a conda spec ("pkg>=1", "ch::pkg=1").
std::string requirement_name(std::string_view spec) {
    while (!spec.empty() && (spec.front() == ' ' || spec.front() == '\t')) spec.remove_prefix(1);
    if (auto colons = spec.find("::"); colons != std::string_view::npos) spec.remove_prefix(colons + 2);
    std::size_t n = 0;
    while (n < spec.size() && (std::isalnum(static_cast<unsigned char>(spec[n])) || spec[n] == '-' || spec[n] == '_' || spec[n] == '.'))
        ++n;
    return std::string(spec.substr(0, n));
}

void requirements(const SourceText& source, std::vector<Dependency>& out) {
    for (int i = 1; i <= static_cast<int>(source.line_count()); ++i) {
        std::string_view line = source.line(i);
        const std::size_t begin = static_cast<std::size_t>(line.data() - source.text().data());
        std::string_view body = line.substr(0, line.find(" #"));
        while (!body.empty() && (body.front() == ' ' || body.front() == '\t')) body.remove_prefix(1);
        if (body.empty() || body.front() == '#') continue;
        std::string name;
        if (body.front() == '-') {
            // -e git+https://...#egg=name ; other options (-r, --index-url) name no package
            const std::size_t egg = body.find("#egg=");
            if (egg == std::string_view::npos) continue;
            name = requirement_name(body.substr(egg + 5));
        } else if (auto at = body.find(" @ "); at != std::string_view::npos) {
            name = requirement_name(body.substr(0, at));
        } else {
            name = requirement_name(body);
        }
        if (!name.empty()) out.push_back({name, begin, begin + line.size()});
    }
}

void pyproject(const SourceText& source, std::vector<Dependency>& out) {
    toml::table doc;
    try {
        doc = toml::parse(source.text());
    } catch (const toml::parse_error& e) {
        throw std::runtime_error("invalid TOML at line " + std::to_string(e.source().begin.line) + ": " +
                                 std::string(e.description()));
    }
    auto add_array = [&](const toml::node* node) {
        const toml::array* arr = node ? node->as_array() : nullptr;
        if (!arr) return;
        for (const auto& item : *arr) {
            const auto* s = item.as_string();
            if (!s) continue;
            const auto& region = item.source();
            const std::size_t begin = offset_of(source, static_cast<int>(region.begin.line), static_cast<int>(region.begin.column));
            const std::size_t end = offset_of(source, static_cast<int>(region.end.line), static_cast<int>(region.end.column));
            out.push_back({requirement_name(s->get()), begin, std::max(end, begin + 1)});
        }
    };
    add_array(doc.at_path("project.dependencies").node());
    add_array(doc.at_path("build-system.requires").node());
    if (const auto* extras = doc.at_path("project.optional-dependencies").as_table())
        for (const auto& [name, node] : *extras) add_array(&node);
    for (const char* table : {"tool.poetry.dependencies", "tool.poetry.dev-dependencies"}) {
        const auto* t = doc.at_path(table).as_table();
        if (!t) continue;
        for (const auto& [key, node] : *t) {
            const auto& region = key.source();
            const std::size_t begin = offset_of(source, static_cast<int>(region.begin.line), static_cast<int>(region.begin.column));
            out.push_back({std::string(key.str()), begin, begin + key.str().size()});
        }
    }
}

void conda_env(const SourceText& source, std::vector<Dependency>& out) {
    YAML::Node doc;
    try {
        doc = YAML::Load(source.text());
    } catch (const YAML::Exception& e) {
        throw std::runtime_error("invalid YAML at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    auto add_list = [&](const YAML::Node& list, auto& self) -> void {
        if (!list || !list.IsSequence()) return;
        for (const auto& item : list) {
            if (item.IsScalar()) {
                const std::string spec = item.as<std::string>();
                const std::size_t begin = static_cast<std::size_t>(std::max(0, item.Mark().pos));
                out.push_back({requirement_name(spec), begin, begin + spec.size()});
            } else if (item.IsMap() && item["pip"]) {
                self(item["pip"], self);
            }
        }
    };
    if (doc.IsMap()) add_list(doc["dependencies"], add_list);
}

void setup_cfg(const SourceText& source, std::vector<Dependency>& out) {
    // install_requires / extras_require values are indented continuation lines of a key.
    bool in_requirements = false;
    std::string section;
    for (int i = 1; i <= static_cast<int>(source.line_count()); ++i) {
        std::string_view line = source.line(i);
        const std::size_t begin = static_cast<std::size_t>(line.data() - source.text().data());
        if (!line.empty() && line.front() == '[') {
            section = std::string(line.substr(1, line.find(']') - 1));
            in_requirements = false;
            continue;
        }
        const bool indented = !line.empty() && (line.front() == ' ' || line.front() == '\t');
        std::string_view value = line;
        if (!indented) {
            const std::size_t eq = line.find('=');
            if (eq == std::string_view::npos) {
                in_requirements = false;
                continue;
            }
            std::string_view key = line.substr(0, eq);
            while (!key.empty() && key.back() == ' ') key.remove_suffix(1);
            in_requirements = (section == "options" && (key == "install_requires" || key == "setup_requires")) ||
                              section == "options.extras_require";
            value = line.substr(eq + 1);
        }
        if (!in_requirements) continue;
        const std::string name = requirement_name(value);
        if (!name.empty() && value.find('#') != 0) out.push_back({name, begin, begin + line.size()});
    }
}

}  // namespace

std::vector<Dependency> dependencies(FileKind kind, const SourceText& source) {
    std::vector<Dependency> out;
    switch (kind) {
        case FileKind::requirements: requirements(source, out); break;
        case FileKind::pyproject: pyproject(source, out); break;
        case FileKind::conda_env: conda_env(source, out); break;
        case FileKind::setup_cfg: setup_cfg(source, out); break;
        default: break;
    }
    return out;
}

ManifestEngine::ManifestEngine(const RuleCatalogue& catalogue) : m_catalogue(catalogue) {
    for (const auto& r : catalogue.rules()) {
        if (r.engine != "manifest") continue;
        for (const auto& kind : r.file_kinds)
            if (!parse_file_kind(kind))
                throw RuleError(r.source.generic_string() + ": manifest.files: unknown file kind '" + kind + "'");
        if (r.manifest_check == "cuda-only-packages") {
            m_package_rules.push_back(&r);
        } else if (r.manifest_check == "line-pattern") {
            try {
                m_line_rules.push_back({&r, std::regex(r.line_pattern, std::regex::ECMAScript | std::regex::optimize)});
            } catch (const std::regex_error& e) {
                throw RuleError(r.source.generic_string() + ": manifest.pattern: " + e.what());
            }
        } else {
            throw RuleError(r.source.generic_string() + ": manifest.check must be cuda-only-packages or line-pattern");
        }
    }
}

bool ManifestEngine::reads(FileKind kind) const {
    const std::string name(to_string(kind));
    auto has = [&](const Rule* r) { return std::find(r->file_kinds.begin(), r->file_kinds.end(), name) != r->file_kinds.end(); };
    return std::any_of(m_package_rules.begin(), m_package_rules.end(), has) ||
           std::any_of(m_line_rules.begin(), m_line_rules.end(), [&](const LineRule& l) { return has(l.rule); });
}

std::vector<Match> ManifestEngine::analyze(FileKind kind, const SourceText& source) const {
    std::vector<Match> out;
    const std::string kind_name(to_string(kind));
    auto reads_kind = [&](const Rule* r) {
        return std::find(r->file_kinds.begin(), r->file_kinds.end(), kind_name) != r->file_kinds.end();
    };
    if (std::any_of(m_package_rules.begin(), m_package_rules.end(), reads_kind)) {
        for (const auto& dep : dependencies(kind, source)) {
            const PackageInfo* pkg = m_catalogue.find_package(dep.name);
            if (!pkg) continue;
            for (const Rule* r : m_package_rules) {
                if (!reads_kind(r)) continue;
                Match m;
                m.rule = r;
                m.begin = dep.begin;
                m.end = dep.end;
                describe_package(m, *pkg);
                m.captures["finding"] = dep.name;
                out.push_back(std::move(m));
            }
        }
    }
    for (const auto& lr : m_line_rules) {
        if (!reads_kind(lr.rule)) continue;
        for (int i = 1; i <= static_cast<int>(source.line_count()); ++i) {
            const std::string_view line = source.line(i);
            std::cmatch cm;
            if (!std::regex_search(line.data(), line.data() + line.size(), cm, lr.pattern)) continue;
            Match m;
            m.rule = lr.rule;
            m.begin = static_cast<std::size_t>(line.data() - source.text().data()) + static_cast<std::size_t>(cm.position(0));
            m.end = m.begin + static_cast<std::size_t>(cm.length(0));
            m.captures["finding"] = cm.str(0);
            out.push_back(std::move(m));
        }
    }
    return out;
}

}  // namespace mpsport::manifests
