// The trial port (--remap), step recognition for real training loops, multi-process commands and the
// performance acceptance (memory watermark, time against the CPU, sweep, fallbacks per step, record),
// each on a script of corpus/runtime-cases run by /usr/bin/python3 with Debian's torch 1.13 (CPU only).
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "auditor/audit.hpp"
#include "auditor/mps_tables.hpp"
#include "auditor/trace.hpp"
#include "core/paths.hpp"
#include "reports/checklist.hpp"
#include "reports/op_evidence.hpp"
#include "reports/runtime_sections.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace mpsport;

namespace {

const char* kPython = "/usr/bin/python3";

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// torchrun for two local ranks on a rendezvous port of their own: `--standalone` takes 29400 on
// torch 1.13, so two such tests run side by side by ctest -j2 collide ("Address already in use").
std::vector<std::string> torchrun_two_ranks(const std::string& script) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = 29400;
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
        port = ntohs(addr.sin_port);
    if (fd >= 0) ::close(fd);
    return {"/usr/bin/torchrun", "--nnodes", "1", "--rdzv_backend", "c10d", "--rdzv_endpoint", "localhost:" + std::to_string(port),
            "--redirects", "2", "--tee", "2", "--nproc_per_node", "2", script};
}
bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

struct Audited {
    AuditRun run;
    Evidence evidence;
};

fs::path cases() { return test::source_dir() / "corpus" / "runtime-cases"; }

class RuntimeTest : public ::testing::Test {
protected:
    AuditOptions options(const std::string& script, int steps) {
        AuditOptions o;
        o.command = {kPython, (cases() / script).string()};
        o.out_dir = m_out.path() / script;
        o.steps = steps;
        o.timeout_s = 90;
        o.echo = false;
        return o;
    }
    static Audited run(const AuditOptions& o) {
        AuditRun r = run_python_audit(o);
        Evidence ev = evidence_from_trace(r.trace, load_mps_table(test::rules_dir(), "2.14.1"), r.trace_path.string());
        return {std::move(r), std::move(ev)};
    }
    static const Redirect* redirect(const Evidence& ev, const std::string& api) {
        for (const auto& r : ev.redirects)
            if (r.api == api) return &r;
        return nullptr;
    }
    static int kind_count(const Evidence& ev, const std::string& kind) {
        for (const auto& [k, n] : ev.step_kinds)
            if (k == kind) return n;
        return 0;
    }
    test::TempDir m_out;
};

// ---- trial port ---------------------------------------------------------------------------------

