// pyproject.toml: PEP 621 [project], [build-system], PEP 735 [dependency-groups], Poetry's
// dependencies / groups / extras / sources, uv's and PDM's indexes. Parsed with toml++.
#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include "analyzer/manifests/dependencies.hpp"

namespace mpsport::manifests {
namespace {

class PyprojectReader {
public:
    explicit PyprojectReader(const SourceText& source) : m_source(source) {
        try {
            m_doc = toml::parse(source.text());
        } catch (const toml::parse_error& e) {
            throw std::runtime_error("invalid TOML at line " + std::to_string(e.source().begin.line) + ": " +
                                     std::string(e.description()));
        }
    }

    ManifestFacts read() {
        pep621();
        poetry();
        indexes();
        return std::move(m_out);
    }

private:
    Span span_of(const toml::source_region& r) const {
        const std::size_t begin = offset(static_cast<int>(r.begin.line), static_cast<int>(r.begin.column));
        const std::size_t end = offset(static_cast<int>(r.end.line), static_cast<int>(r.end.column));
        return {begin, std::max(end, begin + 1)};
    }
    std::size_t offset(int line, int column) const {
        const std::string_view l = m_source.line(line);
        if (l.data() == nullptr) return m_source.text().size();
        const std::size_t base = static_cast<std::size_t>(l.data() - m_source.text().data());
        return base + static_cast<std::size_t>(std::clamp(column - 1, 0, static_cast<int>(l.size())));
    }

    // An array of PEP 508 strings ([project] dependencies, an extra, a dependency group).
    void pep508_array(const toml::node* node, Scope scope, const std::string& group) {
        const toml::array* arr = node ? node->as_array() : nullptr;
        if (!arr) return;
        for (const auto& item : *arr) {
            const auto* s = item.as_string();
            if (!s) continue;  // {include-group = "..."} in PEP 735
            std::optional<Requirement> r;
            try {
                r = parse_requirement(s->get());
            } catch (const std::runtime_error& e) {
                throw std::runtime_error("invalid requirement at line " + std::to_string(item.source().begin.line) + ": " + e.what());
            }
            if (!r) continue;
            m_out.dependencies.push_back(make_dependency(*r, scope, group, span_of(item.source())));
        }
    }

    void groups_of_arrays(const char* path, Scope scope) {
        const auto* t = m_doc.at_path(path).as_table();
        if (!t) return;
        for (const auto& [key, node] : *t) {
            m_out.groups.push_back({std::string(key.str()), scope, span_of(key.source())});
            pep508_array(&node, scope, std::string(key.str()));
        }
    }

    void pep621() {
        pep508_array(m_doc.at_path("project.dependencies").node(), Scope::required, "");
        pep508_array(m_doc.at_path("build-system.requires").node(), Scope::build, "");
        groups_of_arrays("project.optional-dependencies", Scope::optional);
        groups_of_arrays("dependency-groups", Scope::optional);
    }

    // One Poetry dependency table: `name = "^1.0"`, `name = {version, markers, platform, optional,
    // source}` or a list of such tables (one per platform).
    void poetry_table(const toml::table& t, Scope scope, const std::string& group) {
        for (const auto& [key, node] : t) {
            if (key.str() == "python") continue;
            Dependency d;
            d.name = std::string(key.str());
            d.scope = scope;
            d.group = group;
            d.span = span_of(key.source());
            std::vector<const toml::table*> alternatives;
            if (const auto* s = node.as_string()) d.version = s->get();
            if (const auto* tbl = node.as_table()) alternatives.push_back(tbl);
            if (const auto* arr = node.as_array())
                for (const auto& a : *arr)
                    if (const auto* tbl = a.as_table()) alternatives.push_back(tbl);
            bool all_linux = !alternatives.empty();
            for (const toml::table* tbl : alternatives) {
                if (d.version.empty()) d.version = (*tbl)["version"].value_or(std::string());
                if (tbl->contains("optional") && (*tbl)["optional"].value_or(false)) d.scope = Scope::optional;
                if (const auto* extras = (*tbl)["extras"].as_array())
                    for (const auto& e : *extras) d.extras.push_back(e.value_or(std::string()));
                const std::string platform = (*tbl)["platform"].value_or(std::string());
                const std::string markers = (*tbl)["markers"].value_or(std::string());
                const bool off_mac = (!platform.empty() && platform != "darwin") || marker_excludes_macos(markers);
                all_linux = all_linux && off_mac;
                if (const std::string src = (*tbl)["source"].value_or(std::string()); !src.empty()) m_routes[src].push_back(off_mac);
            }
            d.linux_only = all_linux;
            d.cuda_build = cuda_build_tag(d.version);
            m_out.dependencies.push_back(std::move(d));
        }
    }

