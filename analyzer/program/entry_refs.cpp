#include "analyzer/program/entry_refs.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include "analyzer/lines/shell_lines.hpp"
#include "analyzer/program/cmake_modules.hpp"

namespace mpsport::program {
namespace {

using lines::as_placeholders;
using lines::assign;
using lines::expand;
using lines::ShellVariables;
using lines::tokens_of;

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string_view basename(std::string_view token) {
    const auto slash = token.rfind('/');
    return slash == std::string_view::npos ? token : token.substr(slash + 1);
}

// python, python3, python3.11, pythonw: an interpreter that runs a script or `-m module`.
bool is_python(std::string_view token) {
    const std::string_view b = basename(token);
    if (b.compare(0, 6, "python") != 0) return false;
    return std::all_of(b.begin() + 6, b.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
}

bool is_launcher(std::string_view token) {
    const std::string_view b = basename(token);
    return b == "torchrun" || b == "deepspeed" || b == "accelerate" || b == "lightning" || b == "horovodrun" || b == "mpirun" ||
           b == "srun" || b == "uv" || b == "poetry" || b == "pipenv" || b == "conda" || b == "exec" || b == "nohup" || b == "time";
}

// The arguments from `from` on that look like paths of files (a name with an extension, not a
// number), up to the next command: `--config configs/x.yaml`, `--resume=ckpt/last.pt`; a variable
// left in one is a placeholder (`--config configs/${EXP}.yaml`: the configs of that folder).
std::vector<std::string> path_args(const std::vector<std::string>& tokens, std::size_t from) {
    std::vector<std::string> out;
    for (std::size_t k = from; k < tokens.size(); ++k) {
        std::string t = tokens[k];
        if (is_python(t) || is_launcher(t)) break;
        if (t.rfind("--", 0) == 0 && t.find('=') != std::string::npos) t = t.substr(t.find('=') + 1);
        else if (t.front() == '-') continue;
        t = as_placeholders(t);
        const auto dot = t.rfind('.');
        if (dot == std::string::npos || dot + 1 == t.size() || t.find('$') != std::string::npos) continue;
        const std::string ext = t.substr(dot + 1);
        if (std::all_of(ext.begin(), ext.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }) && !ends_with(t, ".py"))
            out.push_back(t);
    }
    return out;
}

// The Hydra overrides from `from` on, up to the next command: `trainer=gpu`, `+experiment=big`,
// `model/encoder=vit` (a group, '=', an option; not a --flag=value).
std::vector<std::string> overrides(const std::vector<std::string>& tokens, std::size_t from) {
    static const std::regex override(R"re(^\+{0,2}[A-Za-z_][\w/.]*=[\w.\-/]+$)re");
    std::vector<std::string> out;
    for (std::size_t k = from; k < tokens.size(); ++k) {
        if (is_python(tokens[k]) || is_launcher(tokens[k])) break;
        if (std::regex_match(tokens[k], override)) out.push_back(tokens[k]);
    }
    return out;
}

// The scripts and modules one command line (its tokens) runs.
void commands(const std::vector<std::string>& tokens, int line_no, FileFacts& out) {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (!is_python(tokens[i]) && !is_launcher(tokens[i])) continue;
        for (std::size_t k = i + 1; k < tokens.size(); ++k) {
            const std::string& t = tokens[k];
            if (t == "-m" && k + 1 < tokens.size()) {
                // `python -m pkg.train --config configs/x.yaml`: the module reads those files too
                out.entry_refs.push_back({tokens[k + 1], true, line_no, path_args(tokens, k + 2), overrides(tokens, k + 2)});
                ++k;
                continue;  // `python -m torch.distributed.run … train.py` also runs train.py
            }
            if (ends_with(t, ".py")) {
                out.entry_refs.push_back({t.compare(0, 2, "./") == 0 ? t.substr(2) : t, false, line_no, path_args(tokens, k + 1), overrides(tokens, k + 1)});
                i = k;
                break;
            }
        }
    }
}

// Calls f(line, number) for each line of `text` (numbered from 1), without its '\n' or a '\r' before it.
template <class F>
void for_each_line(std::string_view text, F&& f) {
    int line_no = 0;
    for (std::size_t pos = 0; pos <= text.size();) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos) eol = text.size();
        std::string_view line = text.substr(pos, eol - pos);
        pos = eol + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        f(line, ++line_no);
    }
}