TEST_F(RuntimeTest, RemapCpuRunsACudaScriptOnAMachineWithoutAGpuAndRecordsEveryRedirect) {
    AuditOptions o = options("cuda_script.py", 2);
    o.remap = "cpu";
    o.device = "cpu";
    const test::ScopedEnv fallback("PYTORCH_ENABLE_MPS_FALLBACK", "1");
    const Audited a = run(o);
    const auto& t = a.run.trace;
    ASSERT_EQ(t["status"], "complete") << t["reason"] << "\n" << t["process"]["output_tail"];
    EXPECT_FALSE(t["env"]["cuda_available"].get<bool>()) << "the trace tells the host's real CUDA, not the remapped answer";
    for (const char* role : {"params", "grads", "inputs", "targets", "loss"})
        EXPECT_EQ(t["roles"][role]["devices"], nlohmann::json::array({"cpu"})) << role;
    EXPECT_EQ(a.evidence.remap_target, "cpu");
    // API -> line of cuda_script.py where it is first called
    const std::vector<std::pair<std::string, int>> expected = {
        {"init_process_group(\"nccl\")", 12}, {"torch.backends.cudnn.benchmark", 13}, {"torch.cuda.manual_seed()", 14},
        {"torch.device(\"cuda\")", 15},        {"Module.cuda()", 16},                  {"torch.cuda.amp.GradScaler", 18},
        {"torch.cuda.Stream", 20},             {"torch.cuda.Event", 21},               {"Tensor.to(\"cuda\")", 23},
        {"torch.cuda.synchronize()", 33},      {"torch.cuda.amp.autocast", 26},        {"torch.cuda.max_memory_allocated()", 34}};
    for (const auto& [api, line] : expected) {
        const Redirect* r = redirect(a.evidence, api);
        ASSERT_NE(r, nullptr) << api << " was not recorded";
        EXPECT_TRUE(ends_with(r->first_frame, "runtime-cases/cuda_script.py:" + std::to_string(line))) << api << ": " << r->first_frame;
        EXPECT_GE(r->count, 1) << api;
    }
    EXPECT_EQ(redirect(a.evidence, "init_process_group(\"nccl\")")->to, "gloo");
    EXPECT_EQ(redirect(a.evidence, "Tensor.to(\"cuda\")")->count, 3) << "once per step: two traced, one timed";
    EXPECT_TRUE(a.evidence.blocked.empty());
    ASSERT_TRUE(a.evidence.distributed.has_value());
    EXPECT_EQ(a.evidence.distributed->backend, "gloo");
    EXPECT_EQ(kind_count(a.evidence, "GradScaler.step"), 3);
    // the reproducibility record: command, versions, the seed the script set, the MPS variables
    std::map<std::string, std::string> record(a.evidence.record.begin(), a.evidence.record.end());
    EXPECT_TRUE(contains(record["command"], "cuda_script.py")) << record["command"];
    EXPECT_EQ(record["torch"].substr(0, 4), "1.13");
    // the frame is relative to the folder the audit ran in: the source tree under ctest
    EXPECT_TRUE(contains(record["seeds"], "torch.cuda.manual_seed(0) at ")) << record["seeds"];
    EXPECT_TRUE(ends_with(record["seeds"], "corpus/runtime-cases/cuda_script.py:14")) << record["seeds"];
    EXPECT_EQ(record["MPS variables"], "PYTORCH_ENABLE_MPS_FALLBACK=1");
}

TEST_F(RuntimeTest, RemapRedirectsDevicePropertiesAndTheLegacyCudaTensorTypes) {
    AuditOptions o = options("legacy_cuda.py", 2);
    o.remap = "cpu";
    const Audited a = run(o);
    const auto& t = a.run.trace;
    ASSERT_EQ(t["status"], "complete") << t["reason"] << "\n" << t["process"]["output_tail"];
    for (const char* role : {"params", "inputs"}) EXPECT_EQ(t["roles"][role]["devices"], nlohmann::json::array({"cpu"})) << role;
    // API -> (line of legacy_cuda.py where it is first called, calls: two traced steps and the timed one)
    const std::vector<std::tuple<std::string, int, long>> expected = {
        {"torch.cuda.get_device_properties()", 7, 1},   {"torch.cuda.get_device_capability()", 10, 1},
        {"torch.cuda.FloatTensor", 14, 6},              {"Tensor.type(torch.cuda.LongTensor)", 15, 3}};
    for (const auto& [api, line, count] : expected) {
        const Redirect* r = redirect(a.evidence, api);
        ASSERT_NE(r, nullptr) << api << " was not recorded";
        EXPECT_TRUE(ends_with(r->first_frame, "runtime-cases/legacy_cuda.py:" + std::to_string(line))) << api << ": " << r->first_frame;
        EXPECT_EQ(r->count, count) << api;
    }
    // the stand-in's figures are recorded with the redirect, and the script printed them
    const std::string stand_in = redirect(a.evidence, "torch.cuda.get_device_properties()")->to;
    EXPECT_TRUE(contains(stand_in, "stand-in: mpsport remap: cpu, total_memory ")) << stand_in;
    EXPECT_TRUE(contains(stand_in, "multi_processor_count ")) << stand_in;
    EXPECT_TRUE(contains(t["process"]["output_tail"].get<std::string>(), "device mpsport remap: cpu memory ")) << t["process"]["output_tail"];
    EXPECT_TRUE(contains(t["process"]["output_tail"].get<std::string>(), "capability (0, 0)")) << t["process"]["output_tail"];
    EXPECT_TRUE(a.evidence.blocked.empty());
    EXPECT_TRUE(contains(assess({}, &a.evidence, test::bundled_catalogue(), {}).items[3].detail, "completed under --remap cuda=cpu ("));
}

