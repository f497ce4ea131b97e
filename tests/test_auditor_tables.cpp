// The committed MPS op tables are exactly what `mpsport tables` generates from PyTorch's files,
// and the generator reads those files the way SOURCES.md describes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analyzer/scanner.hpp"
#include "auditor/mps_tables.hpp"
#include "core/paths.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <regex>
#include <set>

namespace fs = std::filesystem;
using namespace mpsport;

namespace {

fs::path data_dir() { return MPSPORT_SHARED_DATA; }

// CI has ../shared beside the checkout: no skip. Regenerates the op tables and the Python-to-aten maps.
TEST(MpsTables, CommittedTablesAndPythonOpMapsMatchRegeneration) {
    ASSERT_TRUE(fs::exists(data_dir() / "native_functions-2.14.1.yaml")) << data_dir() << ": PyTorch data must be beside the checkout";
    test::TempDir out;
    fs::create_directories(out.path() / "mps");
    fs::copy_file(test::rules_dir() / "mps" / "python-names.yaml", out.path() / "mps" / "python-names.yaml");
    fs::copy_file(test::rules_dir() / "mps" / "python-names.schema.json", out.path() / "mps" / "python-names.schema.json");
    const auto written = generate_bundled_tables(data_dir(), out.path());
    ASSERT_EQ(written.size(), 2 * bundled_torch_versions().size());
    for (const auto& p : written) {
        const fs::path committed = test::rules_dir() / "mps" / p.filename();
        ASSERT_TRUE(fs::exists(committed)) << committed << " is not committed; run `mpsport tables`";
        EXPECT_TRUE(read_file(committed) == read_file(p)) << committed << " is stale; run `mpsport tables` and commit the result";
    }
}

TEST(MpsTables, DispatchKeysDelegatesAndComposites) {
    test::TempDir d;
    d.write("nf.yaml", R"(
- func: fancy(Tensor self) -> Tensor
  structured_delegate: fancy.out
- func: fancy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU, CUDA, MPS: fancy_out
- func: cpu_only(Tensor self) -> Tensor
  dispatch:
    CPU, CUDA: cpu_only
    SparseMPS: cpu_only_sparse_mps
  autogen: cpu_only.out
- func: implicit(Tensor self) -> Tensor
- func: explicit(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: explicit
- func: svd_like(Tensor self) -> Tensor
  dispatch:
    CPU, CUDA, MPS: svd_like
)");
    TableSources src;
    src.native_functions = d.path() / "nf.yaml";
    src.torch_version = "9.9";
    src.forced_fallback = {"aten::svd_like"};
    src.forced_fallback_known = true;
    const MpsTable t = generate_mps_table(src);
    EXPECT_EQ(t.lookup("aten::fancy"), MpsSupport::native) << "structured_delegate inherits the .out kernel's backends";
    EXPECT_EQ(t.lookup("aten::cpu_only"), MpsSupport::fallback) << "SparseMPS is not dense MPS";
    EXPECT_EQ(t.lookup("aten::cpu_only.out"), MpsSupport::fallback) << "autogen overloads follow their source";
    EXPECT_EQ(t.lookup("aten::implicit"), MpsSupport::composite);
    EXPECT_EQ(t.lookup("aten::explicit"), MpsSupport::composite);
    EXPECT_EQ(t.lookup("aten::svd_like"), MpsSupport::fallback) << "MPSFallback.mm's list wins over the yaml";
    EXPECT_EQ(t.lookup("aten::nope"), MpsSupport::unknown);
}

TEST(MpsTables, PredictionsForKnownOps) {
    const MpsTable t = load_mps_table(test::rules_dir(), "2.14.1");
    EXPECT_EQ(predict(t, "aten::addmm", {"float32"}).status, "native");
    EXPECT_EQ(predict(t, "aten::add.Tensor", {"float32"}).status, "native");
    EXPECT_EQ(predict(t, "aten::linalg_eig", {"float32"}).status, "fallback");
    EXPECT_EQ(predict(t, "aten::take", {"float32", "int64"}).status, "fallback");
    EXPECT_EQ(predict(t, "aten::multi_margin_loss", {"float32"}).status, "fallback");
    EXPECT_EQ(predict(t, "aten::addmm", {"float64"}).status, "unsupported-dtype");
    EXPECT_EQ(predict(t, "aten::mul.Tensor", {"complex128"}).status, "unsupported-dtype");
    EXPECT_FALSE(t.forced_fallback_known) << "SOURCES.md: MPSFallback.mm's 2.14.1 list is unknown";
    // Seen on an H200: BatchNorm2d runs as cudnn_batch_norm there, which has no MPS entry of its own.
    EXPECT_EQ(t.lookup("aten::cudnn_batch_norm"), MpsSupport::fallback);
    EXPECT_EQ(predict(t, "aten::cudnn_batch_norm", {"float32"}).status, "native");
    EXPECT_EQ(predict(t, "aten::cudnn_batch_norm", {"float64"}).status, "unsupported-dtype");
    EXPECT_EQ(t.unimplemented_xfail.at("take"), std::vector<std::string>{"*"});
    const MpsTable old = load_mps_table(test::rules_dir(), "2.6.0");
    EXPECT_EQ(predict(old, "aten::linalg_svd", {"float32"}).status, "fallback");
    EXPECT_EQ(predict(old, "aten::upsample_nearest3d.vec", {"float32"}).status, "fallback");
}

TEST(MpsTables, NewerTableSupportsMoreOps) {
    const MpsTable v26 = load_mps_table(test::rules_dir(), "2.6.0");
    const MpsTable v214 = load_mps_table(test::rules_dir(), "2.14.1");
    int gained = 0, lost = 0;
    for (const auto& [op, s] : v214.ops) {
        auto it = v26.ops.find(op);
        if (it == v26.ops.end()) continue;
        gained += it->second == MpsSupport::fallback && s == MpsSupport::native;
        lost += it->second == MpsSupport::native && s == MpsSupport::fallback;
    }
    EXPECT_GT(gained, 50);
    EXPECT_LT(lost, gained);
}

TEST(PythonOpMaps, NamesFromPythonModuleVariantsAndTheHandTable) {
    const PythonOpMap m = load_python_op_map(test::rules_dir(), "2.14.1");
    using Ops = std::vector<std::string>;
    EXPECT_EQ(*m.function("torch.take"), (Ops{"aten::take", "aten::put_"})) << "hand-kept backward: take_backward runs put_";
    EXPECT_EQ(*m.function("torch.linalg.eig"), Ops{"aten::linalg_eig"}) << "python_module: linalg drops the linalg_ prefix";
    EXPECT_EQ(*m.function("torch.special.ndtri"), Ops{"aten::special_ndtri"});
    EXPECT_EQ(*m.function("torch.nn.functional.multi_margin_loss"), (Ops{"aten::multi_margin_loss", "aten::multi_margin_loss_backward"}))
        << "python_module: nn is torch.nn.functional, with the backward op autograd runs";
    EXPECT_EQ(*m.function("torch.nn.AdaptiveAvgPool3d"),
              (Ops{"aten::adaptive_avg_pool3d", "aten::_adaptive_avg_pool3d", "aten::_adaptive_avg_pool3d_backward"}))
        << "hand-kept module, composite linked to its _kernel";
    EXPECT_EQ(*m.function("torch.fft.rfft"), (Ops{"aten::fft_rfft", "aten::_fft_r2c"}));
    EXPECT_EQ(*m.function("torch.matmul"), Ops{"aten::matmul"}) << "matmul_backward is a nested-tensor op, not matmul's autograd";
    EXPECT_NE(m.method("nanmedian"), nullptr);
    EXPECT_EQ(m.method("take"), nullptr) << "take is a common NumPy/pandas method name";
    EXPECT_EQ(m.method("mode"), nullptr);
    EXPECT_EQ(m.method("values"), nullptr);
    EXPECT_EQ(m.function("torch.Tensor.take")->front(), "aten::take") << "an explicit Tensor.take is still known";
    // What only autograd runs, apart from what the call runs: a backward-only fallback is weighed by gradients.
    EXPECT_EQ(m.autograd_ops("torch.nn.functional.grid_sample(mode=bilinear, rank=2)"), Ops{"aten::grid_sampler_2d_backward"});
    // F.grid_sample samples a 5-D input with grid_sampler_3d (rules/mps/python-names.yaml by_argument).
    EXPECT_EQ(*m.function("torch.nn.functional.grid_sample(mode=nearest, rank=3)"),
              (Ops{"aten::grid_sampler_3d", "aten::grid_sampler_3d_backward"}));
    EXPECT_EQ(m.autograd_ops("torch.take"), Ops{"aten::put_"});
    EXPECT_TRUE(m.autograd_ops("torch.Tensor.put_").empty() ||
                std::find(m.autograd_ops("torch.Tensor.put_").begin(), m.autograd_ops("torch.Tensor.put_").end(), "aten::put_") ==
                    m.autograd_ops("torch.Tensor.put_").end())
        << "put_ is what Tensor.put_ runs, not its backward";
    EXPECT_TRUE(m.autograd_ops("torch.linalg.eig").empty());
    // Ops by the input's rank and antialias (rules/mps/python-names.yaml by_argument).
    EXPECT_EQ(m.function("torch.nn.functional.interpolate(mode=nearest, rank=3)")->front(), "aten::upsample_nearest3d");
    EXPECT_EQ(m.function("torch.nn.functional.interpolate(mode=nearest, rank=1)")->front(), "aten::upsample_nearest1d");
    EXPECT_EQ(m.function("torch.nn.functional.interpolate(mode=area, rank=3)")->front(), "aten::adaptive_avg_pool3d");
    EXPECT_EQ(m.function("torch.nn.functional.interpolate(mode=bicubic, antialias=True)")->front(), "aten::_upsample_bicubic2d_aa");
    EXPECT_EQ(m.function("torch.nn.functional.interpolate(mode=nearest)"), nullptr) << "nearest depends on the rank";
    EXPECT_NE(m.function("torch.nn.functional.interpolate(mode=bilinear)"), nullptr) << "bilinear does not";
    EXPECT_EQ(m.rank_suffixes.at("3d"), 3);
}

// The hand table is data with a schema: a misspelt key is an error naming the file and the key.
TEST(PythonOpMaps, TheHandTableIsCheckedAgainstItsSchema) {
    test::TempDir d;
    fs::copy_file(test::rules_dir() / "mps" / "python-names.schema.json", d.path() / "python-names.schema.json");
    d.write("python-names.yaml", "by_argument:\n  torch.nn.functional.interpolate:\n    argument: {name: mode, position: 3, default: nearest}\n"
                                 "    ops: {nearest: [upsample_nearest2d]}\n    rnak: {assumed: 2}\n");
    try {
        generate_python_op_map(data_dir() / "native_functions-2.14.1.yaml", d.path() / "python-names.yaml", "2.14.1");
        ADD_FAILURE() << "a misspelt key was accepted";
    } catch (const std::exception& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("python-names.yaml"), std::string::npos) << what;
        EXPECT_NE(what.find("rnak"), std::string::npos) << what;
    }
}

TEST(PythonOpMaps, CountOfFallbackOpsReachableFromPython) {
    // The figure `mpsport tables` prints: fallback ops (base names) of 2.14.1 that some Python name reaches.
    const MpsTable t = load_mps_table(test::rules_dir(), "2.14.1");
    const PythonOpMap m = load_python_op_map(test::rules_dir(), "2.14.1");
    std::set<std::string> fallback, reached;
    for (const auto& [op, s] : t.ops)
        if (s == MpsSupport::fallback && op.find('.') == std::string::npos) fallback.insert(op);
    for (const auto* names : {&m.functions, &m.methods})
        for (const auto& [name, ops] : *names)
            for (const auto& op : ops)
                if (fallback.count(op)) reached.insert(op);
    EXPECT_TRUE(reached.count("aten::take") && reached.count("aten::linalg_eig") && reached.count("aten::_adaptive_avg_pool3d"));
    EXPECT_GT(reached.size(), 100u);
    EXPECT_LT(reached.size(), fallback.size()) << "backend-internal ops (mkldnn_*, slow_conv*) have no Python name";
}

}  // namespace

