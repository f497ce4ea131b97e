// The native LibTorch train step (auditor/native_step.cpp), in an executable of its own: it is the
// one test code that needs LibTorch, and loading LibTorch (some 0.5 s of relocations and operator
// registration) in the main test executable was paid again by each of its ~490 test processes.
#include <gtest/gtest.h>

#include <set>

#include "auditor/mps_tables.hpp"
#include "auditor/native_step.hpp"
#include "auditor/trace.hpp"
#include "reports/op_evidence.hpp"
#include "core/paths.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace mpsport;

namespace {

const char* kPython = "/usr/bin/python3";

TEST(NativeStep, TorchScriptTrainStepWritesTheSameTraceFormat) {
    test::TempDir d;
    const auto script = d.write("export.py",
                                "import sys, torch\n"
                                "m = torch.jit.script(torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)))\n"
                                "m.save(sys.argv[1] + '/model.pt')\n"
                                "torch.save(torch.randn(16, 4), sys.argv[1] + '/inputs.pt')\n"
                                "torch.save(torch.randn(16, 2), sys.argv[1] + '/targets.pt')\n");
    ASSERT_EQ(test::run_command(std::string(kPython) + " " + script.string() + " " + d.path().string()).exit_code, 0);
    NativeStepOptions o;
    o.model = d.path() / "model.pt";
    o.inputs = d.path() / "inputs.pt";
    o.targets = d.path() / "targets.pt";
    o.device = "cpu";
    const auto t = run_native_step(o);
    EXPECT_EQ(t["schema"], kTraceSchema);
    EXPECT_EQ(t["status"], "complete") << t["reason"];
    EXPECT_EQ(t["steps"]["completed"], 1);
    EXPECT_EQ(t["roles"]["params"]["devices"], nlohmann::json::array({"cpu"}));
    EXPECT_EQ(t["roles"]["grads"]["dtypes"], nlohmann::json::array({"float32"}));
    std::set<std::string> phases;
    bool saw_matmul = false;
    for (const auto& op : t["ops"]) {
        phases.insert(op["phase"].get<std::string>());
        const std::string name = op["op"];
        if (name == "aten::addmm" || name == "aten::linear" || name == "aten::mm") {
            saw_matmul = true;
            EXPECT_EQ(op["dtypes"], nlohmann::json::array({"float32"}));
        }
    }
    EXPECT_TRUE(saw_matmul);
    EXPECT_TRUE(phases.count("forward") && phases.count("backward") && phases.count("optimizer"));
    EXPECT_TRUE(t["checkpoint"]["ok"].get<bool>()) << t["checkpoint"]["detail"];
    const Evidence ev = evidence_from_trace(t, load_mps_table(test::rules_dir(), "2.14.1"), "native");
    EXPECT_TRUE(ev.complete);
    EXPECT_TRUE(ev.float64_ops.empty());
}

TEST(NativeStep, BadModelFileNamesTheFile) {
    test::TempDir d;
    d.write("model.pt", "not a model");
    d.write("inputs.pt", "x");
    NativeStepOptions o;
    o.model = d.path() / "model.pt";
    o.inputs = d.path() / "inputs.pt";
    o.device = "cpu";
    try {
        run_native_step(o);
        FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("model.pt"), std::string::npos) << e.what();
    }
}

}  // namespace