TEST_F(RuntimeTest, WithoutRemapTheSameScriptStopsBeforeItsFirstStep) {
    const Audited a = run(options("cuda_script.py", 1));
    EXPECT_EQ(a.run.trace["status"], "incomplete");
    EXPECT_TRUE(contains(a.run.trace["reason"], "crashed after 0 optimizer step(s)")) << a.run.trace["reason"];
    EXPECT_TRUE(a.evidence.remap_target.empty());
}

TEST_F(RuntimeTest, RedirectsBecomeRuntimeFindingsOrMergeWithStaticOnesAtTheSamePlace) {
    AuditOptions o = options("cuda_script.py", 1);
    o.remap = "cpu";
    Audited a = run(o);
    ASSERT_EQ(a.run.trace["status"], "complete") << a.run.trace["reason"];
    ScanResult scan = test::bundled_scanner().scan(cases(), {cases() / "cuda_script.py"}, ScanOptions{});
    std::set<int> static_lines;
    for (const auto& f : scan.findings) static_lines.insert(f.location.line);
    join_remap_evidence(scan.findings, a.evidence);
    int merged = 0, runtime_only = 0;
    for (const auto& r : a.evidence.redirects) {
        ASSERT_FALSE(r.finding.empty()) << r.api << " is not linked to a finding";
        const auto f = std::find_if(scan.findings.begin(), scan.findings.end(), [&](const Finding& x) { return x.fingerprint == r.finding; });
        ASSERT_NE(f, scan.findings.end()) << r.api;
        EXPECT_EQ(f->location.path, "cuda_script.py") << r.api << ": runtime findings take the scan's path for the file";
        EXPECT_TRUE(ends_with(r.first_frame, "cuda_script.py:" + std::to_string(f->location.line))) << r.api;
        EXPECT_TRUE(std::any_of(f->observed.begin(), f->observed.end(), [&](const std::string& s) { return contains(s, r.api); })) << r.api;
        if (static_lines.count(f->location.line)) {
            EXPECT_EQ(f->source, "static+runtime") << r.api;
            ++merged;
        } else {
            EXPECT_EQ(f->source, "runtime") << r.api;
            EXPECT_EQ(f->rule_id, "runtime-remap-redirect");
            ++runtime_only;
        }
    }
    EXPECT_GE(merged, 3) << "the static pass flags .cuda(), torch.device(\"cuda\") and the NCCL backend on their lines";
    EXPECT_TRUE(std::is_sorted(scan.findings.begin(), scan.findings.end(),
                               [](const Finding& x, const Finding& y) { return x.location.line < y.location.line; }));
}

TEST_F(RuntimeTest, ACudaOnlyExtensionIsReportedAsNotRedirectableWithItsCaller) {
    AuditOptions o = options("cuda_extension.py", 1);
    o.remap = "cpu";
    const Audited a = run(o);
    EXPECT_EQ(a.run.trace["status"], "incomplete");
    EXPECT_TRUE(fs::exists(a.run.trace_path));
    ASSERT_EQ(a.evidence.blocked.size(), 1u);
    const RemapBlocked& b = a.evidence.blocked[0];
    EXPECT_EQ(b.kind, "cuda-extension");
    EXPECT_EQ(b.api, "fake_cuda_ext.fused_bias_gelu");
    EXPECT_TRUE(ends_with(b.frame, "runtime-cases/cuda_extension.py:11")) << b.frame;
    EXPECT_EQ(b.exception, "RuntimeError: fused_bias_gelu: input must be a CUDA tensor");
    EXPECT_NE(redirect(a.evidence, "Module.cuda()"), nullptr) << "what ran before the failure is still recorded";
    EXPECT_TRUE(contains(runtime_sections_text(a.evidence), "NOT REDIRECTABLE (cuda-extension): fake_cuda_ext.fused_bias_gelu at "));
}

