#include "analyzer/configs/config_facts.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <mutex>
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

std::string alternation(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) {
        if (!out.empty()) out += '|';
        for (char c : w) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? std::string(1, c) : std::string("\\") + c;
    }
    return out;
}

// The regexes one vocabulary needs, compiled once (std::regex is slow to build).
struct Patterns {
    std::regex config_literal, folder_keyword, checkpoint_literal;
    std::vector<std::string> literal_needles;  // ".yaml", ".pt", "config_path": a line without any is skipped
};

const Patterns& patterns_for(const DataReaderVocabulary& v) {
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<Patterns>> cache;
    const std::string key = alternation(v.config_extensions) + "/" + alternation(v.config_folder_keywords) + "/" + alternation(v.checkpoint_extensions);
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = cache[key];
    if (!slot) {
        auto p = std::make_unique<Patterns>();
        const std::string never = "(?!)";
        auto or_never = [&](const std::vector<std::string>& w) { return w.empty() ? never : alternation(w); };
        p->config_literal = std::regex(R"re(["']([^"'\n]*\.(?:)re" + or_never(v.config_extensions) + R"re())["'])re");
        p->folder_keyword = std::regex(R"re(\b(?:)re" + or_never(v.config_folder_keywords) + R"re()\s*=\s*["']([^"'\n]+)["'])re");
        p->checkpoint_literal = std::regex(R"re(["']([^"'\n]*\.(?:)re" + or_never(v.checkpoint_extensions) + R"re())["'])re");
        for (const auto& e : v.config_extensions) p->literal_needles.push_back("." + e);
        for (const auto& e : v.checkpoint_extensions) p->literal_needles.push_back("." + e);
        p->literal_needles.insert(p->literal_needles.end(), v.config_folder_keywords.begin(), v.config_folder_keywords.end());
        slot = std::move(p);
    }
    return *slot;
}

bool has_any(std::string_view hay, const std::vector<std::string>& needles) {
    return std::any_of(needles.begin(), needles.end(), [&](const std::string& n) { return hay.find(n) != std::string_view::npos; });
}

int line_at(std::string_view text, std::size_t offset) {
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(offset, text.size())), '\n'));
}

bool is_comment_at(std::string_view text, std::size_t offset) {
    const std::size_t start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
    const std::size_t first = text.find_first_not_of(" \t", start == std::string_view::npos ? 0 : start + 1);
    return first != std::string_view::npos && first < offset && text[first] == '#';
}

// The arguments of the call whose '(' is at `open`, split at top-level commas (strings and brackets
// respected); empty when the call is not closed.
std::vector<std::string> call_arguments(std::string_view text, std::size_t open) {
    std::vector<std::string> args;
    std::string current;
    int depth = 0;
    char quote = 0;
    for (std::size_t i = open + 1; i < text.size(); ++i) {
        const char c = text[i];
        if (quote) {
            current += c;
            if (c == '\\' && i + 1 < text.size()) current += text[++i];
            else if (c == quote) quote = 0;
            continue;
        }
        if (c == '"' || c == '\'') quote = c;
        else if (c == '(' || c == '[' || c == '{') ++depth;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
        else if (c == ')') {
            if (current.find_first_not_of(" \t\r\n") != std::string::npos) args.push_back(current);
            return args;
        } else if (c == ',' && depth == 0) {
            args.push_back(current);
            current.clear();
            continue;
        }
        current += c;
    }
    return {};
}

std::string trim(std::string s) {
    s.erase(0, s.find_first_not_of(" \t\r\n"));
    s.erase(s.find_last_not_of(" \t\r\n") + 1);
    return s;
}

// The value of a string literal (r"", f"" prefixes allowed) or of a name bound to one in the file
// (`CKPT = "weights/model.pt"`); nullopt otherwise.
std::optional<std::string> literal_value(const std::string& arg, std::string_view text) {
    static const std::regex literal(R"re(^[rRfFbB]{0,2}(["'])([^"'\n]*)\1$)re");
    static const std::regex name(R"re(^[A-Za-z_]\w*$)re");
    std::smatch m;
    if (std::regex_match(arg, m, literal)) return m[2].str();
    if (!std::regex_match(arg, name)) return std::nullopt;
    const std::regex bound("(?:^|\\n)[ \\t]*" + arg + R"re([ \t]*(?::[^=\n]*)?=[ \t]*[rRfF]?(["'])([^"'\n]*)\1)re");
    const std::string all(text);
    if (std::regex_search(all, m, bound)) return m[2].str();
    return std::nullopt;
}

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `import torch as T`: the names a module goes by in this file besides its own.
std::vector<std::string> module_aliases(std::string_view text, const std::string& module) {
    const std::regex alias("(?:^|\\n)[ \\t]*import[ \\t]+" + module + "[ \\t]+as[ \\t]+(\\w+)");
    std::vector<std::string> out;
    const std::string all(text);
    for (std::sregex_iterator it(all.begin(), all.end(), alias), end; it != end; ++it) out.push_back((*it)[1].str());
    return out;
}

