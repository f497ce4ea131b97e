// The runtime auditor on real training scripts (corpus/runtime-cases), run with Debian's
// /usr/bin/python3 and its torch: each test asserts the facts its trace must hold.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "auditor/audit.hpp"
#include "auditor/mps_tables.hpp"
#include "auditor/trace.hpp"
#include "reports/op_evidence.hpp"
#include "core/paths.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace mpsport;

namespace {

const char* kPython = "/usr/bin/python3";

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct Audited {
    AuditRun run;
    Evidence evidence;
};

class AuditTest : public ::testing::Test {
protected:
    Audited audit(const std::string& script, std::vector<std::string> extra = {}, double timeout = 120, const std::string& compare = "",
                  const std::string& observer = "dispatch") {
        AuditOptions o;
        o.command = {kPython, (test::source_dir() / "corpus" / "runtime-cases" / script).string()};
        o.command.insert(o.command.end(), extra.begin(), extra.end());
        o.out_dir = m_out.path() / script;
        o.timeout_s = timeout;
        o.echo = false;
        o.compare = compare;
        o.observer = observer;
        AuditRun run = run_python_audit(o);
        Evidence ev = evidence_from_trace(run.trace, load_mps_table(test::rules_dir(), "2.14.1"), run.trace_path.string());
        return {std::move(run), std::move(ev)};
    }
    static const OpUse* find_op(const Evidence& ev, const std::string& op) {
        for (const auto& o : ev.ops)
            if (o.op == op) return &o;
        return nullptr;
    }
    static bool has_op(const nlohmann::json& trace, const std::string& op, const std::string& phase) {
        for (const auto& o : trace["ops"])
            if (o["op"] == op && o["phase"] == phase) return true;
        return false;
    }
    test::TempDir m_out;
};

TEST_F(AuditTest, CleanStepRecordsDevicesOpsCheckpointAndStopsTheScript) {
    const auto a = audit("clean_mlp.py", {"--steps", "50"});
    const auto& t = a.run.trace;
    EXPECT_EQ(t["status"], "complete");
    EXPECT_EQ(t["process"]["exit_code"], kProbeDoneExitCode) << "the probe ends the script after the traced and the timed step";
    EXPECT_EQ(t["steps"]["completed"], 1);
    EXPECT_TRUE(t["steps"]["timed"].get<bool>());
    EXPECT_GT(t["timing"]["unobserved_step_s"].get<double>(), 0.0);
    for (const char* role : {"params", "grads", "optimizer_state", "inputs", "targets", "outputs", "loss"}) {
        EXPECT_EQ(t["roles"][role]["devices"], nlohmann::json::array({"cpu"})) << role;
        EXPECT_EQ(t["roles"][role]["dtypes"], nlohmann::json::array({"float32"})) << role;
    }
    EXPECT_TRUE(has_op(t, "aten::addmm", "forward"));
    EXPECT_TRUE(has_op(t, "aten::mse_loss_backward", "backward"));
    EXPECT_TRUE(has_op(t, "aten::add_.Tensor", "optimizer"));
    EXPECT_EQ(t["env"]["torch"].get<std::string>().substr(0, 4), "1.13");
    EXPECT_FALSE(t["env"]["mps_available"].get<bool>());
    EXPECT_EQ(t["env"]["dummy_tensor_device"], "cpu");
    ASSERT_TRUE(a.evidence.checkpoint_ok.has_value());
    EXPECT_TRUE(*a.evidence.checkpoint_ok) << a.evidence.checkpoint_detail;
    EXPECT_TRUE(a.evidence.ops.empty()) << "every op of this step has an MPS kernel in 2.14.1; first: " << a.evidence.ops[0].op;
    EXPECT_TRUE(a.evidence.predicted);
    EXPECT_EQ(a.run.trace_path.filename(), "trace.json");
    EXPECT_TRUE(fs::exists(a.run.trace_path));
}

TEST_F(AuditTest, Float64AtRuntimeIsFlaggedPerOpAndInTheCheckpoint) {
    const auto a = audit("float64_step.py");
    EXPECT_EQ(a.run.trace["roles"]["params"]["dtypes"], nlohmann::json::array({"float64"}));
    EXPECT_FALSE(a.evidence.float64_ops.empty());
    const OpUse* addmm = find_op(a.evidence, "aten::addmm");
    ASSERT_NE(addmm, nullptr);
    EXPECT_EQ(addmm->mps_status, "unsupported-dtype");
    EXPECT_TRUE(ends_with(addmm->first_frame, "runtime-cases/float64_step.py:12")) << addmm->first_frame;
    ASSERT_TRUE(a.evidence.checkpoint_ok.has_value());
    EXPECT_FALSE(*a.evidence.checkpoint_ok);
    EXPECT_NE(a.evidence.checkpoint_detail.find("float64"), std::string::npos);
}

TEST_F(AuditTest, OpsWithoutAnMpsKernelArePredictedAsFallbacksWithTheirFrames) {
    const auto a = audit("unsupported_op.py");
    for (const auto& [op, frame] : std::vector<std::pair<std::string, std::string>>{
             {"aten::linalg_eig", "unsupported_op.py:13"}, {"aten::take", "unsupported_op.py:14"}, {"aten::multi_margin_loss", "unsupported_op.py:15"}}) {
        const OpUse* use = find_op(a.evidence, op);
        ASSERT_NE(use, nullptr) << op;
        EXPECT_EQ(use->mps_status, "fallback") << op;
        EXPECT_EQ(use->phase, "forward") << op;
        EXPECT_TRUE(ends_with(use->first_frame, "runtime-cases/" + frame)) << op << ": " << use->first_frame;
        EXPECT_EQ(use->count, 1) << op;
    }
    const OpUse* backward = find_op(a.evidence, "aten::multi_margin_loss_backward");
    ASSERT_NE(backward, nullptr);
    EXPECT_EQ(backward->phase, "backward");
    EXPECT_EQ(find_op(a.evidence, "aten::addmm"), nullptr) << "native ops are not listed as problems";
}

TEST_F(AuditTest, CrashAfterTheTracedStepKeepsTheTraceAndTheReason) {
    const auto a = audit("crash_mid_step.py");
    EXPECT_EQ(a.run.trace["process"]["exit_code"], 1);
    EXPECT_EQ(a.run.trace["steps"]["completed"], 1);
    const std::string reason = a.run.trace["reason"];
    EXPECT_NE(reason.find("RuntimeError: simulated failure in the second forward pass"), std::string::npos) << reason;
    EXPECT_NE(reason.find("crash_mid_step.py:15"), std::string::npos) << reason;
}

TEST_F(AuditTest, CrashBeforeAnyStepIsIncomplete) {
    AuditOptions o;
    o.command = {kPython, "-c", "import torch; torch.nn.Linear(2, 2)(torch.ones(3, 3))"};
    o.out_dir = m_out.path() / "early-crash";
    o.echo = false;
    const AuditRun run = run_python_audit(o);
    EXPECT_EQ(run.trace["status"], "incomplete");
    EXPECT_NE(run.trace["reason"].get<std::string>().find("crashed after 0 optimizer step(s): RuntimeError"), std::string::npos)
        << run.trace["reason"];
}

TEST_F(AuditTest, HangIsStoppedByTheTimeoutWithATrace) {
    const auto a = audit("hang.py", {}, 8);  // long enough for torch to import on a slow machine
    EXPECT_TRUE(a.run.trace["process"]["timed_out"].get<bool>());
    EXPECT_EQ(a.run.trace["status"], "incomplete");
    EXPECT_NE(a.run.trace["reason"].get<std::string>().find("timed out after 8s"), std::string::npos) << a.run.trace["reason"];
    EXPECT_TRUE(a.run.trace["steps"]["forward"].get<bool>()) << "the probe saw the forward pass before the hang";
    EXPECT_LT(a.run.launch.seconds, 30.0);
}

TEST_F(AuditTest, ScriptThatNeverStepsIsIncomplete) {
    const auto a = audit("no_step.py");
    EXPECT_EQ(a.run.trace["status"], "incomplete");
    EXPECT_EQ(a.run.trace["steps"]["completed"], 0);
    EXPECT_TRUE(a.run.trace["steps"]["backward"].get<bool>());
    EXPECT_NE(a.run.trace["reason"].get<std::string>().find("before any optimizer step"), std::string::npos);
    EXPECT_EQ(a.run.trace["process"]["exit_code"], 0);
    EXPECT_FALSE(a.evidence.complete);
}

TEST_F(AuditTest, CompareCpuReplaysTheStep) {
    const auto a = audit("clean_mlp.py", {}, 120, "cpu");
    const auto& c = a.run.trace["compare"];
    EXPECT_TRUE(c["within_tolerance"].get<bool>()) << c.dump();
    EXPECT_EQ(c["against"], "cpu");
    EXPECT_LE(c["max_abs_update_diff"].get<double>(), 1e-6) << "cpu against cpu replays the same step";
    EXPECT_LE(c["max_abs_output_diff"].get<double>(), 1e-6);
    ASSERT_TRUE(a.evidence.numerics_ok.has_value());
    EXPECT_TRUE(*a.evidence.numerics_ok);
}

TEST_F(AuditTest, NonPythonCommandGetsALauncherTrace) {
    AuditOptions o;
    o.command = {"/bin/sh", "-c", "echo not python; exit 3"};
    o.out_dir = m_out.path() / "sh";
    o.echo = false;
    const AuditRun run = run_python_audit(o);
    EXPECT_EQ(run.trace["producer"], "launcher");
    EXPECT_EQ(run.trace["process"]["exit_code"], 3);
    EXPECT_NE(run.trace["process"]["output_tail"].get<std::string>().find("not python"), std::string::npos);
    EXPECT_NE(run.trace["reason"].get<std::string>().find("probe wrote no trace"), std::string::npos);
}

TEST_F(AuditTest, MissingCommandIsAnError) {
    AuditOptions o;
    o.command = {"/nonexistent/python9"};
    o.out_dir = m_out.path() / "missing";
    o.echo = false;
    EXPECT_THROW(run_python_audit(o), std::runtime_error);
}

TEST_F(AuditTest, ExistingSitecustomizeStillRuns) {
    const fs::path other = m_out.path() / "site";
    const fs::path marker = m_out.path() / "marker.txt";
    m_out.write("site/sitecustomize.py", "open(" + nlohmann::json(marker.string()).dump() + ", 'w').write('ran')\n");
    const auto a = [&] {
        const test::ScopedEnv path("PYTHONPATH", other.string());
        return audit("clean_mlp.py");
    }();
    EXPECT_EQ(a.run.trace["status"], "complete");
    ASSERT_TRUE(fs::exists(marker)) << "the lab's own sitecustomize must still run";
    EXPECT_EQ(read_file(marker), "ran");
}

}  // namespace