TEST_F(RuntimeTest, CudaGraphsAreNotRedirectableAndSaySo) {
    AuditOptions o = options("cuda_graph.py", 1);
    o.remap = "cpu";
    const Audited a = run(o);
    EXPECT_EQ(a.run.trace["status"], "incomplete");
    ASSERT_EQ(a.evidence.blocked.size(), 1u) << a.run.trace["remap"].dump();
    EXPECT_EQ(a.evidence.blocked[0].kind, "cuda-graphs");
    EXPECT_EQ(a.evidence.blocked[0].api, "torch.cuda.CUDAGraph");
    EXPECT_TRUE(ends_with(a.evidence.blocked[0].frame, "runtime-cases/cuda_graph.py:7")) << a.evidence.blocked[0].frame;
    EXPECT_TRUE(contains(a.run.trace["reason"], "cannot be redirected to cpu")) << a.run.trace["reason"];
}

TEST_F(RuntimeTest, ReportWithARemapTraceShowsRuntimeFindingsAndSections) {
    AuditOptions o = options("cuda_script.py", 1);
    o.remap = "cpu";
    const Audited a = run(o);
    ASSERT_EQ(a.run.trace["status"], "complete") << a.run.trace["reason"];
    const fs::path json = m_out.path() / "report.json", html = m_out.path() / "report.html";
    const std::string base = std::string(MPSPORT_BINARY) + " report --no-cache " + (cases() / "cuda_script.py").string() + " --trace " +
                             a.run.trace_path.string();
    ASSERT_EQ(std::system((base + " --format json -o " + json.string() + " 2>/dev/null").c_str()), 0);
    ASSERT_EQ(std::system((base + " --format html -o " + html.string() + " 2>/dev/null").c_str()), 0);
    const auto report = nlohmann::json::parse(read_file(json));
    std::map<std::string, int> sources;
    for (const auto& f : report["findings"]) ++sources[f["source"].get<std::string>()];
    EXPECT_GE(sources["static+runtime"], 10) << "the static pass flags each redirected CUDA call on its line";
    EXPECT_EQ(report["runtime"]["remap"]["target"], "cpu");
    EXPECT_GE(report["runtime"]["remap"]["redirects"].size(), 10u);
    for (const auto& r : report["runtime"]["remap"]["redirects"]) EXPECT_FALSE(r["finding"].get<std::string>().empty()) << r.dump();
    const std::string page = read_file(html);
    EXPECT_TRUE(contains(page, "<h3>Trial port: CUDA remapped to cpu</h3>")) << page.substr(0, 400);
    EXPECT_TRUE(contains(page, "<h3>Record</h3>"));
}

// ---- step recognition -----------------------------------------------------------------------------

struct LoopCase {
    const char* script;
    int steps;
    const char* kind;  // how the updates were recognised
    int updates;       // traced steps + the timed one
    int backwards;     // backward passes seen; -1: at least one (LBFGS calls its closure a varying number of times)
};

void PrintTo(const LoopCase& c, std::ostream* os) { *os << c.script; }

class LoopStyles : public RuntimeTest, public ::testing::WithParamInterface<LoopCase> {};

TEST_P(LoopStyles, EveryLoopStyleCompletesItsSteps) {
    const LoopCase& c = GetParam();
    const Audited a = run(options(c.script, c.steps));
    const auto& t = a.run.trace;
    ASSERT_EQ(t["status"], "complete") << c.script << ": " << t["reason"];
    EXPECT_EQ(t["steps"]["completed"], c.steps);
    EXPECT_TRUE(t["steps"]["forward"].get<bool>()) << c.script;
    EXPECT_TRUE(t["steps"]["timed"].get<bool>()) << c.script;
    EXPECT_EQ(kind_count(a.evidence, c.kind), c.updates) << c.script;
    if (c.backwards < 0) EXPECT_GE(a.evidence.backwards, c.updates) << c.script;
    else EXPECT_EQ(a.evidence.backwards, c.backwards) << c.script;
    EXPECT_EQ(t["process"]["exit_code"], kProbeDoneExitCode) << c.script << ": stopped by the probe, not run to its end";
}