void find_loads(std::string_view text, const DataReaderVocabulary& v, std::vector<CheckpointLoad>& out) {
    for (const auto& load : v.checkpoint_loads) {
        const bool dotted = load.call.find('.') != std::string::npos;
        // `torch.load(`, and `T.load(` where the file imports torch as T
        std::vector<std::string> needles = {load.call + "("};
        if (dotted) {
            const std::string module = load.call.substr(0, load.call.find('.'));
            if (text.find("import " + module + " as") != std::string_view::npos)
                for (const auto& a : module_aliases(text, module)) needles.push_back(a + load.call.substr(module.size()) + "(");
        }
        for (const std::string& needle : needles)
        for (std::size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) {
            // `torch.load(` must not be `xtorch.load(`; a bare name may follow a receiver's dot
            if (at > 0 && (is_identifier_char(text[at - 1]) || (dotted && text[at - 1] == '.'))) continue;
            if (is_comment_at(text, at)) continue;
            const auto args = call_arguments(text, at + needle.size() - 1);
            CheckpointLoad l;
            l.call = load.call;
            l.line = line_at(text, at);
            l.folder = load.folder;
            for (std::size_t i = 0; i < args.size(); ++i) {
                const std::string a = trim(args[i]);
                const std::size_t eq = a.find('=');
                const bool keyword = eq != std::string::npos && eq > 0 && a[eq + 1] != '=' &&
                                     std::all_of(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) { return is_identifier_char(c) || c == ' '; });
                if (keyword) {
                    const std::string k = trim(a.substr(0, eq));
                    if (!load.remap.empty() && k == load.remap) l.remap = k + "=" + trim(a.substr(eq + 1));
                    if (l.path.empty() && (k == "f" || k == "path" || k == "checkpoint_path" || k == "filename" ||
                                           k == "pretrained_model_name_or_path"))
                        l.path = literal_value(trim(a.substr(eq + 1)), text).value_or("");
                } else if (i == 0) {
                    l.path = literal_value(a, text).value_or("");
                } else if (load.remap_position > 0 && i == static_cast<std::size_t>(load.remap_position) && !a.empty() && a.front() != '*') {
                    l.remap = a;
                }
            }
            if (!l.remap && load.on_cpu) l.remap = "onto the CPU (" + load.call + "'s default)";
            out.push_back(std::move(l));
        }
    }
}

}  // namespace

PythonConfigFacts python_config_facts(std::string_view text, const std::set<std::string>& keys, const DataReaderVocabulary& vocabulary) {
    static const std::regex subscript(R"re((?:\w+(?:\.\w+|\[[^\]]*\])*)?\[\s*["'](\w+)["']\s*\])re");
    static const std::regex get_call(R"re((?:\w+(?:\.\w+)*)?\.get\(\s*["'](\w+)["'])re");
    static const std::regex save_call(R"re(\bsave\w*\()re");
    static const std::regex attribute(R"re(\b(?:cfg|config|conf|args|opt|opts|hparams|params|settings|hp)(?:\.\w+)*\.(\w+)\b)re");
    const Patterns& p = patterns_for(vocabulary);
    PythonConfigFacts out;
    auto mentions_key = [&](std::string_view hay) {
        return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return hay.find(k) != std::string_view::npos; });
    };
    const bool any_load = std::any_of(vocabulary.checkpoint_loads.begin(), vocabulary.checkpoint_loads.end(),
                                      [&](const CheckpointLoadCall& c) {
                                          // the call's last name: `torch.load(` also as `T.load(` (import torch as T)
                                          return text.find(c.call.substr(c.call.rfind('.') + 1) + "(") != std::string_view::npos;
                                      });
    // std::regex is slow: run it only on lines that hold a literal it could match.
    if (!mentions_key(text) && !has_any(text, p.literal_needles) && !any_load) return out;
    if (any_load) find_loads(text, vocabulary, out.loads);
    int line_no = 0;
    for (std::size_t pos = 0; pos <= text.size();) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        const std::string line(text.substr(pos, nl - pos));
        const std::size_t line_start = pos;
        pos = nl + 1;
        ++line_no;
        const std::size_t first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        if (has_any(line, p.literal_needles)) {
            for (std::sregex_iterator it(line.begin(), line.end(), p.config_literal), end; it != end; ++it)
                out.files.push_back({(*it)[1].str(), line_no});
            for (std::sregex_iterator it(line.begin(), line.end(), p.folder_keyword), end; it != end; ++it) {
                // Hydra's config_name, in the same call: on this line or the next few.
                static const std::regex config_name(R"re(\bconfig_name\s*=\s*["']([^"'\n]+)["'])re");
                const std::string window(text.substr(line_start, std::min<std::size_t>(400, text.size() - line_start)));
                std::smatch name;
                const bool named = std::regex_search(window, name, config_name);
                out.directories.push_back({(*it)[1].str(), line_no, named ? name[1].str() : std::string()});
            }
            for (std::sregex_iterator it(line.begin(), line.end(), p.checkpoint_literal), end; it != end; ++it)
                if (!std::regex_search(line.substr(0, static_cast<std::size_t>(it->position())), save_call))  // written, not read
                    out.checkpoints.push_back({(*it)[1].str(), line_no});
        }
        if (!mentions_key(line)) continue;
        for (const std::regex* re : {&subscript, &get_call, &attribute})
            for (std::sregex_iterator it(line.begin(), line.end(), *re), end; it != end; ++it)
                if (keys.count((*it)[1].str())) out.reads.push_back({(*it)[1].str(), line_no, (*it)[0].str()});
    }
    return out;
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