    void poetry() {
        if (const auto* t = m_doc.at_path("tool.poetry.dependencies").as_table()) poetry_table(*t, Scope::required, "");
        if (const auto* t = m_doc.at_path("tool.poetry.dev-dependencies").as_table()) poetry_table(*t, Scope::required, "dev");
        if (const auto* groups = m_doc.at_path("tool.poetry.group").as_table()) {
            for (const auto& [name, node] : *groups) {
                const auto* g = node.as_table();
                const auto* deps = g ? (*g)["dependencies"].as_table() : nullptr;
                if (!deps) continue;
                // A Poetry group is installed by `poetry install` unless it says optional = true.
                const Scope scope = (*g)["optional"].value_or(false) ? Scope::optional : Scope::required;
                if (scope == Scope::optional) m_out.groups.push_back({std::string(name.str()), scope, span_of(name.source())});
                poetry_table(*deps, scope, std::string(name.str()));
            }
        }
        // [tool.poetry.extras] gpu = ["faiss-gpu"]: the extra names optional dependencies declared above.
        if (const auto* extras = m_doc.at_path("tool.poetry.extras").as_table()) {
            for (const auto& [name, node] : *extras) {
                m_out.groups.push_back({std::string(name.str()), Scope::optional, span_of(name.source())});
                const auto* arr = node.as_array();
                if (!arr) continue;
                for (const auto& item : *arr) {
                    const std::string member = normalise_name(item.value_or(std::string()));
                    for (auto& d : m_out.dependencies)
                        if (d.scope == Scope::optional && d.group.empty() && normalise_name(d.name) == member) d.group = std::string(name.str());
                }
            }
        }
    }

    void add_index(const toml::table& t) {
        const std::string url = t["url"].value_or(std::string());
        if (url.empty()) return;
        const std::string name = t["name"].value_or(std::string());
        m_out.indexes.push_back({url, name, false, false, span_of(t["url"].node()->source())});
    }

    void indexes() {
        for (const char* path : {"tool.uv.index", "tool.poetry.source", "tool.pdm.source"})
            if (const auto* arr = m_doc.at_path(path).as_array())
                for (const auto& item : *arr)
                    if (const auto* t = item.as_table()) add_index(*t);
        // [tool.uv.sources] torch = [{ index = "pytorch-cu121", marker = "sys_platform == 'linux'" }]
        if (const auto* sources = m_doc.at_path("tool.uv.sources").as_table()) {
            for (const auto& [pkg, node] : *sources) {
                std::vector<const toml::table*> entries;
                if (const auto* t = node.as_table()) entries.push_back(t);
                if (const auto* arr = node.as_array())
                    for (const auto& a : *arr)
                        if (const auto* t = a.as_table()) entries.push_back(t);
                for (const toml::table* t : entries)
                    if (const std::string index = (*t)["index"].value_or(std::string()); !index.empty())
                        m_routes[index].push_back(marker_excludes_macos((*t)["marker"].value_or(std::string())));
            }
        }
        for (auto& index : m_out.indexes) {
            auto it = m_routes.find(index.name);
            index.linux_only = it != m_routes.end() && std::all_of(it->second.begin(), it->second.end(), [](bool b) { return b; });
        }
    }

    const SourceText& m_source;
    toml::table m_doc;
    ManifestFacts m_out;
    std::map<std::string, std::vector<bool>> m_routes;  // index name -> whether each use is Linux-only
};

}  // namespace

ManifestFacts read_pyproject(const SourceText& source) { return PyprojectReader(source).read(); }

}  // namespace mpsport::manifests