namespace {

// The hand-kept names whose op is not their own name, checked against a real PyTorch (torch 1.13 in CI,
// /usr/bin/python3): every op the committed map names for them runs when they are called.
TEST(PythonOpMap, HandKeptWrappersRunTheOpsTheMapNames) {
    const auto run = test::run_command("/usr/bin/python3 " + (test::source_dir() / "tests" / "op_map_probe.py").string());
    ASSERT_EQ(run.exit_code, 0) << "tests/op_map_probe.py failed; its output: " << run.output;
    const auto seen = nlohmann::json::parse(run.output);
    const PythonOpMap map = load_python_op_map(test::rules_dir(), kDefaultTargetTorch);
    ASSERT_GE(seen.size(), 15u);
    for (const auto& [name, ops] : seen.items()) {
        const auto* mapped = map.function(name);
        ASSERT_TRUE(mapped) << name << " is not in the op map";
        const auto ran = ops.get<std::set<std::string>>();
        for (const auto& op : *mapped) EXPECT_TRUE(ran.count(op)) << name << ": the map names " << op << ", which PyTorch did not run";
    }
}

}  // namespace

// PyTorch's MPS messages are data (rules/mps/runtime-messages.yaml): the static pass quotes their
// text, the probe finds them with their patterns. Each pattern finds its own text and its op; the
// probe's defaults (for a probe run on its own) are the data's patterns; the texts are
// SOURCES.md's strings.
TEST(MpsMessages, TheDataIsWhatTheStaticPassQuotesAndWhatTheProbeLooksFor) {
    const MpsMessages m = load_mps_messages(test::rules_dir());
    EXPECT_EQ(m.fallback_warning.for_op("aten::nanmedian"),
              "The operator 'aten::nanmedian' is not currently supported on the MPS backend and will fall back to run on the CPU. "
              "This may have performance implications.");
    EXPECT_EQ(m.not_implemented.for_op("aten::nanmedian").rfind("NotImplementedError: The operator 'aten::nanmedian' is not currently "
                                                                 "implemented for the MPS device.", 0),
              0u);
    for (const MpsMessage* msg : {&m.fallback_warning, &m.not_implemented}) {
        std::smatch found;
        const std::string text = msg->for_op("aten::linalg_eig");
        ASSERT_TRUE(std::regex_search(text, found, std::regex(msg->match))) << msg->match;
        EXPECT_EQ(found[1].str(), "aten::linalg_eig");
    }
    EXPECT_TRUE(std::regex_search(m.float64.text, std::regex(m.float64.match)));
    // The probe's own defaults, as written in probe.py, are the data's patterns.
    const std::string probe = read_file(test::source_dir() / "auditor/probe/mpsport_probe/probe.py");
    const auto data = nlohmann::json::parse(m.matches_json());
    for (const auto& [key, pattern] : data.items())
        EXPECT_NE(probe.find("\"" + key + "\": r\"" + pattern.get<std::string>() + "\""), std::string::npos) << key << ": " << pattern;
    // A static finding quotes the data's text.
    test::TempDir d;
    d.write("train.py", "import torch\nx = torch.randn(8, 8, device='mps')\nm = torch.linalg.eig(x)\n");
    ScanOptions o;
    o.jobs = 1;
    const ScanResult r = test::bundled_scanner().scan(d.path(), {d.path()}, o);
    bool quoted = false;
    for (const auto& f : r.findings)
        if (f.rule_id == "mps-op-fallback")
            quoted = f.fix.find(m.fallback_warning.for_op("aten::linalg_eig")) != std::string::npos &&
                     f.fix.find(m.not_implemented.for_op("aten::linalg_eig")) != std::string::npos;
    EXPECT_TRUE(quoted);
}
