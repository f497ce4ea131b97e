// `mpsport audit -- CMD`: run the user's own command with the probe on PYTHONPATH, then complete
// the probe's trace with what the launcher saw (exit status, timeout, output), or write one for it
// when the probe could not (killed, never started Python).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "auditor/launcher.hpp"

namespace mpsport {

struct AuditOptions {
    std::vector<std::string> command;
    int steps = 1;
    double timeout_s = 600;
    std::string device = "auto";
    std::filesystem::path out_dir = "mpsport-audit";
    std::string compare;  // "" or "cpu"
    std::string observer = "dispatch";  // dispatch (overloads, devices, frames) | native (C++; names, devices, dtypes) | profiler
    double rtol = 1e-2;  // fp32 on different hardware reduces in different orders: 1% of the largest value
    double atol = 1e-5;
    bool echo = true;
    std::string remap;  // "" or the target of --remap cuda=cpu|mps: "cpu" or "mps"
    double leak_threshold = 0.26;  // --leak-threshold: memory rise first -> last step flagged as a suspected leak
    bool time = false;  // --time with --compare cpu: time the step replayed on the CPU too
    // MpsMessages::matches_json() of the rules: how the probe finds PyTorch's MPS messages ("": its defaults)
    std::string messages;
};

// `--remap cuda=cpu` -> "cpu"; throws std::runtime_error naming the accepted forms otherwise.
std::string parse_remap(const std::string& spec);

// `--sweep 8,16,32` -> {8, 16, 32}; throws std::runtime_error on anything but positive integers.
std::vector<int> parse_sweep(const std::string& spec);


struct AuditRun {
    nlohmann::json trace;
    std::filesystem::path trace_path;
    LaunchResult launch;
};

inline constexpr int kProbeDoneExitCode = 86;  // the probe stopped the command after its steps

// Throws std::runtime_error when the command cannot be started or the trace cannot be written.
AuditRun run_python_audit(const AuditOptions& options);

// One audit per batch size, with {batch} in the command replaced; each trace in out_dir/batch-N/, and
// out_dir/trace.json is the last batch's trace with a "sweep" table of all. Throws when no
// argument of the command holds {batch}.
AuditRun run_sweep(const AuditOptions& options, const std::vector<int>& batches);

// Merges the launcher's view into the probe's trace (or makes the trace when there is none).
nlohmann::json complete_trace(nlohmann::json probe_trace, const LaunchResult& launch, const AuditOptions& options);

// auditor/probe in the source tree, or share/mpsport/probe next to an installed binary, or $MPSPORT_PROBE_DIR.
std::filesystem::path locate_probe_dir();

}  // namespace mpsport