// `cd DIR` among tokens[0, end): the folder the commands after it run in, relative to the script's
// own. A folder named by a variable, an absolute one or `-` is not known ("?").
void enter_folder(const std::vector<std::string>& tokens, std::size_t end, std::string& cwd) {
    for (std::size_t i = 0; i + 1 < end && i + 1 < tokens.size(); ++i) {
        if (tokens[i] != "cd") continue;
        const std::string& dir = tokens[i + 1];
        if (dir.find('$') != std::string::npos || dir.front() == '/' || dir.front() == '~' || dir == "-") cwd = "?";
        else cwd = cwd.empty() || cwd == "?" ? dir : cwd + "/" + dir;
    }
}

void script_lines(std::string_view text, FileFacts& out, bool fenced_blocks) {
    std::string cwd;  // entered by `cd`; a README's fenced block starts where the README is
    ShellVariables variables;  // a README's fenced block starts with none
    for (const auto& command : lines::shell_commands(text)) {
        const std::string_view line = command.text;
        if (fenced_blocks && line.find_first_not_of(" \t") != std::string_view::npos && line.substr(line.find_first_not_of(" \t")).rfind("```", 0) == 0) {
            cwd.clear();
            variables.clear();
        }
        if (command.comment) continue;
        const std::size_t before = out.entry_refs.size();
        auto tokens = tokens_of(command.text);
        for (auto& t : tokens) t = expand(t, variables);
        assign(tokens, variables);
        commands(tokens, command.first_line, out);
        // `cd utils && python train.py`: the folder entered before the command runs
        const auto run = std::find_if(tokens.begin(), tokens.end(), [](const std::string& t) { return is_python(t) || is_launcher(t); });
        std::string here = cwd;
        enter_folder(tokens, static_cast<std::size_t>(run - tokens.begin()), here);
        for (std::size_t k = before; k < out.entry_refs.size(); ++k) {
            out.entry_refs[k].end_line = command.last_line;
            if (here != "?") out.entry_refs[k].cwd = here;
        }
        enter_folder(tokens, tokens.size(), cwd);
    }
}

// The modules one line of Python imports: `from a.b import c` -> a.b; `import a.b as x, d` -> a.b, d.
// `from a.b import (` and `from a.b import \` name a.b too, their names on the lines below (mochi's
// README, whose API block was read as importing nothing). Relative imports name nothing outside their file.
std::vector<std::string> imported_modules(std::string_view line) {
    std::vector<std::string> out;
    const auto tokens = tokens_of(line);
    if (tokens.size() >= 3 && tokens[0] == "from" && tokens[2] == "import" && tokens[1].front() != '.') {
        out.push_back(tokens[1]);
    } else if (tokens.size() >= 2 && tokens[0] == "import") {
        for (std::size_t k = 1; k < tokens.size(); ++k) {
            if (tokens[k] == "as") {
                ++k;
                continue;
            }
            out.push_back(tokens[k]);
        }
    }
    std::vector<std::string> valid;
    for (const auto& m : out)
        if (!m.empty() && std::all_of(m.begin(), m.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }) &&
            !std::isdigit(static_cast<unsigned char>(m.front())))
            valid.push_back(m);
    return valid;
}

