// Python module names from repository paths, and how an import spells them: shared by the passes
// that follow a function to the files that import it (analyzer/call_guards.cpp,
// analyzer/grad_callers.cpp) and by the per-file half of the caller-guard pass.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "core/program_facts.hpp"

namespace mpsport::python {

// "pkg/ops/knn.py" -> "pkg.ops.knn"; "pkg/ops/__init__.py" -> "pkg.ops"
inline std::string module_of_path(std::string path) {
    auto strip = [&](std::string_view suffix) {
        if (path.size() < suffix.size() || path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
        path.resize(path.size() - suffix.size());
        return true;
    };
    strip(".py");
    if (path == "__init__") return {};
    strip("/__init__");
    std::replace(path.begin(), path.end(), '/', '.');
    return path;
}

// Whether a name is a class's by PEP 8's CapWords, whatever its leading underscores: `CudaEnvironment`,
// `_SpeechCommands`; not `_C` (a compiled module), `MSDA` or `knn`.
inline bool capwords_name(std::string_view name) {
    const std::size_t word = name.find_first_not_of('_');
    return word != std::string_view::npos && word + 1 < name.size() && std::isupper(static_cast<unsigned char>(name[word])) &&
           std::islower(static_cast<unsigned char>(name[word + 1]));
}

// "pkg.ops.knn" -> "pkg.ops"; "" for a top-level module
inline std::string parent_module(const std::string& dotted) {
    const auto dot = dotted.rfind('.');
    return dot == std::string::npos ? std::string() : dotted.substr(0, dot);
}

// Where a file's `from . import x` starts: its package (a package's __init__.py is that package).
inline std::string relative_base(const std::string& path) {
    const bool init = path == "__init__.py" || (path.size() > 12 && path.compare(path.size() - 12, 12, "/__init__.py") == 0);
    return init ? module_of_path(path) : parent_module(module_of_path(path));
}

// Whether an absolute import's `spelled` name is the module `full` (a path's name, which may carry
// more leading folders): "utils.torch_utils" names "src.utils.torch_utils".
inline bool names_module(const std::string& full, std::string_view spelled) {
    if (spelled.empty() || spelled.size() > full.size()) return false;
    return full.compare(full.size() - spelled.size(), spelled.size(), spelled) == 0 &&
           (full.size() == spelled.size() || full[full.size() - spelled.size() - 1] == '.');
}

// What `imp` in the file at `importer` names: a relative import resolved to its module's dotted
// name, an absolute one as spelled.
inline std::string import_target(const ImportFact& imp, const std::string& importer) {
    if (imp.level == 0) return imp.module;
    std::string base = relative_base(importer);
    for (int i = 1; i < imp.level; ++i) base = parent_module(base);
    return imp.module.empty() ? base : (base.empty() ? imp.module : base + "." + imp.module);
}

}  // namespace mpsport::python