namespace {

// The exact texts of PyTorch's MPS fallback warning and NotImplementedError (../shared/data/pytorch/
// SOURCES.md), raised here by a script, since this host has no MPS to raise them itself.
TEST_F(AuditTest, MpsFallbackWarningsAndErrorsAreRecordedWithTheirOp) {
    const std::string script = R"(
import warnings, torch
m = torch.nn.Linear(2, 1); opt = torch.optim.SGD(m.parameters(), lr=0.1)
warnings.warn("The operator 'aten::linalg_eig' is not currently supported on the MPS backend and will fall back to run on the CPU. This may have performance implications.", UserWarning)
m(torch.ones(3, 2)).sum().backward(); opt.step()
raise NotImplementedError("The operator 'aten::take' is not currently implemented for the MPS device. If you want this op to be considered for addition please comment on https://github.com/pytorch/pytorch/issues/141287")
)";
    AuditOptions o;
    o.command = {kPython, "-c", script};
    o.out_dir = m_out.path() / "messages";
    o.echo = false;
    o.steps = 2;
    const AuditRun run = run_python_audit(o);
    const auto& msgs = run.trace["mps_messages"];
    ASSERT_EQ(msgs.size(), 2u) << run.trace.dump(1);
    EXPECT_EQ(msgs[0]["kind"], "fallback-warning");
    EXPECT_EQ(msgs[0]["op"], "aten::linalg_eig");
    EXPECT_EQ(msgs[1]["kind"], "not-implemented");
    EXPECT_EQ(msgs[1]["op"], "aten::take");
    EXPECT_EQ(run.trace["status"], "incomplete");
    EXPECT_NE(run.trace["reason"].get<std::string>().find("NotImplementedError"), std::string::npos);
}

