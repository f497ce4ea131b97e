// Jupyter notebooks: code cells joined into one Python text, each line mapped back to (cell, line).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpsport::notebooks {

struct NotebookSource {
    std::string python;
    std::vector<std::pair<int, int>> cell_lines;  // per line of `python`: 1-based code cell, 1-based line in it
};

// IPython magics and shell escapes (%, %%, !) become comments so line numbers stay aligned.
// Throws std::runtime_error when the notebook is not valid nbformat JSON.
NotebookSource notebook_to_python(std::string_view json_text);

}  // namespace mpsport::notebooks
