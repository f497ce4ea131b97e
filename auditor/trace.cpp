#include "auditor/trace.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/paths.hpp"

namespace fs = std::filesystem;

namespace mpsport {
namespace {

std::string join(const std::vector<std::string>& v, const char* sep = ",") {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
    return out;
}

std::vector<std::string> strings(const nlohmann::json& j, const char* key) {
    std::vector<std::string> out;
    if (j.contains(key) && j[key].is_array())
        for (const auto& s : j[key])
            if (s.is_string()) out.push_back(s.get<std::string>());
    return out;
}

std::string text_of(const nlohmann::json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_null()) return "-";
    return v.dump();
}

void read_remap(const nlohmann::json& t, Evidence& ev) {
    const auto remap = t.value("remap", nlohmann::json::object());
    if (!remap.is_object() || remap.empty()) return;
    ev.remap_target = remap.value("target", "");
    for (const auto& r : remap.value("redirects", nlohmann::json::array()))
        ev.redirects.push_back({r.value("api", ""), r.value("to", ""), r.value("count", 0L), r.value("first_frame", ""), ""});
    for (const auto& b : remap.value("blocked", nlohmann::json::array()))
        ev.blocked.push_back({b.value("kind", ""), b.value("api", ""), b.value("exception", ""), b.value("frame", "")});
}

// The series that shows a leak: what the accelerator allocated when it allocated anything, else RSS.
void read_watermark(const nlohmann::json& t, Evidence& ev) {
    const auto mem = t.value("memory", nlohmann::json::object());
    const auto steps = mem.value("steps", nlohmann::json::array());
    if (steps.size() < 2) return;
    MemoryWatermark w;
    w.threshold = mem.value("leak_threshold", kLeakRise);
    bool accelerator = false;
    for (const auto& s : steps) accelerator = accelerator || s.value("accelerator_bytes", 0.0) > 0;
    w.series = accelerator ? "accelerator" : "rss";
    for (const auto& s : steps) w.bytes.push_back(s.value(accelerator ? "accelerator_bytes" : "rss_bytes", 0.0));
    if (w.bytes.front() > 0) w.rise = (w.bytes.back() - w.bytes.front()) / w.bytes.front();
    w.leak = w.rise > w.threshold;
    ev.watermark = std::move(w);
}

void read_time_against_cpu(const nlohmann::json& t, Evidence& ev) {
    for (const auto& d : t.value("timing", nlohmann::json::object()).value("data_s_per_step", nlohmann::json::array()))
        ev.data_s_per_step.push_back(d.get<double>());
    const auto time = t.value("compare", nlohmann::json::object()).value("time", nlohmann::json::object());
    if (!time.contains("accelerator_iteration_s") || !time.contains("cpu_iteration_s")) return;
    TimeAgainstCpu c;
    c.accelerator_iteration_s = time.value("accelerator_iteration_s", 0.0);
    c.accelerator_step_s = time.value("accelerator_step_s", 0.0);
    c.data_s = time.value("data_s", 0.0);
    c.cpu_step_s = time.value("cpu_step_s", 0.0);
    c.cpu_iteration_s = time.value("cpu_iteration_s", 0.0);
    c.faster = c.cpu_iteration_s > 0 ? 1.0 - c.accelerator_iteration_s / c.cpu_iteration_s : 0.0;
    c.bottleneck = c.faster < kMinSpeedup;
    ev.time_against_cpu = c;
}

void read_record(const nlohmann::json& t, Evidence& ev) {
    const auto rec = t.value("record", nlohmann::json::object());
    if (rec.empty()) return;
    const auto cmd = t.contains("process") ? t["process"].value("command", nlohmann::json::array()) : rec.value("command", nlohmann::json::array());
    std::vector<std::string> words;
    for (const auto& w : cmd) words.push_back(text_of(w));
    ev.record.push_back({"command", join(words, " ")});
    for (const char* key : {"torch", "cuda_version", "python", "numpy", "os", "cwd"})
        if (rec.contains(key) && !text_of(rec[key]).empty()) ev.record.push_back({key, text_of(rec[key])});
    std::string seeds;
    for (const auto& s : rec.value("seeds", nlohmann::json::array()))
        seeds += (seeds.empty() ? "" : ", ") + s.value("api", "") + "(" + text_of(s.value("value", nlohmann::json())) + ") at " + s.value("frame", "");
    ev.record.push_back({"seeds", seeds.empty() ? "none set (torch.manual_seed not called: runs are not reproducible)" : seeds});
    std::string mps_env;
    const auto env = rec.value("mps_env", nlohmann::json::object());
    for (const auto& [k, v] : env.items()) mps_env += (mps_env.empty() ? "" : ", ") + k + "=" + text_of(v);
    ev.record.push_back({"MPS variables", mps_env.empty() ? "none set (PYTORCH_ENABLE_MPS_FALLBACK, PYTORCH_MPS_HIGH_WATERMARK_RATIO unset)" : mps_env});
    if (rec.contains("deterministic_algorithms")) ev.record.push_back({"deterministic algorithms", text_of(rec["deterministic_algorithms"])});
}

void read_distributed(const nlohmann::json& t, Evidence& ev) {
    if (!t.contains("distributed") || !t["distributed"].is_object()) return;
    const auto& d = t["distributed"];
    Distributed out;
    out.world_size = d.value("world_size", 0);
    out.backend = d.value("backend", "");
    out.ranks_traced = d.value("ranks_traced", 1);
    out.ranks_complete = d.value("ranks_complete", ev.complete ? 1 : 0);
    out.ddp_wraps = d.value("ddp_wraps", 0);
    for (const auto& c : d.value("collectives", nlohmann::json::array()))
        out.collectives.push_back({c.value("op", ""), c.value("count", 0L), c.value("first_frame", "")});
    ev.distributed = std::move(out);
}

void read_steps(const nlohmann::json& t, Evidence& ev) {
    const auto steps = t.value("steps", nlohmann::json::object());
    ev.backwards = steps.value("backwards", 0);
    const auto kinds = steps.value("kinds", nlohmann::json::object());
    for (const auto& [kind, n] : kinds.items()) ev.step_kinds.push_back({kind, n.get<int>()});
}

}  // namespace

