#include "auditor/audit.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <regex>
#include <fmt/format.h>

#include "auditor/trace.hpp"
#include "core/paths.hpp"

namespace fs = std::filesystem;

namespace mpsport {
namespace {

// probe-trace.rank<N>.json files written by the ranks of a torchrun command, by rank.
std::map<int, fs::path> rank_traces(const fs::path& out_dir) {
    std::map<int, fs::path> out;
    std::error_code ec;
    static const std::regex name(R"(probe-trace\.rank(\d+)\.json)");
    for (const auto& e : fs::directory_iterator(out_dir, ec)) {
        std::smatch m;
        const std::string file = e.path().filename().string();
        if (std::regex_match(file, m, name)) out[std::stoi(m[1])] = e.path();
    }
    return out;
}

// One trace per rank becomes trace.rank<N>.json; the merged trace is rank 0's (the lowest rank's) with
// a distributed section over all ranks: world size, backend, ranks complete, collectives summed.
nlohmann::json merge_rank_traces(const fs::path& out_dir) {
    const auto ranks = rank_traces(out_dir);
    if (ranks.empty()) return nullptr;
    nlohmann::json merged;
    std::map<std::string, nlohmann::json> collectives;
    std::set<std::string> uncounted_hooks;
    int complete = 0, traced = 0, ddp = 0;
    std::string reasons;
    std::error_code ec;
    for (const auto& [rank, path] : ranks) {
        nlohmann::json t;
        try {
            t = load_trace_json(path);
        } catch (const std::exception&) {
            continue;
        }
        ++traced;
        fs::rename(path, out_dir / fmt::format("trace.rank{}.json", rank), ec);
        if (t.value("status", "") == "complete") ++complete;
        else reasons += fmt::format("{}rank {}: {}", reasons.empty() ? "" : "; ", rank, t.value("reason", ""));
        const auto d = t.value("distributed", nlohmann::json::object());
        ddp = std::max(ddp, d.value("ddp_wraps", 0));
        for (const auto& h : d.value("uncounted_comm_hooks", nlohmann::json::array()))
            if (h.is_string()) uncounted_hooks.insert(h.get<std::string>());
        for (const auto& c : d.value("collectives", nlohmann::json::array())) {
            auto& sum = collectives[c.value("op", "")];
            if (sum.is_null()) sum = c;
            else sum["count"] = sum.value("count", 0L) + c.value("count", 0L);
        }
        if (merged.is_null()) merged = std::move(t);
    }
    if (merged.is_null()) return nullptr;
    auto& d = merged["distributed"];
    d["collectives"] = nlohmann::json::array();
    for (auto& [op, c] : collectives) d["collectives"].push_back(c);
    d["ranks_traced"] = traced;
    d["ranks_complete"] = complete;
    d["ddp_wraps"] = ddp;
    if (!uncounted_hooks.empty()) d["uncounted_comm_hooks"] = uncounted_hooks;
    d.erase("rank");
    if (complete < traced) {
        merged["status"] = "incomplete";
        merged["reason"] = reasons;
    }
    return merged;
}

}  // namespace

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
    for (const auto& old : rank_traces(options.out_dir)) fs::remove(old.second, ec);

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
    lo.env["MPSPORT_PROBE_REMAP"] = options.remap.empty() ? "" : "cuda=" + options.remap;
    lo.env["MPSPORT_PROBE_LEAK_THRESHOLD"] = fmt::format("{}", options.leak_threshold);
    lo.env["MPSPORT_PROBE_TIME"] = options.time ? "1" : "";
    lo.env["MPSPORT_PROBE_MESSAGES"] = options.messages;

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
    if (probe.is_null()) probe = merge_rank_traces(options.out_dir);
    run.trace = complete_trace(std::move(probe), run.launch, options);
    run.trace_path = options.out_dir / "trace.json";
    write_file_atomically(run.trace_path, run.trace.dump(1) + "\n");
    fs::remove(probe_trace, ec);
    return run;
}

AuditRun run_sweep(const AuditOptions& options, const std::vector<int>& batches) {
    const bool placeholder = std::any_of(options.command.begin(), options.command.end(),
                                         [](const std::string& a) { return a.find("{batch}") != std::string::npos; });
    if (!placeholder)
        throw std::runtime_error("--sweep: put {batch} where the command takes its batch size, e.g. -- python train.py --batch-size {batch}");
    nlohmann::json table = nlohmann::json::array();
    AuditRun last;
    for (int batch : batches) {
        AuditOptions o = options;
        for (auto& a : o.command)
            for (std::size_t at; (at = a.find("{batch}")) != std::string::npos;) a.replace(at, 7, std::to_string(batch));
        o.out_dir = options.out_dir / fmt::format("batch-{}", batch);
        if (options.echo) std::fprintf(stderr, "mpsport: sweep: batch %d\n", batch);
        last = run_python_audit(o);
        const auto& t = last.trace;
        const auto timing = t.value("timing", nlohmann::json::object());
        const auto mem = t.value("memory", nlohmann::json::object());
        const double step = timing.value("unobserved_step_s", 0.0);
        table.push_back({{"batch", batch}, {"complete", t.value("status", "") == "complete" && step > 0}, {"reason", t.value("reason", "")},
                         {"step_s", step}, {"throughput", step > 0 ? batch / step : 0.0},
                         {"rss_peak_bytes", mem.value("rss_peak_bytes", 0.0)}, {"accelerator_bytes", mem.value("accelerator_allocated_bytes", 0.0)},
                         {"trace", last.trace_path.generic_string()}});
    }
    last.trace["sweep"] = table;
    last.trace_path = options.out_dir / "trace.json";
    write_file_atomically(last.trace_path, last.trace.dump(1) + "\n");
    return last;
}

std::string parse_remap(const std::string& spec) {
    for (const char* target : {"cpu", "mps"})
        if (spec == std::string("cuda=") + target) return target;
    throw std::runtime_error("--remap '" + spec + "': use --remap cuda=cpu or --remap cuda=mps");
}

std::vector<int> parse_sweep(const std::string& spec) {
    std::vector<int> out;
    std::size_t start = 0;
    while (start <= spec.size()) {
        const std::size_t comma = std::min(spec.find(',', start), spec.size());
        const std::string item = spec.substr(start, comma - start);
        char* end = nullptr;
        const long n = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || n <= 0 || n > 1 << 20)
            throw std::runtime_error("--sweep '" + spec + "': give batch sizes as positive integers separated by commas, e.g. 8,16,32,64");
        out.push_back(static_cast<int>(n));
        start = comma + 1;
    }
    return out;
}

}  // namespace mpsport