TEST_F(AuditTest, TraceStaysBoundedOnALongStep) {
    // More distinct (op, dtypes) keys than the probe keeps (capped at 8 here): counts go on, keys stop.
    const std::string script = R"(
import torch
m = torch.nn.Linear(2, 1); opt = torch.optim.SGD(m.parameters(), lr=0.1)
for i in range(200):
    for f in (torch.add, torch.mul, torch.sub, torch.maximum):
        for dt in (torch.float32, torch.float64, torch.int64):
            a = torch.ones(2, dtype=dt)
            f(a, a)
m(torch.ones(3, 2)).sum().backward(); opt.step()
)";
    const test::ScopedEnv cap("MPSPORT_PROBE_MAX_KEYS", "8");
    AuditOptions o;
    o.command = {kPython, "-c", script};
    o.out_dir = m_out.path() / "bounded";
    o.echo = false;
    const AuditRun run = run_python_audit(o);
    EXPECT_EQ(run.trace["steps"]["completed"], 1);
    EXPECT_EQ(run.trace["ops"].size(), 8u);
    EXPECT_GT(run.trace["ops_dropped"].get<long>(), 1000) << "ops beyond the cap are counted as dropped";
}

}  // namespace

namespace {

// The native observer (a RecordFunction callback compiled against this torch) finds the same
// problem ops as the dispatch observer, from the ops the model calls rather than their insides.
TEST_F(AuditTest, NativeObserverFindsTheSameProblemOps) {
    const test::ScopedEnv cache("MPSPORT_PROBE_CACHE", (m_out.path() / "observer-cache").string());
    const auto a = audit("unsupported_op.py", {}, 120, "", "native");
    ASSERT_EQ(a.run.trace["observer"], "native") << a.run.trace.value("observer_note", "");
    const Evidence& ev = a.evidence;
    std::set<std::string> problems;
    for (const auto& op : ev.ops) problems.insert(op.op + "/" + op.mps_status + "/" + op.phase);
    EXPECT_EQ(problems, (std::set<std::string>{"aten::linalg_eig/fallback/forward", "aten::take/fallback/forward",
                                               "aten::multi_margin_loss/fallback/forward",
                                               "aten::multi_margin_loss_backward/fallback/backward", "aten::put_/fallback/backward"}));
    EXPECT_TRUE(ev.float64_ops.empty()) << "Python numbers (wrapped 0-dim doubles) and kernels' insides are not the model's float64";
    EXPECT_TRUE(fs::exists(m_out.path() / "observer-cache")) << "the compiled observer is cached where MPSPORT_PROBE_CACHE says";
}

TEST_F(AuditTest, NativeObserverWithoutACompilerFallsBackToDispatch) {
    const test::ScopedEnv cache("MPSPORT_PROBE_CACHE", (m_out.path() / "no-compiler-cache").string());
    const test::ScopedEnv compiler("CXX", "/nonexistent/c++");
    const auto a = audit("clean_mlp.py", {}, 120, "", "native");
    EXPECT_EQ(a.run.trace["status"], "complete");
    EXPECT_EQ(a.run.trace["observer"], "dispatch");
    EXPECT_NE(a.run.trace.value("observer_note", "").find("native observer unavailable"), std::string::npos);
}

}  // namespace

