// MPS op-support tables: generated from PyTorch's own native_functions.yaml (per-backend dispatch)
// and common_mps.py (the MPS test suite's expected failures), then read to predict how each op
// observed in a train step behaves on MPS.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mpsport {

enum class MpsSupport { native, composite, fallback, unknown };
std::string_view to_string(MpsSupport s);

struct MpsTable {
    std::string torch_version;
    std::map<std::string, MpsSupport> ops;  // "aten::name" or "aten::name.overload"
    std::set<std::string> forced_fallback;   // registered to the CPU fallback by MPSFallback.mm
    bool forced_fallback_known = false;
    std::vector<std::string> unsupported_dtypes;  // float64, complex128
    // OpInfo name -> dtypes the MPS test suite expects to fail as unimplemented ("*": all dtypes).
    std::map<std::string, std::vector<std::string>> unimplemented_xfail;
    std::set<std::string> complex_ops;  // OpInfo names with complex64 support

    // Support of one overload; an overload absent from the table falls back to its base name.
    MpsSupport lookup(const std::string& op) const;
};

struct MpsPrediction {
    std::string status;  // native | fallback | unsupported-dtype | unknown
    std::string note;
};

// Predicts MPS behaviour of an op given the dtypes it ran with.
MpsPrediction predict(const MpsTable& table, const std::string& op, const std::vector<std::string>& dtypes);

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
std::string mps_table_to_json(const MpsTable& table);
MpsTable mps_table_from_json(const std::string& text, const std::string& origin);
// rules/mps/mps-ops-<version>.json
std::filesystem::path mps_table_path(const std::filesystem::path& rules_dir, const std::string& version);
MpsTable load_mps_table(const std::filesystem::path& rules_dir, const std::string& version);

// Regenerates the bundled tables (2.6.0 and 2.14.1) from PyTorch's files in `data_dir`
// (../shared/data/pytorch) into `rules_dir`/mps; returns the files written.
std::vector<std::filesystem::path> generate_bundled_tables(const std::filesystem::path& data_dir,
                                                           const std::filesystem::path& rules_dir);

// The versions for which bundled tables exist, and the default target.
inline constexpr const char* kDefaultTargetTorch = "2.14.1";
// MPSFallback.mm's TORCH_LIBRARY_IMPL(aten, MPS) fallback registrations in v2.6.0 (SOURCES.md).
const std::vector<std::string>& forced_fallback_2_6_0();

}  // namespace mpsport
