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

// Typed reads of a trace's fields: a field of the wrong type is an error naming the file and the
// field ("trace.json: field 'ops[3].count' must be a number, not string"), never a bare
// json type_error. A missing field takes its default.
class Fields {
public:
    Fields(const nlohmann::json& j, std::string origin, std::string where = "") : m_j(j), m_origin(std::move(origin)), m_where(std::move(where)) {
        if (!m_j.is_object() && !m_j.is_null()) fail("", "an object");
    }
    std::string str(const char* key, const std::string& fallback = "") const { return get(key, fallback, &nlohmann::json::is_string, "a string"); }
    bool flag(const char* key) const { return get(key, false, &nlohmann::json::is_boolean, "true or false"); }
    long long integer(const char* key) const { return get(key, 0LL, &nlohmann::json::is_number_integer, "an integer"); }
    double number(const char* key) const { return get(key, 0.0, &nlohmann::json::is_number, "a number"); }
    Fields object(const char* key) const {
        static const nlohmann::json empty = nlohmann::json::object();
        const nlohmann::json* v = find(key);
        if (v && !v->is_object()) fail(key, "an object");
        return Fields(v ? *v : empty, m_origin, path(key));
    }
    // The elements of an array field (empty when missing), each checked to be an object.
    std::vector<Fields> objects(const char* key) const {
        std::vector<Fields> out;
        const nlohmann::json* v = find(key);
        if (!v) return out;
        if (!v->is_array()) fail(key, "an array");
        for (std::size_t i = 0; i < v->size(); ++i) out.emplace_back((*v)[i], m_origin, path(key) + "[" + std::to_string(i) + "]");
        return out;
    }
    std::vector<std::string> strings(const char* key) const {
        std::vector<std::string> out;
        const nlohmann::json* v = find(key);
        if (!v) return out;
        if (!v->is_array()) fail(key, "an array of strings");
        for (const auto& s : *v) {
            if (!s.is_string()) fail(key, "an array of strings");
            out.push_back(s.get<std::string>());
        }
        return out;
    }
    std::vector<std::pair<std::string, Fields>> members() const {
        std::vector<std::pair<std::string, Fields>> out;
        for (const auto& [k, v] : m_j.items()) out.emplace_back(k, Fields(v, m_origin, path(k.c_str())));
        return out;
    }
    bool has(const char* key) const { return find(key) != nullptr; }
    const nlohmann::json& json() const { return m_j; }

private:
    const nlohmann::json* find(const char* key) const {
        if (!m_j.is_object()) return nullptr;
        auto it = m_j.find(key);
        return it == m_j.end() || it->is_null() ? nullptr : &*it;
    }
    template <typename T>
    T get(const char* key, T fallback, bool (nlohmann::json::*is)() const noexcept, const char* what) const {
        const nlohmann::json* v = find(key);
        if (!v) return fallback;
        if (!((*v).*is)()) fail(key, what);
        return v->get<T>();
    }
    std::string path(const char* key) const { return m_where.empty() ? key : m_where + "." + key; }
    [[noreturn]] void fail(const char* key, const char* what) const {
        const nlohmann::json* v = *key ? find(key) : &m_j;
        const std::string field = *key ? path(key) : m_where;
        throw std::runtime_error(m_origin + ": field '" + field + "' must be " + what + ", not " + (v ? v->type_name() : "missing") +
                                 " (is this a trace written by `mpsport audit`?)");
    }

    const nlohmann::json& m_j;
    std::string m_origin;
    std::string m_where;
};

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
    for (const auto& h : d.value("uncounted_comm_hooks", nlohmann::json::array()))
        if (h.is_string()) out.uncounted_comm_hooks.push_back(h.get<std::string>());
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

// The sections read by the helpers above: a wrong type there names the file and the section.
template <typename F>
void read_section(const char* section, const std::string& origin, F&& read) {
    try {
        read();
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(origin + ": field '" + section + "' has a value of the wrong type (" + e.what() +
                                 "; is this a trace written by `mpsport audit`?)");
    }
}

Evidence evidence_from_trace(const nlohmann::json& t_json, const MpsTable& table, const std::string& origin) {
    const Fields t(t_json, origin);
    Evidence ev;
    ev.trace_path = origin;
    ev.complete = t.str("status") == "complete";
    ev.incomplete_reason = t.str("reason");
    const Fields env = t.object("env");
    ev.device = t.str("device", env.str("device"));
    ev.torch_version = env.str("torch");
    ev.python_version = env.str("python");
    ev.platform = env.str("system") + "/" + env.str("machine");
    ev.mps_built = env.flag("mps_built");
    ev.mps_available = env.flag("mps_available");
    ev.predicted = !ev.mps_available;
    ev.target_torch = table.torch_version;
    const Fields steps = t.object("steps");
    ev.optimizer_steps = static_cast<int>(steps.integer("completed"));
    ev.forward = steps.flag("forward");
    ev.backward = steps.flag("backward");
    for (const auto& [role, info] : t.object("roles").members()) ev.roles.push_back({role, info.strings("devices"), info.strings("dtypes")});
    for (const auto& op : t.objects("ops")) {
        const std::string name = op.str("op");
        if (name.rfind("aten::", 0) != 0) continue;  // profiler scopes and other non-aten entries
        const auto dtypes = op.strings("dtypes");
        const MpsPrediction p = predict(table, name, dtypes);
        if (p.status == "unsupported-dtype") ev.float64_ops.push_back(name + " [" + join(dtypes) + "]");
        if (p.status == "native") continue;
        OpUse use{name, op.str("phase", "other"), join(op.strings("devices")), join(dtypes), static_cast<long>(op.integer("count")),
                  op.str("first_frame"), p.status, p.note, "", {}};
        read_section("ops[].per_step", origin, [&] {
            for (const auto& n : op.json().value("per_step", nlohmann::json::array())) use.per_step.push_back(n.get<long>());
        });
        ev.ops.push_back(std::move(use));
    }
    for (const auto& m : t.objects("mps_messages")) ev.fallback_warnings.push_back(m.str("op", "?"));
    if (t.has("checkpoint")) {
        const Fields c = t.object("checkpoint");
        ev.checkpoint_ok = c.flag("ok");
        ev.checkpoint_detail = c.str("detail");
    }
    if (t.has("compare")) {
        const Fields c = t.object("compare");
        ev.numerics_ok = c.flag("within_tolerance");
        ev.numerics_detail = c.str("detail");
    }
    ev.step_seconds = t.object("timing").number("unobserved_step_s");
    read_section("steps", origin, [&] { read_steps(t_json, ev); });
    read_section("remap", origin, [&] { read_remap(t_json, ev); });
    read_section("memory", origin, [&] { read_watermark(t_json, ev); });
    read_section("timing / compare.time", origin, [&] { read_time_against_cpu(t_json, ev); });
    read_section("record", origin, [&] { read_record(t_json, ev); });
    read_section("distributed", origin, [&] { read_distributed(t_json, ev); });
    read_section("sweep", origin, [&] {
        for (const auto& p : t_json.value("sweep", nlohmann::json::array()))
            ev.sweep.push_back({p.value("batch", 0), p.value("complete", false), p.value("reason", ""), p.value("step_s", 0.0),
                                p.value("throughput", 0.0), p.value("rss_peak_bytes", 0.0), p.value("accelerator_bytes", 0.0)});
    });
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