INSTANTIATE_TEST_SUITE_P(RuntimeCases, LoopStyles,
                         ::testing::Values(LoopCase{"manual_update.py", 2, "manual update", 3, 3},     // p.data.add_(p.grad)
                                           LoopCase{"manual_no_grad.py", 2, "manual update", 3, 3},    // w -= lr * w.grad under no_grad
                                           LoopCase{"closure_lbfgs.py", 2, "closure optimizer", 3, -1},  // backward inside step()
                                           LoopCase{"gan_two_optimizers.py", 2, "optimizer", 3, 6},    // D and G step once each
                                           LoopCase{"grad_accumulation.py", 2, "optimizer", 3, 12},    // 4 backwards per step
                                           LoopCase{"grad_scaler.py", 2, "GradScaler.step", 3, 3},
                                           // skorch's NeuralNet.fit (Debian python3-skorch): optimizer.step(closure) per batch
                                           LoopCase{"skorch_fit.py", 2, "closure optimizer", 3, 3}),
                         [](const auto& param_info) {
                             std::string n = param_info.param.script;
                             return n.substr(0, n.find('.'));
                         });

TEST_F(RuntimeTest, BackwardsWithoutAnyUpdateStopAfterTheLimitInsteadOfTheTimeout) {
    const Audited a = run(options("backward_only.py", 1));
    const auto& t = a.run.trace;
    EXPECT_EQ(t["status"], "incomplete");
    EXPECT_TRUE(contains(t["reason"], "16 backward pass(es) since the last parameter update and no update")) << t["reason"];
    EXPECT_TRUE(contains(t["reason"], "stopped instead of running to the timeout")) << t["reason"];
    EXPECT_FALSE(t["process"]["timed_out"].get<bool>());
    EXPECT_LT(a.run.launch.seconds, 60.0);
    EXPECT_EQ(a.evidence.backwards, 16);
}

// ---- multi-process ---------------------------------------------------------------------------------

TEST_F(RuntimeTest, TorchrunGivesEveryRankTheProbeAndMergesTheirTraces) {
    AuditOptions o = options("ddp_gloo.py", 2);
    // --redirects/--tee 2: Debian's torch 1.13 on Python 3.11 cannot parse their default "0" (an IntFlag change)
    o.command = torchrun_two_ranks((cases() / "ddp_gloo.py").string());
    o.timeout_s = 120;
    const Audited a = run(o);
    const auto& t = a.run.trace;
    ASSERT_EQ(t["status"], "complete") << t["reason"] << "\n" << t["process"]["output_tail"];
    EXPECT_EQ(t["process"]["exit_code"], 0) << "the ranks end with 0 so that torchrun does not stop the others";
    for (const char* rank : {"trace.rank0.json", "trace.rank1.json"}) EXPECT_TRUE(fs::exists(o.out_dir / rank)) << rank;
    ASSERT_TRUE(a.evidence.distributed.has_value());
    const Distributed& d = *a.evidence.distributed;
    EXPECT_EQ(d.world_size, 2);
    EXPECT_EQ(d.backend, "gloo");
    EXPECT_EQ(d.ranks_traced, 2);
    EXPECT_EQ(d.ranks_complete, 2);
    EXPECT_EQ(d.ddp_wraps, 1);
    std::map<std::string, long> counts;
    for (const auto& c : d.collectives) counts[c.op] = c.count;
    EXPECT_EQ(counts["broadcast"], 2) << "one per rank";
    EXPECT_EQ(counts["all_reduce"], 4) << "one per traced step and rank";
    // DDP's own reductions, seen through the probe's comm hook: one bucket (a Linear(8, 1)) per backward,
    // three backwards per rank (two traced steps and the timed one), at the line that built the DDP wrap
    EXPECT_EQ(counts["all_reduce (DDP gradient buckets)"], 6);
    for (const auto& c : d.collectives)
        if (c.op == "all_reduce (DDP gradient buckets)") {
            EXPECT_TRUE(ends_with(c.first_frame, "runtime-cases/ddp_gloo.py:9")) << c.first_frame;
        }
    EXPECT_TRUE(contains(runtime_sections_text(a.evidence), "world size 2, backend gloo, 2 rank trace(s), 2 complete"));
}