// The imports in a document's Python code: fenced blocks of Markdown (```python, ``` with no
// language, ~~~), reStructuredText's `.. code-block:: python` and `::` blocks, and doctest lines
// (`>>> import pkg`) anywhere. A shell block's lines are commands, read by script_lines.
void documented_imports(std::string_view text, FileFacts& out) {
    enum class Block { none, python, other, rst };
    Block block = Block::none;
    std::string fence;
    std::size_t rst_indent = 0;
    for_each_line(text, [&](std::string_view line, int line_no) {
        const std::size_t indent = std::min(line.find_first_not_of(" \t"), line.size());
        std::string_view body = line.substr(indent);
        if (block == Block::python || block == Block::other) {
            if (body.compare(0, fence.size(), fence) == 0) {
                block = Block::none;
                return;
            }
        } else if (body.compare(0, 3, "```") == 0 || body.compare(0, 3, "~~~") == 0) {
            fence = std::string(body.substr(0, 3));
            std::string info(body.substr(3));
            info.erase(0, info.find_first_not_of(" \t{."));
            info = info.substr(0, info.find_first_of(" \t}"));
            std::transform(info.begin(), info.end(), info.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            block = info.empty() || info == "python" || info == "py" || info == "python3" || info == "pycon" || info == "ipython" ? Block::python : Block::other;
            return;
        } else if (block == Block::rst) {
            if (!body.empty() && indent <= rst_indent) block = Block::none;
        }
        const auto starts = [&](std::string_view prefix) { return body.substr(0, prefix.size()) == prefix; };
        if (block == Block::none && (starts(".. code-block:: ") || starts(".. code:: ") || starts(".. sourcecode:: "))) {
            const std::string_view lang = body.substr(body.find("::") + 3);
            if (lang.compare(0, 6, "python") == 0 || lang.compare(0, 2, "py") == 0) {
                block = Block::rst;
                rst_indent = indent;
            }
            return;
        }
        const bool doctest = body.compare(0, 4, ">>> ") == 0;
        if (doctest) body.remove_prefix(4);
        if (block != Block::python && block != Block::rst && !doctest) return;
        for (const auto& module : imported_modules(body)) {
            EntryRef ref{module, true, line_no};
            ref.documented_import = true;
            out.entry_refs.push_back(std::move(ref));
        }
    });
}

int line_of(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

void pyproject_facts(std::string_view text, FileFacts& out) {
    toml::table doc;
    try {
        doc = toml::parse(text);
    } catch (const toml::parse_error&) {
        return;
    }
    for (const char* table : {"project.scripts", "project.gui-scripts", "tool.poetry.scripts"}) {
        const auto* t = doc.at_path(table).as_table();
        if (!t) continue;
        for (const auto& [name, node] : *t) {
            const auto* value = node.as_string();
            if (!value) continue;
            const std::string target = value->get().substr(0, value->get().find(':'));
            if (!target.empty()) out.entry_refs.push_back({target, true, line_of(node)});
        }
    }
    for (const char* key : {"project.name", "tool.poetry.name"})
        if (auto name = doc.at_path(key).value<std::string>()) out.project_names.push_back(*name);
    if (const auto* packages = doc.at_path("tool.poetry.packages").as_array())
        for (const auto& p : *packages)
            if (const auto* t = p.as_table())
                if (auto include = (*t)["include"].value<std::string>()) out.project_names.push_back(*include);
    if (const auto* packages = doc.at_path("tool.setuptools.packages").as_array())
        for (const auto& p : *packages)
            if (auto name = p.value<std::string>()) out.project_names.push_back(name->substr(0, name->find('.')));
}

void setup_cfg_facts(std::string_view text, FileFacts& out) {
    std::string section, key;
    int line_no = 0;
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);) {
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty() && line.front() == '[') {
            section = line.substr(1, line.find(']') - 1);
            continue;
        }
        const bool indented = !line.empty() && (line.front() == ' ' || line.front() == '\t');
        std::string value = line;
        if (!indented) {
            const auto eq = line.find('=');
            if (eq == std::string::npos) continue;
            key = line.substr(0, line.find_last_not_of(" \t", eq - 1) + 1);
            value = line.substr(eq + 1);
            if (section == "metadata" && key == "name") {
                value.erase(0, value.find_first_not_of(" \t"));
                if (!value.empty()) out.project_names.push_back(value);
                continue;
            }
        }
        if (section != "options.entry_points" || (key != "console_scripts" && key != "gui_scripts")) continue;
        // "name = pkg.module:function"
        const auto eq = value.find('=');
        const auto colon = value.find(':');
        if (eq == std::string::npos || colon == std::string::npos || colon < eq) continue;
        std::string module = value.substr(eq + 1, colon - eq - 1);
        module.erase(0, module.find_first_not_of(" \t"));
        module.erase(module.find_last_not_of(" \t") + 1);
        if (!module.empty()) out.entry_refs.push_back({module, true, line_no});
    }
}

}  // namespace

FileFacts entry_facts(FileKind kind, std::string_view text) {
    FileFacts out;
    switch (kind) {
        case FileKind::shell:
        case FileKind::dockerfile:
        case FileKind::makefile: script_lines(text, out, false); break;
        case FileKind::markdown:
            script_lines(text, out, true);
            documented_imports(text, out);
            break;
        case FileKind::pyproject: pyproject_facts(text, out); break;
        case FileKind::setup_cfg: setup_cfg_facts(text, out); break;
        case FileKind::cmake: cmake_module_facts(text, out); break;
        default: break;
    }
    return out;
}

}  // namespace mpsport::program
