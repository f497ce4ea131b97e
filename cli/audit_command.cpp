#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <set>

#include "analyzer/cuda/clang_engine.hpp"
#include "auditor/audit.hpp"
#include "auditor/launcher.hpp"
#include "auditor/trace.hpp"
#include "cli/commands.hpp"
#include "core/paths.hpp"
#include "core/rule_catalogue.hpp"
#include "reports/runtime_sections.hpp"

namespace fs = std::filesystem;

namespace mpsport::cli {

namespace {

// mpsport-native sits next to mpsport (or on $MPSPORT_NATIVE); it is built only when LibTorch was found.
fs::path native_helper() {
    const char* env = std::getenv("MPSPORT_NATIVE");
    const fs::path p = env && *env ? fs::path(env) : executable_dir() / "mpsport-native";
    std::error_code ec;
    if (!fs::exists(p, ec))
        throw std::runtime_error("mpsport-native not found next to mpsport: this build has no LibTorch. Rebuild with LibTorch "
                                 "(Debian: libtorch-dev; pip torch: -DCMAKE_PREFIX_PATH=$(python3 -c 'import torch.utils; "
                                 "print(torch.utils.cmake_prefix_path)')); the Python audit works without it");
    return p;
}

LaunchResult run_native(std::vector<std::string> args, double timeout) {
    LaunchOptions lo;
    lo.argv = std::move(args);
    lo.argv.insert(lo.argv.begin(), native_helper().string());
    lo.timeout_s = timeout;
    LaunchResult r = launch(lo);
    if (!r.started) throw std::runtime_error(r.launch_error);
    return r;
}

// Ops whose predicted MPS status changes between the two bundled tables.
std::string version_changes(const nlohmann::json& trace, const MpsTable& target, const MpsTable& other) {
    std::string out;
    std::set<std::string> seen;
    for (const auto& op : trace.value("ops", nlohmann::json::array())) {
        const std::string name = op.value("op", "");
        if (name.rfind("aten::", 0) != 0 || !seen.insert(name).second) continue;
        const MpsSupport a = other.lookup(name), b = target.lookup(name);
        if (a == b) continue;
        out += fmt::format("    {:<34} {} in {} -> {} in {}\n", name, to_string(a), other.torch_version, to_string(b), target.torch_version);
    }
    return out;
}

}  // namespace

int run_audit(const AuditArgs& args) {
    const fs::path rules = locate_rules_dir(args.rules_dir ? std::optional<fs::path>(*args.rules_dir) : std::nullopt);
    const MpsTable table = load_mps_table(rules, args.target_torch);
    nlohmann::json trace;
    fs::path trace_path;
    if (args.torchscript) {
        if (!args.example) throw std::runtime_error("--torchscript needs --example inputs.pt (the model's example input)");
        fs::create_directories(args.out);
        trace_path = fs::path(args.out) / "trace.json";
        std::vector<std::string> a = {"step", "--model", *args.torchscript, "--inputs", *args.example, "--loss", args.loss,
                                      "--device", args.device, "--steps", std::to_string(args.steps), "--out", trace_path.string()};
        if (args.targets) a.insert(a.end(), {"--targets", *args.targets});
        const LaunchResult r = run_native(a, args.timeout);
        if (r.exit_code != 0) throw std::runtime_error("the native step failed (exit " + std::to_string(r.exit_code) + ")");
        trace = load_trace_json(trace_path);
    } else {
        if (args.command.empty()) throw std::runtime_error("audit: give the training command after --, e.g. mpsport audit -- python train.py");
        AuditOptions o;
        o.command = args.command;
        o.steps = args.steps;
        o.timeout_s = args.timeout;
        o.device = args.device;
        o.out_dir = args.out;
        o.compare = args.compare;
        o.observer = args.observer;
        o.rtol = args.rtol;
        o.atol = args.atol;
        o.echo = !args.quiet;
        if (!args.remap.empty()) o.remap = parse_remap(args.remap);
        if (o.device == "auto" && !o.remap.empty()) o.device = o.remap;
        o.leak_threshold = args.leak_threshold;
        o.time = args.time;
        o.messages = load_mps_messages(rules).matches_json();
        if (o.time && o.compare != "cpu") throw std::runtime_error("--time needs --compare cpu: it times the step replayed on the CPU");
        AuditRun run = args.sweep.empty() ? run_python_audit(o) : run_sweep(o, parse_sweep(args.sweep));
        trace = std::move(run.trace);
        trace_path = run.trace_path;
    }
    const Evidence ev = evidence_from_trace(trace, table, trace_path.generic_string());
    std::cout << "\n" << summarize_evidence(ev, trace) << runtime_sections_text(ev);
    const auto& versions = bundled_torch_versions();
    const std::string other_version = versions.front() == args.target_torch ? versions.back() : versions.front();
    const std::string changes = version_changes(trace, table, load_mps_table(rules, other_version));
    if (!changes.empty()) std::cout << "  ops whose MPS support differs between PyTorch " << other_version << " and " << args.target_torch << ":\n" << changes;
    std::cout << "  trace: " << trace_path.generic_string() << " (combine with a scan: mpsport report PATH --trace " << trace_path.generic_string()
              << ")\n";
    const bool mps_problems = std::any_of(ev.ops.begin(), ev.ops.end(), [](const OpUse& op) { return op.mps_status != "unknown"; });
    return ev.complete && !mps_problems ? 0 : 1;
}

int run_doctor() {
    // The static side first: whether C++/CUDA sources are read at all in this build.
    std::cout << "C++/CUDA engine: " << cuda::ClangEngine::description() << "\n" << std::flush;
    const LaunchResult r = run_native({"doctor"}, 300);
    return r.exit_code == 0 ? 0 : 2;
}

}  // namespace mpsport::cli