TEST_F(RuntimeTest, ABuiltinDdpCommHookIsCountedThroughItsPythonTwin) {
    AuditOptions o = options("ddp_builtin_hook.py", 2);
    o.command = torchrun_two_ranks((cases() / "ddp_builtin_hook.py").string());
    o.timeout_s = 120;
    const Audited a = run(o);
    const auto& t = a.run.trace;
    ASSERT_EQ(t["status"], "complete") << t["reason"] << "\n" << t["process"]["output_tail"];
    ASSERT_TRUE(a.evidence.distributed.has_value());
    const Distributed& d = *a.evidence.distributed;
    std::map<std::string, long> counts;
    for (const auto& c : d.collectives) counts[c.op] = c.count;
    // FP16_COMPRESS runs as torch's fp16_compress_hook: one bucket per backward, three backwards per rank
    EXPECT_EQ(counts["all_reduce (DDP gradient buckets, builtin FP16_COMPRESS hook)"], 6);
    EXPECT_EQ(counts.count("all_reduce (DDP gradient buckets)"), 0u) << "the probe's default hook must not be added beside the user's";
    EXPECT_TRUE(d.uncounted_comm_hooks.empty());

    // A hook type a newer torch may add has no twin: the probe lets it run and names it, uncounted.
    nlohmann::json newer = t;
    newer["distributed"]["uncounted_comm_hooks"] = {"BF16_COMPRESS"};
    const Evidence ev = evidence_from_trace(newer, load_mps_table(test::rules_dir(), "2.14.1"), "t");
    ASSERT_TRUE(ev.distributed.has_value());
    EXPECT_EQ(ev.distributed->uncounted_comm_hooks, std::vector<std::string>{"BF16_COMPRESS"});
    EXPECT_TRUE(contains(runtime_sections_text(ev), "DDP builtin comm hook BF16_COMPRESS: it reduces the gradients in C++"));
}

// ---- performance acceptance ---------------------------------------------------------------------------

TEST_F(RuntimeTest, MemoryGrowingStepAfterStepIsASuspectedLeak) {
    AuditOptions o = options("leak.py", 5);
    o.leak_threshold = 0.2;
    const Audited a = run(o);
    ASSERT_EQ(a.run.trace["status"], "complete") << a.run.trace["reason"];
    ASSERT_TRUE(a.evidence.watermark.has_value());
    const MemoryWatermark& w = *a.evidence.watermark;
    EXPECT_EQ(w.series, "rss");
    EXPECT_EQ(w.bytes.size(), 6u) << "five traced steps and the timed one";
    EXPECT_DOUBLE_EQ(w.threshold, 0.2) << "--leak-threshold reaches the trace";
    EXPECT_GT(w.rise, 0.2);
    EXPECT_TRUE(w.leak);
    for (std::size_t i = 1; i < w.bytes.size(); ++i) EXPECT_GT(w.bytes[i], w.bytes[i - 1] + 8 * 1048576.0) << "16 MiB kept per step";
    EXPECT_TRUE(contains(runtime_sections_text(a.evidence), "SUSPECTED LEAK"));
    nlohmann::json lenient = a.run.trace;
    lenient["memory"]["leak_threshold"] = 5.0;
    EXPECT_FALSE(evidence_from_trace(lenient, load_mps_table(test::rules_dir(), "2.14.1"), "t").watermark->leak);
}

TEST_F(RuntimeTest, ADataLoaderBoundStepIsFlaggedByTheTwentyTwoPercentRule) {
    AuditOptions o = options("loader_bound.py", 3);
    o.compare = "cpu";
    o.time = true;
    const Audited a = run(o);
    ASSERT_EQ(a.run.trace["status"], "complete") << a.run.trace["reason"];
    ASSERT_TRUE(a.evidence.time_against_cpu.has_value()) << a.run.trace["compare"].dump();
    const TimeAgainstCpu& t = *a.evidence.time_against_cpu;
    EXPECT_GT(t.data_s, 0.5 * t.accelerator_iteration_s) << "eight 2 ms samples per batch against a tiny linear step";
    EXPECT_GT(t.cpu_step_s, 0.0);
    EXPECT_LT(t.faster, kMinSpeedup);
    EXPECT_TRUE(t.bottleneck);
    const std::string text = runtime_sections_text(a.evidence);
    EXPECT_TRUE(contains(text, "the data pipeline or host-device copies are the likely bottleneck")) << text;
    EXPECT_TRUE(contains(text, "in the data loader")) << text;
    ASSERT_TRUE(a.evidence.watermark.has_value());
    EXPECT_FALSE(a.evidence.watermark->leak) << "nothing is kept across steps";
}

