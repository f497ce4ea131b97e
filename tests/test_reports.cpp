// Checklist, verdict and effort decisions, and what the renderers make of them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>

#include "core/finding.hpp"
#include "core/paths.hpp"

#include "reports/checklist.hpp"
#include "reports/op_evidence.hpp"
#include "analyzer/scanner.hpp"
#include "reports/render.hpp"
#include "test_support.hpp"

using namespace mpsport;

namespace {

Finding finding(const std::string& rule, const RuleCatalogue& cat, const std::string& path = "a.py", int line = 1) {
    const Rule* r = cat.find(rule);
    Finding f;
    f.rule_id = rule;
    f.severity = r->severity;
    f.category = r->category;
    f.impact = f.rule_impact = r->impact;
    f.rule_severity = r->severity;
    f.location = {path, line, 1, line, 5, 0};
    f.message = r->message;
    f.fix = r->fix;
    return f;
}

class ReportsTest : public ::testing::Test {
protected:
    RuleCatalogue cat = RuleCatalogue::load(test::rules_dir());
};

TEST_F(ReportsTest, VerdictFollowsImpacts) {
    EXPECT_EQ(assess({}, nullptr, cat, {}).verdict, Verdict::migrate);
    EXPECT_EQ(assess({finding("cuda-method-call", cat)}, nullptr, cat, {}).verdict, Verdict::migrate);
    // FSDP shards a model that does not fit one device: dual. A DDP wrapper is the model itself at world
    // size 1: an edit, no verdict (dino, EDM, barlowtwins: labelled migrate), which item 9 still lists.
    EXPECT_EQ(assess({finding("fully-sharded-data-parallel", cat)}, nullptr, cat, {}).verdict, Verdict::dual_track);
    const Assessment ddp = assess({finding("distributed-data-parallel", cat)}, nullptr, cat, {});
    EXPECT_EQ(ddp.verdict, Verdict::migrate);
    EXPECT_EQ(ddp.items[8].status, ItemStatus::pass);
    EXPECT_NE(ddp.items[8].detail.find("1 distributed set-up edit(s)"), std::string::npos) << ddp.items[8].detail;
    ASSERT_EQ(ddp.items[8].evidence.size(), 1u);
    // the NCCL backend's name is one edit (meta-llama/llama's world-size-1 process group): no verdict
    EXPECT_EQ(assess({finding("nccl-backend", cat)}, nullptr, cat, {}).verdict, Verdict::migrate);
    // A CUDA container image is set-up work (a native environment beside it), not a reason to keep a GPU.
    EXPECT_EQ(assess({finding("cuda-base-image", cat)}, nullptr, cat, {}).verdict, Verdict::migrate);
    // A float64 tensor is an edit (float32, or that part on the Mac's CPU): item 6 warns, the verdict stays
    // migrate (EDM, torchdiffeq, shap-e: labelled migrate). A model in float64 throughout is dual-track.
    const Assessment float64 = assess({finding("float64-dtype", cat)}, nullptr, cat, {});
    EXPECT_EQ(float64.verdict, Verdict::migrate);
    EXPECT_EQ(float64.items[5].status, ItemStatus::warn);
    EXPECT_EQ(assess({finding("default-dtype-float64", cat)}, nullptr, cat, {}).verdict, Verdict::dual_track);
    EXPECT_EQ(assess({finding("fully-sharded-data-parallel", cat), finding("cuda-extension-build", cat)}, nullptr, cat, {}).verdict, Verdict::stay_on_cuda);
    Finding downgraded = finding("cuda-extension-build", cat);
    downgraded.severity = Severity::info;  // info findings never decide the verdict
    EXPECT_EQ(assess({downgraded}, nullptr, cat, {}).verdict, Verdict::migrate);
}

TEST_F(ReportsTest, ReasonNamesTheItemsAndFindingsItRestsOn) {
    const Assessment stay = assess({finding("distributed-data-parallel", cat), finding("cuda-extension-build", cat)}, nullptr, cat, {});
    EXPECT_NE(stay.verdict_reason.find("item 9 fails"), std::string::npos) << stay.verdict_reason;
    EXPECT_NE(stay.verdict_reason.find("cuda-extension-build@a.py:1"), std::string::npos) << stay.verdict_reason;
    const Assessment migrate = assess({finding("cuda-method-call", cat)}, nullptr, cat, {});
    EXPECT_NE(migrate.verdict_reason.find("items 3 (Params"), std::string::npos) << migrate.verdict_reason;
    EXPECT_EQ(migrate.verdict_reason.find("6"), std::string::npos) << "items that pass are not named: " << migrate.verdict_reason;
}

TEST_F(ReportsTest, ConfidenceNamesItsCauses) {
    ScanResult scan;
    EXPECT_EQ(assess({}, nullptr, cat, {}, &scan).confidence, Confidence::medium) << "static-only";
    scan.skipped.push_back({"model.py", "invalid UTF-8"});
    const Assessment low = assess({}, nullptr, cat, {}, &scan);
    EXPECT_EQ(low.confidence, Confidence::low);
    ASSERT_EQ(low.confidence_causes.size(), 2u);
    EXPECT_NE(low.confidence_causes[1].find("model.py (invalid UTF-8)"), std::string::npos) << low.confidence_causes[1];
    // as the program model weighs a blocker that no entry point reaches: one level lower, no verdict
    Finding unreached = finding("cuda-extension-build", cat);
    unreached.reach = Reach::unreached;
    unreached.severity = Severity::major;
    unreached.impact = VerdictImpact::none;
    ScanResult clean;
    const Assessment medium = assess({unreached}, nullptr, cat, {}, &clean);
    EXPECT_EQ(medium.verdict, Verdict::migrate);
    EXPECT_EQ(medium.confidence, Confidence::medium);
    EXPECT_NE(medium.confidence_causes.back().find("no entry point reaches"), std::string::npos);
}

TEST_F(ReportsTest, StaticOnlyChecklistMarksRuntimeItemsNotRun) {
    const Assessment a = assess({finding("default-dtype-float64", cat)}, nullptr, cat, {});
    ASSERT_EQ(a.items.size(), 9u);
    for (int n : {1, 2, 4, 5, 7, 8}) EXPECT_EQ(a.items[static_cast<std::size_t>(n - 1)].status, ItemStatus::not_run) << "item " << n;
    EXPECT_EQ(a.items[5].status, ItemStatus::fail);
    EXPECT_EQ(a.items[5].evidence, std::vector<std::string>{"default-dtype-float64@a.py:1"});
    EXPECT_TRUE(a.static_only);
    EXPECT_NE(a.verdict_reason.find("static-only"), std::string::npos);
}

TEST_F(ReportsTest, EffortSharesSetupPerFileAndCaps) {
    // cuda-method-call: 0.05-0.15 h per site + 0.25-0.5 h setup per file, capped at 4 h.
    std::vector<Finding> fs = {finding("cuda-method-call", cat, "a.py", 1), finding("cuda-method-call", cat, "a.py", 2),
                               finding("cuda-method-call", cat, "b.py", 1)};
    const auto e = estimate_effort(fs, cat, {});
    EXPECT_NEAR(e.by_rule.at("cuda-method-call").low, 2 * 0.25 + 3 * 0.05, 1e-9);
    EXPECT_NEAR(e.by_rule.at("cuda-method-call").high, 2 * 0.5 + 3 * 0.15, 1e-9);
    std::vector<Finding> many;
    for (int i = 0; i < 100; ++i) many.push_back(finding("cuda-method-call", cat, "f" + std::to_string(i) + ".py"));
    EXPECT_DOUBLE_EQ(estimate_effort(many, cat, {}).by_rule.at("cuda-method-call").high, 4.0);
}

TEST_F(ReportsTest, KernelEffortScalesWithLines) {
    const auto small = estimate_effort({finding("cuda-kernel-source", cat, "k.cu")}, cat, {{"k.cu", 500}});
    const auto large = estimate_effort({finding("cuda-kernel-source", cat, "k.cu")}, cat, {{"k.cu", 2000}});
    EXPECT_NEAR(small.total.low, 0.5 * 8.0, 1e-9);
    EXPECT_NEAR(large.total.low, 2.0 * 8.0, 1e-9);
}

TEST_F(ReportsTest, RuntimeEvidenceFillsRuntimeItems) {
    Evidence ev;
    ev.mps_built = false;
    ev.mps_available = false;
    ev.predicted = true;
    ev.forward = ev.backward = true;
    ev.optimizer_steps = 1;
    ev.device = "cpu";
    ev.roles = {{"params", {"cpu"}, {"float32"}}, {"inputs", {"cpu"}, {"float32"}}};
    ev.ops = {{"aten::linalg_eig", "forward", "cpu", "float32", 1, "train.py:10", "fallback", "", "", {}}};
    ev.checkpoint_ok = true;
    ev.checkpoint_detail = "4 tensors";
    const Assessment a = assess({}, &ev, cat, {});
    EXPECT_FALSE(a.static_only);
    EXPECT_EQ(a.items[0].status, ItemStatus::pass);
    EXPECT_TRUE(a.items[0].predicted);
    EXPECT_EQ(a.items[3].status, ItemStatus::pass);
    EXPECT_EQ(a.items[3].detail, "1 optimizer step(s) completed");
    EXPECT_EQ(a.items[4].status, ItemStatus::warn);
    EXPECT_EQ(a.items[6].status, ItemStatus::pass);
    Evidence remapped = ev;
    remapped.remap_target = "cpu";
    remapped.redirects = {{"Tensor.cuda()", "cpu", 3, "train.py:4", ""}, {"torch.cuda.synchronize()", "cpu", 2, "train.py:9", ""}};
    const Assessment trial = assess({}, &remapped, cat, {});
    EXPECT_EQ(trial.items[3].status, ItemStatus::pass);
    EXPECT_EQ(trial.items[3].detail, "1 optimizer step(s) completed under --remap cuda=cpu (5 redirect(s) of 2 CUDA API(s))");
    ev.optimizer_steps = 0;
    ev.incomplete_reason = "the command exited before an optimizer step";
    const Assessment failed = assess({}, &ev, cat, {});
    EXPECT_EQ(failed.items[3].status, ItemStatus::fail);
    EXPECT_EQ(failed.verdict, Verdict::dual_track);

    ScanResult scan;
    const Report report{scan, cat, &a, &ev, "0"};
    const auto j = nlohmann::json::parse(render(report, Format::json));
    EXPECT_EQ(j["runtime"]["ops_needing_attention"][0]["op"], "aten::linalg_eig");
    EXPECT_EQ(j["runtime"]["ops_needing_attention"][0]["mps"], "fallback");
    EXPECT_EQ(j["runtime"]["roles"]["params"]["devices"], nlohmann::json::array({"cpu"}));
    EXPECT_NE(render(report, Format::md).find("| `aten::linalg_eig` | fallback | forward | 1 |"), std::string::npos);
}

TEST_F(ReportsTest, RenderersCarryTheSameDecision) {
    ScanResult scan;
    scan.root = "repo";
    scan.files_scanned = 1;
    scan.findings = {finding("cuda-extension-build", cat, "setup.py", 7)};
    assign_fingerprints(scan.findings);
    const Assessment a = assess(scan.findings, nullptr, cat, {});
    const Report r{scan, cat, &a, nullptr, "0.0.0"};
    const auto j = nlohmann::json::parse(render(r, Format::json));
    EXPECT_EQ(j["assessment"]["verdict"], "stay-on-CUDA");
    EXPECT_EQ(j["assessment"]["checklist"][8]["status"], "fail");
    EXPECT_NE(render(r, Format::md).find("**Verdict: stay-on-CUDA**"), std::string::npos);
    EXPECT_NE(render(r, Format::html).find("<strong>Verdict: stay-on-CUDA</strong>"), std::string::npos);
    const std::string text = render(r, Format::text, false);
    EXPECT_NE(text.find("setup.py:7:1"), std::string::npos);
    EXPECT_EQ(text.find("\x1b["), std::string::npos) << "no colour when not asked";
    EXPECT_NE(render(r, Format::text, true).find("\x1b["), std::string::npos);
    const auto sarif = nlohmann::json::parse(render(r, Format::sarif));
    EXPECT_EQ(sarif["runs"][0]["properties"]["verdict"], "stay-on-CUDA");
}

// The findings array is written in parallel parts and spliced into the report: the result must be
// what one nlohmann dump of the whole report writes, byte for byte, at any count of findings.
TEST_F(ReportsTest, JsonReportIsOneDumpWhateverTheNumberOfFindings) {
    for (const int count : {0, 1, 255, 1500}) {
        ScanResult scan;
        scan.root = "repo";
        for (int i = 0; i < count; ++i) {
            Finding f = finding(i % 2 ? "cuda-method-call" : "hardcoded-cuda-device", cat, "pkg/m" + std::to_string(i % 7) + ".py", i + 1);
            f.snippet = "x.cuda()  # \"quoted\"\n\tand a tab";
            f.chain = {"train.py:3", "pkg/m.py:" + std::to_string(i + 1)};
            f.related.push_back({{"pkg/use.py", i + 2, 1, i + 2, 4, 0}, "used here"});
            scan.findings.push_back(std::move(f));
        }
        assign_fingerprints(scan.findings);
        const Assessment a = assess(scan.findings, nullptr, cat, {});
        const Report r{scan, cat, &a, nullptr, "0"};
        const std::string text = render(r, Format::json);
        const auto j = nlohmann::json::parse(text);
        EXPECT_EQ(j["findings"].size(), static_cast<std::size_t>(count));
        EXPECT_EQ(j.dump(2) + "\n", text) << count << " findings";
    }
}

// A report a person reads opens on what decides the verdict: Markdown and HTML list the findings
// heaviest first (a blocker in the core before a major, an info in a test last), whatever the file
// order the scan keeps for JSON, SARIF and text.
TEST_F(ReportsTest, MarkdownAndHtmlListTheHeaviestFindingsFirst) {
    ScanResult scan;
    scan.root = "repo";
    Finding test_info = finding("cuda-method-call", cat, "a_tests/test_x.py", 3);
    test_info.severity = Severity::info;
    test_info.impact = VerdictImpact::none;
    test_info.reach = Reach::tooling;
    Finding major = finding("cuda-method-call", cat, "b_train.py", 9);
    major.severity = Severity::major;
    major.impact = VerdictImpact::none;
    Finding blocker = finding("cuda-extension-build", cat, "c_setup.py", 7);
    scan.findings = {test_info, major, blocker};
    assign_fingerprints(scan.findings);
    const Assessment a = assess(scan.findings, nullptr, cat, {});
    const Report r{scan, cat, &a, nullptr, "0"};
    for (const auto format : {Format::md, Format::html}) {
        const std::string out = render(r, format);
        const auto at = [&](const char* path) { return out.find(path); };
        // the table's locations (path:line:col); the verdict's reason names the blocker too, without a column
        ASSERT_NE(at("c_setup.py:7:1"), std::string::npos);
        EXPECT_LT(at("c_setup.py:7:1"), at("b_train.py:9:1")) << static_cast<int>(format);
        EXPECT_LT(at("b_train.py:9:1"), at("a_tests/test_x.py:3:1")) << static_cast<int>(format);
    }
    const std::string text = render(r, Format::text);
    EXPECT_LT(text.find("a_tests/test_x.py:3:1"), text.find("c_setup.py:7:1")) << "text keeps the scan's order";
}

TEST_F(ReportsTest, HtmlEscapesSource) {
    ScanResult scan;
    scan.root = "<repo>";
    Finding f = finding("cuda-method-call", cat);
    f.snippet = "x = a<b and c>d";
    scan.findings = {f};
    const Report r{scan, cat, nullptr, nullptr, "0"};
    const std::string html = render(r, Format::html);
    EXPECT_EQ(html.find("a<b"), std::string::npos);
    EXPECT_NE(html.find("a&lt;b and c&gt;d"), std::string::npos);
}

}  // namespace

