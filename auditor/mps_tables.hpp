// Generates the MPS op-support tables and the Python-to-aten op maps (rules/mps/) from PyTorch's own
// native_functions.yaml (per-backend dispatch, python_module, variants) and common_mps.py (the MPS test
// suite's expected failures), plus the hand-kept rules/mps/python-names.yaml. The model they fill, and
// its readers, are in core/mps_tables.hpp: the static pass and the audit share it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/mps_tables.hpp"

namespace YAML { class Node; }

namespace mpsport {

struct TableSources {
    std::filesystem::path native_functions;
    std::optional<std::filesystem::path> common_mps;
    std::string torch_version;
    // Ops MPSFallback.mm forces onto the CPU for this version; empty and unknown where its source is unavailable.
    std::vector<std::string> forced_fallback;
    bool forced_fallback_known = false;
};

// Builds the table; throws std::runtime_error naming the file on malformed input.
MpsTable generate_mps_table(const TableSources& sources);

// Builds the Python-name map of one version from its native_functions.yaml and the hand-kept
// python-names.yaml; throws std::runtime_error naming the file on malformed input.
PythonOpMap generate_python_op_map(const std::filesystem::path& native_functions, const std::filesystem::path& hand_names,
                                   const std::string& torch_version);

// Regenerates the bundled tables and maps (every bundled version) from PyTorch's files in `data_dir`
// (../shared/data/pytorch) into `rules_dir`/mps; returns the files written.
std::vector<std::filesystem::path> generate_bundled_tables(const std::filesystem::path& data_dir,
                                                           const std::filesystem::path& rules_dir);

// MPSFallback.mm's TORCH_LIBRARY_IMPL(aten, MPS) fallback registrations in v2.6.0 (SOURCES.md).
const std::vector<std::string>& forced_fallback_2_6_0();

}  // namespace mpsport
