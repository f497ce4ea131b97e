#include "analyzer/configs/config_facts.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <regex>

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

// A path literal as a glob: "{split}.json" -> "*.json" (a placeholder stays within one folder).
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
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') glob += '\\';
        glob += c;
    }
    return glob;
}

// Whether `path` is the literal's file: the whole path, or its tail after a '/'.
bool names_file(const std::string& glob, const std::string& path) {
    if (fnmatch(glob.c_str(), path.c_str(), FNM_PATHNAME) == 0) return true;
    for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
        if (fnmatch(glob.c_str(), path.c_str() + slash + 1, FNM_PATHNAME) == 0) return true;
    return false;
}

}  // namespace

PythonConfigFacts python_config_facts(std::string_view text, const std::set<std::string>& keys) {
    static const std::regex file_literal(R"re(["']([^"'\n]*\.(?:ya?ml|json|toml))["'])re");
    static const std::regex hydra_dir(R"re(config_path\s*=\s*["']([^"'\n]+)["'])re");
    static const std::regex subscript(R"re((?:\w+(?:\.\w+|\[[^\]]*\])*)?\[\s*["'](\w+)["']\s*\])re");
    static const std::regex get_call(R"re((?:\w+(?:\.\w+)*)?\.get\(\s*["'](\w+)["'])re");
    static const std::regex attribute(R"re(\b(?:cfg|config|conf|args|opt|opts|hparams|params|settings|hp)(?:\.\w+)*\.(\w+)\b)re");
    PythonConfigFacts out;
    // std::regex is slow: run it only on lines that hold a literal it could match.
    auto has_any = [](std::string_view hay, std::initializer_list<std::string_view> needles) {
        return std::any_of(needles.begin(), needles.end(), [&](std::string_view n) { return hay.find(n) != std::string_view::npos; });
    };
    auto mentions_key = [&](std::string_view hay) {
        return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return hay.find(k) != std::string_view::npos; });
    };
    if (!mentions_key(text) && !has_any(text, {".yaml", ".yml", ".json", ".toml", "config_path"})) return out;
    int line_no = 0;
    for (std::size_t pos = 0; pos <= text.size();) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        const std::string line(text.substr(pos, nl - pos));
        pos = nl + 1;
        ++line_no;
        const std::size_t first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        if (has_any(line, {".yaml", ".yml", ".json", ".toml"}))
            for (std::sregex_iterator it(line.begin(), line.end(), file_literal), end; it != end; ++it) out.files.push_back((*it)[1].str());
        if (has_any(line, {"config_path"}))
            for (std::sregex_iterator it(line.begin(), line.end(), hydra_dir), end; it != end; ++it) out.directories.push_back((*it)[1].str());
        if (!mentions_key(line)) continue;
        for (const std::regex* re : {&subscript, &get_call, &attribute})
            for (std::sregex_iterator it(line.begin(), line.end(), *re), end; it != end; ++it)
                if (keys.count((*it)[1].str())) out.reads.push_back({(*it)[1].str(), line_no, (*it)[0].str()});
    }
    return out;
}

bool refers_to(const PythonConfigFacts& facts, const std::string& python_path, const std::string& config_path) {
    for (const auto& literal : facts.files) {
        const std::string l = strip_relative(literal);
        // f"{split}.json" names no particular file: a literal needs a fixed name or folder.
        if (l.empty() || (l.front() == '{' && l.find('/') == std::string::npos && l.find('}') + 1 == l.rfind('.'))) continue;
        if (names_file(literal_glob(l), config_path)) return true;
    }
    const std::string here = directory_of(python_path);
    for (const auto& dir : facts.directories) {
        const std::string d = strip_relative(dir);
        const std::string below_script = (here.empty() ? "" : here + "/") + d + "/";
        if (config_path.rfind(below_script, 0) == 0 || config_path.rfind(d + "/", 0) == 0 ||
            config_path.find("/" + d + "/") != std::string::npos)
            return true;
    }
    return false;
}

}  // namespace mpsport::configs
