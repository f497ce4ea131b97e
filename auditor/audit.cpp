#include "auditor/audit.hpp"

#include <cstdlib>
#include <fmt/format.h>

#include "auditor/trace.hpp"
#include "core/paths.hpp"

namespace fs = std::filesystem;

namespace mpsport {

fs::path locate_probe_dir() {
    if (const char* env = std::getenv("MPSPORT_PROBE_DIR"); env && *env) return env;
    std::error_code ec;
    const fs::path installed = executable_dir() / ".." / "share" / "mpsport" / "probe";
    if (fs::exists(installed / "sitecustomize.py", ec)) return installed;
    return source_dir() / "auditor" / "probe";
}

nlohmann::json complete_trace(nlohmann::json trace, const LaunchResult& launch, const AuditOptions& options) {
    const bool from_probe = trace.is_object() && trace.value("schema", "") == kTraceSchema;
    if (!from_probe) {
        trace = {{"schema", kTraceSchema}, {"status", "incomplete"}, {"producer", "launcher"},
                 {"steps", {{"requested", options.steps}, {"completed", 0}, {"forward", false}, {"backward", false}}}};
        std::string reason;
        if (launch.timed_out)
            reason = fmt::format("timed out after {:.0f}s and the probe wrote no trace (hung outside Python?)", options.timeout_s);
        else if (launch.signal)
            reason = fmt::format("killed by signal {} before the probe wrote a trace", launch.signal);
        else
            reason = fmt::format("the command exited with status {} and the probe wrote no trace: is it a Python program, "
                                 "run by an interpreter that reads PYTHONPATH?", launch.exit_code);
        trace["reason"] = reason;
    } else if (launch.timed_out && trace.value("status", "") != "complete") {
        trace["reason"] = fmt::format("timed out after {:.0f}s; {}", options.timeout_s, trace.value("reason", ""));
    }
    trace["process"] = {{"command", options.command},
                        {"exit_code", launch.exit_code},
                        {"signal", launch.signal},
                        {"timed_out", launch.timed_out},
                        {"wall_s", launch.seconds},
                        {"stopped_by_probe", launch.exit_code == kProbeDoneExitCode},
                        {"output_tail", launch.output_tail}};
    return trace;
}

AuditRun run_python_audit(const AuditOptions& options) {
    std::error_code ec;
    fs::create_directories(options.out_dir, ec);
    if (ec) throw std::runtime_error(options.out_dir.generic_string() + ": cannot create the output folder (" + ec.message() + ")");
    const fs::path probe_dir = fs::absolute(locate_probe_dir());
    if (!fs::exists(probe_dir / "sitecustomize.py", ec))
        throw std::runtime_error(probe_dir.generic_string() + ": probe not found; set MPSPORT_PROBE_DIR to the folder holding sitecustomize.py");
    const fs::path probe_trace = fs::absolute(options.out_dir) / "probe-trace.json";
    fs::remove(probe_trace, ec);

    LaunchOptions lo;
    lo.argv = options.command;
    lo.timeout_s = options.timeout_s;
    lo.echo = options.echo;
    const char* old_path = std::getenv("PYTHONPATH");
    lo.env["PYTHONPATH"] = probe_dir.string() + (old_path && *old_path ? std::string(":") + old_path : std::string());
    lo.env["MPSPORT_PROBE"] = "1";
    lo.env["MPSPORT_PROBE_TRACE"] = probe_trace.string();
    lo.env["MPSPORT_PROBE_STEPS"] = std::to_string(options.steps);
    lo.env["MPSPORT_PROBE_DEVICE"] = options.device;
    lo.env["MPSPORT_PROBE_COMPARE"] = options.compare;
    lo.env["MPSPORT_PROBE_OBSERVER"] = options.observer;
    lo.env["MPSPORT_PROBE_RTOL"] = fmt::format("{}", options.rtol);
    lo.env["MPSPORT_PROBE_ATOL"] = fmt::format("{}", options.atol);
    lo.env["PYTHONUNBUFFERED"] = "1";

    AuditRun run;
    run.launch = launch(lo);
    if (!run.launch.started) throw std::runtime_error(run.launch.launch_error);
    nlohmann::json probe;
    if (fs::exists(probe_trace, ec)) {
        try {
            probe = load_trace_json(probe_trace);
        } catch (const std::exception&) {
            probe = nullptr;  // half-written by a killed process: the launcher writes its own
        }
    }
    run.trace = complete_trace(std::move(probe), run.launch, options);
    run.trace_path = options.out_dir / "trace.json";
    write_file_atomically(run.trace_path, run.trace.dump(1) + "\n");
    fs::remove(probe_trace, ec);
    return run;
}

}  // namespace mpsport
