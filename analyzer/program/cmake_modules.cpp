#include "analyzer/program/cmake_modules.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mpsport::program {
namespace {

// One command invocation: `name(arg arg "quoted arg")`, its name in lower case (CMake's command names
// are case-insensitive), its arguments as written, without quotes, and the line it starts on.
struct Command {
    std::string name;
    std::vector<std::string> args;
    int line = 0;
};

// The commands of a CMake file. Comments (`# ...`, `#[[ ... ]]`) are skipped; nested parentheses stay
// inside one argument list. Not a full CMake reader: enough to see which targets a file builds.
std::vector<Command> commands(std::string_view text) {
    std::vector<Command> out;
    int line = 1;
    std::size_t i = 0;
    auto skip_comment = [&] {  // at '#'
        if (text.compare(i, 3, "#[[") == 0) {
            const std::size_t end = text.find("]]", i + 3);
            const std::size_t stop = end == std::string_view::npos ? text.size() : end + 2;
            line += static_cast<int>(std::count(text.begin() + static_cast<std::ptrdiff_t>(i), text.begin() + static_cast<std::ptrdiff_t>(stop), '\n'));
            i = stop;
            return;
        }
        while (i < text.size() && text[i] != '\n') ++i;
    };
    while (i < text.size()) {
        const char c = text[i];
        if (c == '\n') {
            ++line, ++i;
            continue;
        }
        if (c == '#') {
            skip_comment();
            continue;
        }
        if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_')) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
        std::size_t k = j;
        while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
        if (k >= text.size() || text[k] != '(') {
            i = j;
            continue;
        }
        Command cmd;
        cmd.name = std::string(text.substr(i, j - i));
        std::transform(cmd.name.begin(), cmd.name.end(), cmd.name.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        cmd.line = line;
        i = k + 1;
        int depth = 1;
        std::string arg;
        auto flush = [&] {
            if (!arg.empty()) cmd.args.push_back(std::move(arg));
            arg.clear();
        };
        while (i < text.size() && depth > 0) {
            const char d = text[i];
            if (d == '"') {
                ++i;
                while (i < text.size() && text[i] != '"') {
                    if (text[i] == '\\' && i + 1 < text.size()) ++i;
                    if (text[i] == '\n') ++line;
                    arg += text[i++];
                }
                ++i;
                continue;
            }
            if (d == '#') {
                flush();
                skip_comment();
                continue;
            }
            if (d == '(') ++depth;
            if (d == ')' && --depth == 0) {
                ++i;
                break;
            }
            if (d == '\n') ++line;
            if (std::isspace(static_cast<unsigned char>(d))) flush();
            else arg += d;
            ++i;
        }
        flush();
        out.push_back(std::move(cmd));
    }
    return out;
}

// A source as a command writes it, and whether it was added inside an if() block (geomops'
// `if(GEOMOPS_WITH_CUDA)` then `list(APPEND sources csrc/knn_cuda.cu)`).
struct Source {
    std::string path;
    bool conditional = false;
};

bool is_cuda_source(const std::string& s) {
    return s.size() > 3 && s.compare(s.size() - 3, 3, ".cu") == 0;
}

// A keyword of a target command (SHARED, MODULE, PRIVATE, THIN_LTO, ...): upper case, no path.
bool keyword(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) { return std::isupper(static_cast<unsigned char>(ch)) || ch == '_' || std::isdigit(static_cast<unsigned char>(ch)); });
}

}  // namespace

void cmake_module_facts(std::string_view text, FileFacts& out) {
    const std::vector<Command> cmds = commands(text);
    int depth = 0;                                       // of if() blocks
    std::map<std::string, std::vector<Source>> vars;     // set(NAME a b c), list(APPEND NAME ...)
    std::map<std::string, std::vector<Source>> sources;  // target -> its sources
    std::map<std::string, std::set<std::string>> links;       // target -> targets it links
    std::vector<std::pair<std::string, int>> modules;         // Python modules, in order: target, line
    // `${NAME}` of a variable this file sets, one level; anything else as written
    auto expand = [&](const std::vector<std::string>& args, std::size_t from) {
        std::vector<Source> got;
        for (std::size_t a = from; a < args.size(); ++a) {
            const std::string& s = args[a];
            if (s.size() > 3 && s.compare(0, 2, "${") == 0 && s.back() == '}') {
                const auto v = vars.find(s.substr(2, s.size() - 3));
                if (v != vars.end()) got.insert(got.end(), v->second.begin(), v->second.end());
                continue;
            }
            if (!keyword(s)) got.push_back({s, depth > 0});
        }
        return got;
    };
    for (const Command& c : cmds) {
        if (c.name == "if") ++depth;
        if (c.name == "endif") depth = std::max(0, depth - 1);
        if (c.args.empty()) continue;
        const std::string& target = c.args[0];
        if (c.name == "set") {
            vars[target] = expand(c.args, 1);
        } else if (c.name == "list" && c.args.size() > 2 && c.args[0] == "APPEND") {
            const auto more = expand(c.args, 2);
            auto& v = vars[c.args[1]];
            v.insert(v.end(), more.begin(), more.end());
        } else if (c.name == "add_library" || c.name == "cuda_add_library") {
            sources[target] = expand(c.args, 1);
        } else if (c.name == "target_sources") {
            const auto more = expand(c.args, 1);
            auto& v = sources[target];
            v.insert(v.end(), more.begin(), more.end());
        } else if (c.name == "target_link_libraries") {
            for (std::size_t a = 1; a < c.args.size(); ++a) links[target].insert(c.args[a]);
        } else if (c.name == "pybind11_add_module" || c.name == "nanobind_add_module" || c.name == "python_add_library" ||
                   c.name == "python3_add_library") {
            sources[target] = expand(c.args, 1);
            modules.emplace_back(target, c.line);
        } else if (c.name == "pybind11_extension" || c.name == "nanobind_extension") {
            modules.emplace_back(target, c.line);
        }
    }
    std::set<std::string> seen;
    for (const auto& [target, line] : modules) {
        if (!seen.insert(target).second) continue;
        ExtensionFact e;
        e.name = target;
        e.line = line;
        bool cuda = false, cuda_conditional = false, other = false;
        auto weigh = [&](const std::vector<Source>& list, bool keep) {
            for (const Source& s : list) {
                if (is_cuda_source(s.path)) (s.conditional ? cuda_conditional : cuda) = true;
                else if (!s.conditional) other = true;
                if (keep && s.path.find("${") == std::string::npos && s.path.find("$<") == std::string::npos) e.sources.push_back(s.path);
            }
        };
        if (const auto own = sources.find(target); own != sources.end()) weigh(own->second, true);
        // a target of this file that it links, one level (instant-ngp's pyngp links ngp, of .cu sources)
        if (const auto linked = links.find(target); linked != links.end())
            for (const auto& l : linked->second)
                if (const auto s = sources.find(l); s != sources.end()) weigh(s->second, false);
        e.cuda = cuda || cuda_conditional;
        // CUDA sources only under a condition, C++ ones beside them: the build without the condition is
        // the same module in C++ (geomops' GEOMOPS_WITH_CUDA)
        e.cuda_optional = !cuda && cuda_conditional && other;
        out.extensions.push_back(std::move(e));
    }
}

}  // namespace mpsport::program
