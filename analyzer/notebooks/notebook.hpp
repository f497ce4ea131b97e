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
    // Why this is a notebook made for a hosted service (Colab, Kaggle): "its metadata has 'colab'",
    // "a cell names colab.research.google.com"; empty when nothing says so.
    std::string hosted;
    // Why this is an nbdev notebook, whose `#| export` cells are the source of the package's modules
    // (generated from them and committed beside): "cell 3 is `#| export`"; empty otherwise. Its
    // exported cells read as comments (the modules hold that code); the rest are development runs.
    std::string nbdev;
};

// What marks a notebook made for a hosted GPU service (rules/program.yaml tooling.hosted_notebooks).
struct HostedMarkers {
    std::vector<std::string> metadata_keys;  // top-level metadata keys: colab, kaggle
    std::vector<std::string> cell_strings;   // in any cell: colab.research.google.com, google.colab
};

// IPython magics and shell escapes (%, %%, !) become comments so line numbers stay aligned.
// Throws std::runtime_error when the notebook is not valid nbformat JSON.
NotebookSource notebook_to_python(std::string_view json_text, const HostedMarkers& hosted = {});

}  // namespace mpsport::notebooks