namespace {

// Cross-check of the static pass against the runtime: every op the audit predicts as a CPU fallback
// on MPS (PyTorch 2.14.1 table, torch 1.13 here) must be found statically too, or be listed below
// with the reason the static pass cannot see it.
struct CrossCheckCase {
    std::string name;
    std::vector<std::string> command;  // after the interpreter
    fs::path scan_root;
    std::map<std::string, std::string> known_misses;  // op -> why the static pass cannot name it
};

class StaticRuntimeCrossCheck : public AuditTest {};

TEST_F(StaticRuntimeCrossCheck, EveryRuntimeFallbackIsFoundStatically) {
    const fs::path cases = test::source_dir() / "corpus" / "runtime-cases";
    const fs::path physics = test::source_dir() / "corpus" / "physics-sim";
    std::vector<CrossCheckCase> all;
    // hang.py is left out: it never finishes a step (the timeout case), so it predicts nothing.
    for (const char* script : {"clean_mlp.py", "float64_step.py", "unsupported_op.py", "no_step.py", "crash_mid_step.py"})
        all.push_back({script, {(cases / script).string()}, cases / script, {}});
    all.push_back({"corpus/clean-mlp", {(test::source_dir() / "corpus" / "clean-mlp" / "train.py").string()},
                   test::source_dir() / "corpus" / "clean-mlp", {}});
    all.push_back({"corpus/physics-sim",
                   {"-c", "import runpy, sys; sys.path.insert(0, sys.argv[1]); runpy.run_path(sys.argv[1] + '/sim/train.py', run_name='__main__')",
                    physics.string()},
                   physics, {}});
    // Not run here (each stops before its first step on this CPU-only torch 1.13, so the audit predicts
    // nothing to compare): light-lockin and heavy-cuda need CUDA or flash_attn, dual-track-ddp needs
    // F.scaled_dot_product_attention (torch >= 2.0).
    const MpsTable table = load_mps_table(test::rules_dir(), "2.14.1");
    std::size_t compared = 0, joined_checked = 0;
    for (const auto& c : all) {
        AuditOptions o;
        o.command = {kPython};
        o.command.insert(o.command.end(), c.command.begin(), c.command.end());
        o.out_dir = m_out.path() / fs::path(c.name).filename();
        o.timeout_s = 120;
        o.echo = false;
        const AuditRun run = run_python_audit(o);
        const Evidence ev = evidence_from_trace(run.trace, table, run.trace_path.string());
        std::set<std::string> runtime;
        for (const auto& op : ev.ops)
            if (op.mps_status == "fallback") runtime.insert(op.op.substr(0, op.op.find('.')));
        ScanResult scan = test::bundled_scanner().scan(c.scan_root.parent_path(), {c.scan_root}, ScanOptions{});
        std::set<std::string> found;
        for (const auto& f : scan.findings)
            if (f.rule_id == "mps-op-fallback") found.insert(f.ops.begin(), f.ops.end());
        // What `mpsport report --trace` does: each prediction in code the step runs (reach core) and the
        // audit's observation of it become one finding.
        Evidence joined = ev;
        join_op_evidence(scan.findings, joined);
        for (const auto& f : scan.findings) {
            if (f.rule_id != "mps-op-fallback" || f.reach != Reach::core) continue;
            ++joined_checked;
            EXPECT_EQ(f.source, "static+runtime") << c.name << ":" << f.location.line << " " << f.message.substr(0, 60)
                                                  << " was predicted in core code but the audited step did not run it there";
        }
        for (const auto& op : runtime) {
            ++compared;
            EXPECT_TRUE(found.count(op) || c.known_misses.count(op)) << c.name << ": the audit predicts " << op
                                                                     << " as a fallback, the static pass does not name it";
        }
    }
    EXPECT_GE(compared, 4u) << "unsupported_op.py alone predicts linalg_eig, take, multi_margin_loss and its backward";
    EXPECT_GE(joined_checked, 3u) << "unsupported_op.py's three calls are core code the step runs";
}

}  // namespace
