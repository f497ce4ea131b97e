#include "analyzer/configs/config_facts.hpp"

#include "analyzer/python/config_reads.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>

namespace mpsport::configs {
namespace {

std::string strip_relative(std::string p) {
    while (p.rfind("./", 0) == 0 || p.rfind("../", 0) == 0) p.erase(0, p.find('/') + 1);
    return p;
}

std::string directory_of(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

// A path as written, as a glob: "{split}.json" -> "*.json" (a placeholder stays within one folder);
// a glob's own '*' and '?' keep their meaning (glob.glob("configs/*.yaml")).
std::string literal_glob(const std::string& literal) {
    std::string glob;
    for (std::size_t i = 0; i < literal.size(); ++i) {
        const char c = literal[i];
        if (c == '{') {
            const std::size_t close = literal.find('}', i);
            if (close != std::string::npos) {
                glob += '*';
                i = close;
                continue;
            }
        }
        if (c == '[' || c == ']' || c == '\\') glob += '\\';
        glob += c;
    }
    return glob;
}

// "{split}.json", "*.yaml": a name made only of holes names no particular file.
bool names_nothing_particular(const std::string& glob) {
    if (glob.find('/') != std::string::npos) return false;
    const std::string stem = glob.substr(0, glob.rfind('.'));
    return std::all_of(stem.begin(), stem.end(), [](char c) { return c == '*' || c == '?'; });
}

}  // namespace

PythonConfigFacts python_config_facts(std::string_view text, const std::set<std::string>& keys, const DataReaderVocabulary& vocabulary,
                                      const GuardVocabulary& guards) {
    const python::ParsedModule parsed(text);
    if (ts_node_is_null(parsed.root())) return {};
    const python::GuardFinder finder(guards, parsed.facts(), parsed.root());
    return python::config_reads(parsed.root(), parsed.facts(), finder, keys, vocabulary);
}

std::optional<std::string> path_glob(const std::string& written) {
    const std::string l = strip_relative(written);
    if (l.empty()) return std::nullopt;
    std::string glob = literal_glob(l);
    if (names_nothing_particular(glob)) return std::nullopt;
    return glob;
}

bool glob_names(const std::string& glob, const std::string& path) {
    if (fnmatch(glob.c_str(), path.c_str(), FNM_PATHNAME) == 0) return true;
    for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
        if (fnmatch(glob.c_str(), path.c_str() + slash + 1, FNM_PATHNAME) == 0) return true;
    return false;
}

bool names_path(const std::string& written, const std::string& path) {
    const auto glob = path_glob(written);
    return glob && glob_names(*glob, path);
}

std::optional<HydraRef> hydra_folder_of(const PythonConfigFacts& facts, const std::string& python_path, const std::string& config_path) {
    const std::string here = directory_of(python_path);
    for (const auto& dir : facts.directories) {
        const std::string d = strip_relative(dir.path);
        if (d.empty()) continue;
        const std::string below_script = (here.empty() ? "" : here + "/") + d + "/";
        if (config_path.rfind(below_script, 0) == 0) return HydraRef{&dir, below_script};
        if (config_path.rfind(d + "/", 0) == 0) return HydraRef{&dir, d + "/"};
        if (const std::size_t at = config_path.find("/" + d + "/"); at != std::string::npos)
            return HydraRef{&dir, config_path.substr(0, at + d.size() + 2)};
    }
    return std::nullopt;
}

std::optional<int> refers_by_directory(const PythonConfigFacts& facts, const std::string& python_path, const std::string& config_path) {
    if (auto ref = hydra_folder_of(facts, python_path, config_path)) return ref->folder->line;
    return std::nullopt;
}

std::optional<int> refers_to(const PythonConfigFacts& facts, const std::string& python_path, const std::string& config_path) {
    for (const auto& literal : facts.files)
        if (names_path(literal.path, config_path)) return literal.line;
    return refers_by_directory(facts, python_path, config_path);
}

namespace {

// The last segment of a glob, when it is plain text: a name it matches must end in exactly that.
std::optional<std::string> plain_last_segment(const std::string& glob) {
    const std::string last = glob.substr(glob.rfind('/') == std::string::npos ? 0 : glob.rfind('/') + 1);
    if (last.find_first_of("*?[\\") != std::string::npos) return std::nullopt;
    return last;
}

}  // namespace

NamedFiles::NamedFiles(const std::vector<PythonFile>& python) : m_python(python) {
    for (std::size_t p = 0; p < python.size(); ++p) {
        const auto& literals = python[p].facts->files;
        for (std::size_t i = 0; i < literals.size(); ++i) {
            auto glob = path_glob(literals[i].path);
            if (!glob) continue;
            Literal lit{p, i, literals[i].line, *glob};
            if (auto last = plain_last_segment(*glob)) m_by_name[*last].push_back(std::move(lit));
            else m_wild.push_back(std::move(lit));
        }
    }
}

std::vector<std::pair<std::size_t, int>> NamedFiles::readers(const std::string& path) const {
    // Per Python file, the first of its literals that names the path (as refers_to() takes it).
    std::map<std::size_t, std::pair<std::size_t, int>> first;  // file -> (literal index, line)
    auto consider = [&](const Literal& l) {
        auto it = first.find(l.file);
        if (it != first.end() && it->second.first < l.index) return;
        if (!glob_names(l.glob, path)) return;
        first[l.file] = {l.index, l.line};
    };
    const std::string name = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
    if (auto it = m_by_name.find(name); it != m_by_name.end())
        for (const auto& l : it->second) consider(l);
    for (const auto& l : m_wild) consider(l);
    std::vector<std::pair<std::size_t, int>> out;
    for (std::size_t p = 0; p < m_python.size(); ++p) {
        if (auto it = first.find(p); it != first.end()) out.emplace_back(p, it->second.second);
        else if (auto line = refers_by_directory(*m_python[p].facts, *m_python[p].path, path)) out.emplace_back(p, *line);
    }
    return out;
}

}  // namespace mpsport::configs
