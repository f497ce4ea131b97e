// MPS op coverage from source: which calls reach aten ops that have no MPS kernel (per PyTorch
// version), which return complex128 because their input is float64, and which make sparse tensors.
// The op knowledge is data: rules/mps/ tables, shared with the runtime audit (core/mps_tables.hpp).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/match.hpp"
#include "analyzer/python/syntax.hpp"
#include "core/mps_tables.hpp"

namespace mpsport::python {

struct AnalysisInput;

struct OpTables {
    MpsTable target;     // the --target-torch version
    MpsTable newest;     // the newest bundled version (the same as target when that is the newest)
    PythonOpMap names;   // Python names of the target version
    MpsMessages messages;  // what PyTorch prints (rules/mps/runtime-messages.yaml)
};

// Throws std::runtime_error naming the missing or malformed file.
std::unique_ptr<OpTables> load_op_tables(const std::filesystem::path& rules_dir, const std::string& target_torch);

// Literals that must occur in a file for an op of it to matter: the last part of every Python name
// that reaches an op without an MPS kernel in the target version, with its call parenthesis ("take(",
// "eig(", "AdaptiveAvgPool3d("). Derived from the tables so that the pre-filter and the tables never disagree.
std::vector<std::string> fallback_trigger_literals(const OpTables& tables, const Rule& rule);

void mps_op_support(const AnalysisInput& in, const Rule& rule, std::vector<Match>& out);
void mps_complex128_result(const AnalysisInput& in, const Rule& rule, std::vector<Match>& out);
void mps_sparse_layout(const AnalysisInput& in, const Rule& rule, std::vector<Match>& out);

}  // namespace mpsport::python