TEST_F(RuntimeTest, FallbacksAreCountedPerStepEveryStepOrOnce) {
    const Audited a = run(options("fallback_steps.py", 3));
    ASSERT_EQ(a.run.trace["status"], "complete") << a.run.trace["reason"];
    std::map<std::string, const OpUse*> ops;
    for (const auto& op : a.evidence.ops) ops[op.op] = &op;
    ASSERT_TRUE(ops.count("aten::take"));
    ASSERT_TRUE(ops.count("aten::linalg_eig"));
    EXPECT_EQ(ops["aten::take"]->per_step, (std::vector<long>{1, 1, 1}));
    EXPECT_EQ(fallback_frequency(*ops["aten::take"]), "every step (x1 per step)");
    EXPECT_EQ(ops["aten::linalg_eig"]->per_step, (std::vector<long>{1, 0, 0}));
    EXPECT_EQ(fallback_frequency(*ops["aten::linalg_eig"]), "once (step 1 only: set-up or the first step)");
}

TEST_F(RuntimeTest, SweepRunsOncePerBatchSizeAndChartsThroughput) {
    AuditOptions o = options("sweep_mlp.py", 1);
    o.command.insert(o.command.end(), {"--batch", "{batch}"});
    const AuditRun r = run_sweep(o, {4, 64});
    const Evidence ev = evidence_from_trace(r.trace, load_mps_table(test::rules_dir(), "2.14.1"), "t");
    ASSERT_EQ(ev.sweep.size(), 2u);
    EXPECT_EQ(ev.sweep[0].batch, 4);
    EXPECT_EQ(ev.sweep[1].batch, 64);
    for (const auto& p : ev.sweep) {
        EXPECT_TRUE(p.complete) << p.batch << ": " << p.reason;
        EXPECT_NEAR(p.throughput, p.batch / p.step_s, 1e-6);
        EXPECT_GT(p.rss_peak_bytes, 0.0);
        EXPECT_TRUE(fs::exists(o.out_dir / ("batch-" + std::to_string(p.batch)) / "trace.json"));
    }
    EXPECT_TRUE(contains(r.trace["process"]["command"].dump(), "\"64\"")) << "the last run's command has {batch} replaced";
    const std::string html = runtime_sections_html(ev);
    EXPECT_TRUE(contains(html, "<svg class=\"sweep\"")) << html;
    EXPECT_TRUE(contains(html, "<title>batch 64:")) << html;
    EXPECT_TRUE(contains(runtime_sections_md(ev), "| batch | step s | samples/s |"));
    AuditOptions no_placeholder = options("sweep_mlp.py", 1);
    EXPECT_THROW(run_sweep(no_placeholder, {4}), std::runtime_error);
}

TEST(RuntimeOptions, RemapAndSweepSpecsAreCheckedWithAClearMessage) {
    EXPECT_EQ(parse_remap("cuda=cpu"), "cpu");
    EXPECT_EQ(parse_remap("cuda=mps"), "mps");
    try {
        parse_remap("cuda=rocm");
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(contains(e.what(), "use --remap cuda=cpu or --remap cuda=mps")) << e.what();
    }
    EXPECT_EQ(parse_sweep("8,16,32,64"), (std::vector<int>{8, 16, 32, 64}));
    for (const char* bad : {"", "8,,16", "8,x", "-4", "0"}) EXPECT_THROW(parse_sweep(bad), std::runtime_error) << bad;
}

}  // namespace
