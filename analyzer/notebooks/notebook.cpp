#include "analyzer/notebooks/notebook.hpp"

#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>

namespace mpsport::notebooks {
namespace {

std::string first_line(const std::string& text) {
    const std::size_t begin = text.find_first_not_of(" \t\n");
    if (begin == std::string::npos) return "";
    const std::size_t end = text.find('\n', begin);
    std::string line = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    return line;
}

// nbdev's export directives on a cell's first line: `#| export`, `#|exporti`, `# export`, `#exports`
// (nbdev 1's form), optionally naming a module (`#| export core`).
bool nbdev_export(const std::string& text) {
    static const std::regex directive(R"(^#\s*\|?\s*export[is]?(\s.*)?$)");
    return std::regex_match(first_line(text), directive);
}

}  // namespace

NotebookSource notebook_to_python(std::string_view json_text, const HostedMarkers& hosted) {
    nlohmann::json nb;
    try {
        nb = nlohmann::json::parse(json_text.begin(), json_text.end());
    } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number too large
        throw std::runtime_error(std::string("notebook is not valid JSON (") + e.what() + ")");
    }
    if (!nb.is_object() || !nb.contains("cells") || !nb["cells"].is_array())
        throw std::runtime_error("notebook has no 'cells' list (not nbformat 4?)");
    NotebookSource out;
    if (nb.contains("metadata") && nb["metadata"].is_object())
        for (const auto& key : hosted.metadata_keys)
            if (out.hosted.empty() && nb["metadata"].contains(key)) out.hosted = "its metadata has '" + key + "'";
    int code_cell = 0;
    for (const auto& cell : nb["cells"]) {
        if (!cell.is_object()) continue;
        // The cell's text, a string or a list of strings (anything else reads as nothing).
        std::string text;
        if (const auto src = cell.find("source"); src != cell.end()) {
            if (src->is_string()) {
                text = src->get<std::string>();
            } else if (src->is_array()) {
                for (const auto& piece : *src)
                    if (piece.is_string()) text += piece.get<std::string>();
            }
        }
        for (const auto& s : hosted.cell_strings)
            if (out.hosted.empty() && text.find(s) != std::string::npos) out.hosted = "a cell names " + s;
        // A cell_type that is not a string is not a code cell (value() would throw a bare type_error).
        if (!cell.contains("cell_type") || cell["cell_type"] != "code") continue;
        ++code_cell;
        // A %%cell magic (%%bash, %%writefile) makes the whole cell something other than Python; an
        // nbdev `#| export` cell is a module's source, scanned there.
        const bool exported = nbdev_export(text);
        if (exported && out.nbdev.empty()) out.nbdev = "cell " + std::to_string(code_cell) + " is `" + first_line(text) + "`";
        const bool cell_magic = exported || text.compare(0, 2, "%%") == 0;
        int line_in_cell = 0;
        std::size_t pos = 0;
        while (pos <= text.size()) {
            std::size_t end = text.find('\n', pos);
            if (end == std::string::npos) end = text.size();
            std::string line = text.substr(pos, end - pos);
            std::size_t first = line.find_first_not_of(" \t");
            if (cell_magic) line.insert(0, "# ");
            else if (first != std::string::npos && (line[first] == '%' || line[first] == '!')) line.insert(first, "# ");
            out.python += line;
            out.python += '\n';
            out.cell_lines.emplace_back(code_cell, ++line_in_cell);
            if (end == text.size()) break;
            pos = end + 1;
        }
    }
    return out;
}

}  // namespace mpsport::notebooks