nlohmann::json load_trace_json(const fs::path& path) {
    std::string text;
    try {
        text = read_file(path);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string(e.what()) + "; write a trace with `mpsport audit --out DIR -- CMD`");
    }
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(path.generic_string() + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object() || j.value("schema", "") != kTraceSchema)
        throw std::runtime_error(path.generic_string() + ": not an mpsport trace (expected schema " + kTraceSchema + ")");
    return j;
}

Evidence evidence_from_trace(const nlohmann::json& t, const MpsTable& table, const std::string& origin) {
    Evidence ev;
    ev.trace_path = origin;
    ev.complete = t.value("status", "") == "complete";
    ev.incomplete_reason = t.value("reason", "");
    const auto env = t.value("env", nlohmann::json::object());
    ev.device = t.value("device", env.value("device", ""));
    ev.torch_version = env.value("torch", "");
    ev.python_version = env.value("python", "");
    ev.platform = env.value("system", "") + "/" + env.value("machine", "");
    ev.mps_built = env.value("mps_built", false);
    ev.mps_available = env.value("mps_available", false);
    ev.predicted = !ev.mps_available;
    ev.target_torch = table.torch_version;
    const auto steps = t.value("steps", nlohmann::json::object());
    ev.optimizer_steps = steps.value("completed", 0);
    ev.forward = steps.value("forward", false);
    ev.backward = steps.value("backward", false);
    const nlohmann::json roles = t.value("roles", nlohmann::json::object());
    for (const auto& [role, info] : roles.items()) ev.roles.push_back({role, strings(info, "devices"), strings(info, "dtypes")});
    for (const auto& op : t.value("ops", nlohmann::json::array())) {
        const std::string name = op.value("op", "");
        if (name.rfind("aten::", 0) != 0) continue;  // profiler scopes and other non-aten entries
        const auto dtypes = strings(op, "dtypes");
        const MpsPrediction p = predict(table, name, dtypes);
        if (p.status == "unsupported-dtype") ev.float64_ops.push_back(name + " [" + join(dtypes) + "]");
        if (p.status == "native") continue;
        OpUse use{name, op.value("phase", "other"), join(strings(op, "devices")), join(dtypes), op.value("count", 0L),
                  op.value("first_frame", ""), p.status, p.note, "", {}};
        for (const auto& n : op.value("per_step", nlohmann::json::array())) use.per_step.push_back(n.get<long>());
        ev.ops.push_back(std::move(use));
    }
    for (const auto& m : t.value("mps_messages", nlohmann::json::array())) ev.fallback_warnings.push_back(m.value("op", "?"));
    if (t.contains("checkpoint") && t["checkpoint"].is_object()) {
        ev.checkpoint_ok = t["checkpoint"].value("ok", false);
        ev.checkpoint_detail = t["checkpoint"].value("detail", "");
    }
    if (t.contains("compare") && t["compare"].is_object()) {
        ev.numerics_ok = t["compare"].value("within_tolerance", false);
        ev.numerics_detail = t["compare"].value("detail", "");
    }
    ev.step_seconds = t.value("timing", nlohmann::json::object()).value("unobserved_step_s", 0.0);
    read_steps(t, ev);
    read_remap(t, ev);
    read_watermark(t, ev);
    read_time_against_cpu(t, ev);
    read_record(t, ev);
    read_distributed(t, ev);
    for (const auto& p : t.value("sweep", nlohmann::json::array()))
        ev.sweep.push_back({p.value("batch", 0), p.value("complete", false), p.value("reason", ""), p.value("step_s", 0.0),
                            p.value("throughput", 0.0), p.value("rss_peak_bytes", 0.0), p.value("accelerator_bytes", 0.0)});
    return ev;
}

