// The audit trace (trace.json, schema mpsport.trace/1): written by the Python probe or the native
// LibTorch step, completed by the launcher, read into Evidence with MPS predictions for each op.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "auditor/mps_tables.hpp"
#include "core/evidence.hpp"

namespace mpsport {

inline constexpr const char* kTraceSchema = "mpsport.trace/1";

// Throws std::runtime_error naming the file when it is missing or not a trace.
nlohmann::json load_trace_json(const std::filesystem::path& path);
Evidence evidence_from_trace(const nlohmann::json& trace, const MpsTable& table, const std::string& origin);
Evidence read_trace(const std::filesystem::path& path, const MpsTable& table);

// The terminal summary of `mpsport audit`.
std::string summarize_evidence(const Evidence& ev, const nlohmann::json& trace);

}  // namespace mpsport