namespace {

TEST_F(ReportsTest, StaticAndRuntimeObservationsOfOneOpAtOneFrameAreOneFinding) {
    Finding take = finding("mps-op-fallback", cat, "train/step.py", 14);
    take.ops = {"aten::take", "aten::put_"};
    take.fingerprint = "take-fp";
    Finding eig = finding("mps-op-fallback", cat, "train/step.py", 13);
    eig.ops = {"aten::linalg_eig"};
    eig.fingerprint = "eig-fp";
    std::vector<Finding> findings = {take, eig};
    Evidence ev;
    ev.ops = {{"aten::take", "forward", "cpu", "float32,int64", 1, "step.py:14", "fallback", "", "", {}},        // audited from train/
              {"aten::linalg_eig", "forward", "cpu", "float32", 1, "step.py:40", "fallback", "", "", {}},     // another line: not the same
              {"aten::put_", "backward", "cpu", "float32", 1, "step.py:20", "fallback", "", "", {}},          // backward: the loss.backward() line
              {"aten::put_", "backward", "cpu", "float32", 1, "other.py:20", "fallback", "", "", {}}};        // another file
    join_op_evidence(findings, ev);
    EXPECT_EQ(findings[0].source, "static+runtime");
    ASSERT_EQ(findings[0].observed.size(), 2u);
    EXPECT_NE(findings[0].observed[0].find("aten::take x1 in forward"), std::string::npos);
    EXPECT_EQ(findings[1].source, "static") << "a runtime op at another line is another site";
    EXPECT_EQ(ev.ops[0].finding, "take-fp");
    EXPECT_EQ(ev.ops[1].finding, "");
    EXPECT_EQ(ev.ops[2].finding, "take-fp");
    EXPECT_EQ(ev.ops[3].finding, "");
}

TEST_F(ReportsTest, EveryFormatShowsWhatTheAuditObservedOfAStaticFinding) {
    Finding take = finding("mps-op-fallback", cat, "train/step.py", 14);
    take.ops = {"aten::take"};
    take.fingerprint = "take-fp";
    ScanResult scan;
    scan.findings = {take};
    Evidence ev;
    ev.target_torch = "2.14.1";
    ev.ops = {{"aten::take", "forward", "cpu", "float32,int64", 3, "step.py:14", "fallback", "", "", {}}};
    join_op_evidence(scan.findings, ev);
    ASSERT_EQ(scan.findings[0].observed.size(), 1u);
    const std::string seen = scan.findings[0].observed[0];
    const Report r{scan, cat, nullptr, &ev, "0"};
    const auto sarif = nlohmann::json::parse(render(r, Format::sarif));
    const auto& props = sarif["runs"][0]["results"][0]["properties"];
    EXPECT_EQ(props["source"], "static+runtime");
    EXPECT_EQ(props["observed"][0], seen);
    EXPECT_EQ(props["ops"][0], "aten::take");
    EXPECT_EQ(sarif["runs"][0]["properties"]["runtime"]["ops_needing_attention"][0]["finding"], "take-fp");
    EXPECT_NE(render(r, Format::md).find("; observed: " + seen), std::string::npos);
    const std::string html = render(r, Format::html);
    EXPECT_NE(html.find("observed: " + seen), std::string::npos);
    EXPECT_NE(html.find("<td><code>aten::take</code></td><td>fallback</td>"), std::string::npos) << "the audited ops table";
    EXPECT_NE(render(r, Format::text).find("observed: " + seen), std::string::npos);
}

// The NotImplementedError of an op without an MPS kernel has four sentences (SOURCES.md, item 2); a
// finding quotes all of them, with its op, wherever it shows the runtime text.
TEST_F(ReportsTest, EveryFormatQuotesTheWholeRuntimeMessage) {
    const Scanner scanner(test::bundled_catalogue());
    ScanResult scan;
    scan.findings = scanner.scan_text("step.py", FileKind::python, "import torch\n\ndef f(x, i):\n    return torch.take(x, i)\n").findings;
    ASSERT_EQ(scan.findings.size(), 1u);
    const Report r{scan, test::bundled_catalogue(), nullptr, nullptr, "0"};
    const std::vector<std::string> sentences = {
        "The operator 'aten::take' is not currently implemented for the MPS device.",
        "If you want this op to be considered for addition please comment on https://github.com/pytorch/pytorch/issues/141287",
        "that resulted in missing op as well as commit hash",
        "to use the CPU as a fallback for this op. WARNING: this will be slower than running natively on MPS."};
    const auto json = nlohmann::json::parse(render(r, Format::json));
    const auto sarif = nlohmann::json::parse(render(r, Format::sarif));
    const std::map<std::string, std::string> shown = {
        {"json", json["findings"][0]["fix"].get<std::string>()},
        {"sarif", sarif["runs"][0]["results"][0]["properties"]["fix"].get<std::string>()},
        {"text", render(r, Format::text)},
        {"md", render(r, Format::md)},
        {"html", render(r, Format::html)}};
    for (const auto& [format, text] : shown)
        for (const auto& sentence : sentences) EXPECT_NE(text.find(sentence), std::string::npos) << format << " lacks: " << sentence;
    EXPECT_LT(scan.findings[0].message.size(), 200u) << "the one-line message stays short: " << scan.findings[0].message;
}

TEST_F(ReportsTest, StaticFallbacksWarnItemFiveWithTheUpgradeWhatIf) {
    Finding in_tests = finding("mps-op-fallback-fixed-upstream", cat, "tests/test_a.py", 4);
    in_tests.reach = Reach::tooling;  // not on the training path: not counted
    const std::vector<Finding> findings = {finding("mps-op-fallback", cat), finding("mps-op-fallback-fixed-upstream", cat, "a.py", 2),
                                           finding("mps-op-fallback-fixed-upstream", cat, "a.py", 3), in_tests};
    ScanResult scan;
    scan.target_torch = "2.6.0";
    const Assessment a = assess(findings, nullptr, cat, {}, &scan);
    EXPECT_EQ(a.items[4].status, ItemStatus::warn);
    EXPECT_TRUE(a.items[4].predicted);
    EXPECT_NE(a.items[4].detail.find("upgrading from PyTorch 2.6.0 to 2.14.1 removes 2 of 3 predicted fallbacks on the training path"), std::string::npos)
        << a.items[4].detail;
    // Predicted from the source, a fallback warns item 5 and moves no verdict (kornia's eigvals in its
    // five-point solver, labelled migrate); a traced step that runs one does.
    EXPECT_EQ(a.verdict, Verdict::migrate) << a.verdict_reason;
    Evidence ev;
    ev.forward = ev.backward = true;
    ev.optimizer_steps = 1;
    ev.ops = {{"aten::linalg_eig", "forward", "cpu", "float32", 1, "a.py:1", "fallback", "", "", {}}};
    const Assessment traced = assess(findings, &ev, cat, {}, &scan);
    EXPECT_EQ(traced.items[4].status, ItemStatus::warn);
    EXPECT_EQ(traced.verdict, Verdict::dual_track) << traced.verdict_reason;
    ev.ops.clear();
    EXPECT_EQ(assess(findings, &ev, cat, {}, &scan).items[4].status, ItemStatus::pass) << "a step that ran no fallback";
    EXPECT_EQ(upgrade_what_if(findings, "2.14.1"), "") << "nothing to upgrade to from the newest table";
    EXPECT_EQ(assess({}, nullptr, cat, {}, &scan).items[4].status, ItemStatus::not_run);
}

}  // namespace

namespace mpsport {
namespace {

// The report schema lagged the code twice (non-cpu-branch, then default-unused were written into
// reports the schema rejected; no corpus report held one). Every guard kind the code can write is
// in the schema's enum.
TEST(ReportSchema, NamesEveryGuardKind) {
    const nlohmann::json schema = nlohmann::json::parse(read_file(test::source_dir() / "docs" / "schema" / "report.schema.json"));
    std::vector<std::string> kinds;
    std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& j) {
        if (j.is_object()) {
            if (j.contains("guard") && j["guard"].is_object() && j["guard"].contains("properties"))
                for (const auto& k : j["guard"]["properties"]["kind"]["enum"]) kinds.push_back(k.get<std::string>());
            for (const auto& [key, value] : j.items()) walk(value);
        } else if (j.is_array()) {
            for (const auto& value : j) walk(value);
        }
    };
    walk(schema);
    ASSERT_FALSE(kinds.empty()) << "no guard kind enum in the schema";
    for (GuardKind g : guard_kinds()) EXPECT_NE(std::find(kinds.begin(), kinds.end(), std::string(to_string(g))), kinds.end()) << to_string(g);
}

}  // namespace
}  // namespace mpsport