Evidence read_trace(const fs::path& path, const MpsTable& table) {
    return evidence_from_trace(load_trace_json(path), table, path.generic_string());
}

std::string summarize_evidence(const Evidence& ev, const nlohmann::json& t) {
    std::string out;
    out += fmt::format("Audit: {}{}\n", ev.complete ? "complete" : "INCOMPLETE", ev.incomplete_reason.empty() ? "" : " - " + ev.incomplete_reason);
    out += fmt::format("  environment: torch {}{} on {}; MPS built {}, available {}; ran on {}\n", ev.torch_version,
                       ev.python_version.empty() ? " (LibTorch)" : " / Python " + ev.python_version, ev.platform, ev.mps_built ? "yes" : "no", ev.mps_available ? "yes" : "no",
                       ev.device.empty() ? "?" : ev.device);
    out += fmt::format("  step: forward {}, backward {}, optimizer steps {}\n", ev.forward ? "yes" : "no", ev.backward ? "yes" : "no",
                       ev.optimizer_steps);
    if (!ev.roles.empty()) {
        out += "  device per role:\n";
        for (const auto& r : ev.roles)
            out += r.devices.empty() ? fmt::format("    {:<16} (no tensors)\n", r.role)
                                     : fmt::format("    {:<16} {:<14} {}\n", r.role, join(r.devices), join(r.dtypes));
    }
    out += fmt::format("  ops needing attention on MPS (predicted from PyTorch {}'s op tables{}):\n", ev.target_torch,
                       ev.predicted ? ", no MPS on this host" : "");
    int fallbacks = 0;
    for (const auto& op : ev.ops) {
        if (op.mps_status != "fallback") continue;
        ++fallbacks;
        out += fmt::format("    {:<34} {:<9} x{:<5} {:<9} {:<16} {}\n", op.op, op.mps_status, op.count, op.phase, op.dtypes,
                           op.first_frame.empty() ? "-" : op.first_frame);
    }
    if (fallbacks == 0 && ev.float64_ops.empty()) out += "    none: every op of the step has an MPS kernel\n";
    if (!ev.fallback_warnings.empty()) out += "  MPS fallback / NotImplementedError messages for: " + join(ev.fallback_warnings, ", ") + "\n";
    if (!ev.float64_ops.empty()) {
        const auto first = std::find_if(ev.ops.begin(), ev.ops.end(), [](const OpUse& op) { return op.mps_status == "unsupported-dtype"; });
        out += fmt::format("    {} op(s) ran in float64/complex128, which MPS cannot hold (first: {} at {})\n", ev.float64_ops.size(),
                           first == ev.ops.end() ? "?" : first->op, first == ev.ops.end() || first->first_frame.empty() ? "-" : first->first_frame);
    }
    if (ev.checkpoint_ok) out += fmt::format("  checkpoint round-trip: {} ({})\n", *ev.checkpoint_ok ? "ok" : "FAILED", ev.checkpoint_detail);
    if (ev.numerics_ok) out += fmt::format("  numerics vs CPU: {} ({})\n", *ev.numerics_ok ? "within tolerance" : "OUT OF TOLERANCE", ev.numerics_detail);
    const auto timing = t.value("timing", nlohmann::json::object());
    if (timing.contains("unobserved_step_s")) {
        out += fmt::format("  step time: {:.4f}s (one step after the traced ones, unobserved)", timing.value("unobserved_step_s", 0.0));
        if (timing.contains("observed_step_s")) out += fmt::format("; {:.4f}s while traced", timing.value("observed_step_s", 0.0));
        out += "\n";
    }
    const auto mem = t.value("memory", nlohmann::json::object());
    if (mem.contains("rss_peak_bytes"))
        out += fmt::format("  memory: peak RSS {:.1f} MiB, accelerator allocated {:.1f} MiB\n", mem.value("rss_peak_bytes", 0.0) / 1048576.0,
                           mem.value("accelerator_allocated_bytes", 0.0) / 1048576.0);
    return out;
}

}  // namespace mpsport
