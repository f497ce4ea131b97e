// The program model on small repositories written here: entry points, reach, the repository's own
// packages, guards that travel through callers, --entry, and `check` reading the other files'
// facts from the cache without truncating it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analyzer/scanner.hpp"
#include "core/paths.hpp"
#include "test_support.hpp"

namespace mpsport {
namespace {

ScanResult scan_dir(const test::TempDir& d, ScanOptions options = {}) {
    return test::bundled_scanner().scan(d.path(), {d.path()}, options);
}

const Finding* find(const ScanResult& r, std::string_view rule, std::string_view path) {
    for (const auto& f : r.findings)
        if (f.rule_id == rule && f.location.path == path) return &f;
    return nullptr;
}

TEST(ProgramModel, OwnPackageNamedLikeACudaPackageIsNotADependency) {
    // A repository that *is* flash_attn imports flash_attn: that is itself, not an outside package.
    test::TempDir d;
    d.write("pyproject.toml", "[project]\nname = \"flash-attn\"\nversion = \"1\"\n");
    d.write("flash_attn/__init__.py", "from flash_attn.ops import attend\nimport triton\n");
    d.write("flash_attn/ops.py", "import torch\n\ndef attend(q):\n    return q\n");
    const ScanResult r = scan_dir(d);
    EXPECT_EQ(find(r, "cuda-only-package-import", "flash_attn/__init__.py")->subject, "triton") << "the real outside package is reported";
    int own = 0;
    for (const auto& f : r.findings) own += f.subject == "flash_attn" ? 1 : 0;
    EXPECT_EQ(own, 0);
}

TEST(ProgramModel, LazyImportTakesTheGuardOfItsCallers) {
    // whisper's shape: the Triton module is imported inside a function that is only called under x.is_cuda
    test::TempDir d;
    d.write("run.py", "import torch\nfrom pkg.timing import dtw\n\nif __name__ == \"__main__\":\n    dtw(torch.ones(2))\n");
    d.write("pkg/__init__.py", "");
    d.write("pkg/timing.py",
            "def dtw_cuda(x):\n    from .triton_ops import kernel\n    return kernel(x)\n\n\n"
            "def dtw(x):\n    if x.is_cuda:\n        return dtw_cuda(x)\n    return x\n");
    d.write("pkg/triton_ops.py", "import triton\n\ndef kernel(x):\n    return x\n");
    const ScanResult r = scan_dir(d);
    const Finding* f = find(r, "cuda-only-package-import", "pkg/triton_ops.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reach, Reach::optional);
    EXPECT_EQ(f->impact, VerdictImpact::none) << f->note;
    EXPECT_EQ(f->chain, (std::vector<std::string>{"run.py:2", "pkg/timing.py:2", "pkg/triton_ops.py:1"}));

    // The same module called without a guard is core.
    d.write("pkg/timing.py", "def dtw_cuda(x):\n    from .triton_ops import kernel\n    return kernel(x)\n\n\ndef dtw(x):\n    return dtw_cuda(x)\n");
    const ScanResult unguarded = scan_dir(d);
    EXPECT_EQ(find(unguarded, "cuda-only-package-import", "pkg/triton_ops.py")->reach, Reach::core);
}

TEST(ProgramModel, EntryOptionReplacesDiscovery) {
    test::TempDir d;
    d.write("a.py", "import torch\nimport helpers\n\nif __name__ == \"__main__\":\n    pass\n");
    d.write("b.py", "import torch\nx = torch.ones(2).cuda()\n");
    d.write("helpers.py", "import torch\ny = torch.ones(2).cuda()\n");
    const ScanResult discovered = scan_dir(d);
    EXPECT_EQ(find(discovered, "cuda-method-call", "b.py")->reach, Reach::unreached);
    EXPECT_EQ(find(discovered, "cuda-method-call", "helpers.py")->reach, Reach::core);
    ScanOptions o;
    o.entries = {"b.py"};
    const ScanResult chosen = scan_dir(d, o);
    ASSERT_EQ(chosen.program.entry_points.size(), 1u);
    EXPECT_EQ(chosen.program.entry_points[0].why, "--entry");
    EXPECT_EQ(find(chosen, "cuda-method-call", "b.py")->reach, Reach::core);
    EXPECT_EQ(find(chosen, "cuda-method-call", "helpers.py")->reach, Reach::unreached);
    o.entries = {"missing.py"};
    EXPECT_THROW(scan_dir(d, o), std::runtime_error);
}

TEST(ProgramModel, RepositoryConfigSetsEntriesAndTooling) {
    test::TempDir d;
    d.write("run.py", "import torch\nimport examples.demo\nimport experiments.sweep\n\nif __name__ == \"__main__\":\n    pass\n");
    d.write("examples/__init__.py", "");
    d.write("examples/demo.py", "import torch\nx = torch.ones(2).cuda()\n");
    d.write("experiments/__init__.py", "");
    d.write("experiments/sweep.py", "import torch\ny = torch.ones(2).cuda()\n");
    d.write("experiments/grid.py", "import torch\nz = torch.ones(2).cuda()\n");
    EXPECT_EQ(find(scan_dir(d), "cuda-method-call", "experiments/grid.py")->reach, Reach::unreached);
    d.write(".mpsport.toml", "entry = [\"run.py\"]\ntooling_dirs = [\"experiments\"]\nnot_tooling_dirs = [\"examples\"]\n");
    const ScanResult r = scan_dir(d);
    EXPECT_EQ(find(r, "cuda-method-call", "experiments/grid.py")->reach, Reach::tooling);
    EXPECT_EQ(find(r, "cuda-method-call", "experiments/sweep.py")->reach, Reach::core) << "reached from the entry point";
    EXPECT_EQ(find(r, "cuda-method-call", "examples/demo.py")->reach, Reach::core);
    d.write(".mpsport.toml", "tooling = [\"x\"]\n");
    try {
        scan_dir(d);
        ADD_FAILURE() << "an unknown key must be an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(".mpsport.toml: unknown key 'tooling'"), std::string::npos) << e.what();
    }
}

TEST(ProgramModel, ShellScriptsAndConsoleScriptsNameEntryPoints) {
    test::TempDir d;
    d.write("jobs/train.sh", "#!/bin/bash\n#SBATCH --nodes=1\ntorchrun --nproc_per_node 4 \\\n  tools/train.py --cfg a.yaml\n");
    d.write("tools/train.py", "import torch\n");
    d.write("Dockerfile", "FROM python:3.11\nCMD [\"python\", \"-m\", \"svc.serve\"]\n");
    d.write("svc/__init__.py", "");
    d.write("svc/serve.py", "import torch\n");
    d.write("setup.cfg", "[options.entry_points]\nconsole_scripts =\n    fit = svc.fit:main\n");
    d.write("svc/fit.py", "def main():\n    pass\n");
    const ScanResult r = scan_dir(d);
    std::map<std::string, std::string> why;
    for (const auto& e : r.program.entry_points) why[e.path] = e.why;
    EXPECT_EQ(why["tools/train.py"], "run by jobs/train.sh:3");
    EXPECT_EQ(why["svc/serve.py"], "run by Dockerfile:2");
    EXPECT_EQ(why["svc/fit.py"], "console script in setup.cfg:3");
}

TEST(ProgramModel, CheckReadsOtherFilesFromTheCacheAndKeepsThem) {
    test::TempDir d;
    d.write("train.py", "import torch\nimport model\n\nif __name__ == \"__main__\":\n    pass\n");
    d.write("model.py", "import torch\nnet = torch.nn.Linear(2, 2).cuda()\n");
    d.write("unused.py", "import torch\nother = torch.nn.Linear(2, 2).cuda()\n");
    ScanOptions full;
    full.cache_dir = d.path() / ".mpsport_cache";
    const ScanResult first = scan_dir(d, full);
    EXPECT_EQ(first.files_scanned, 3u);

    // check model.py alone: reach still comes from train.py, known only through the cache
    ScanOptions partial = full;
    partial.partial = true;
    const ScanResult checked = test::bundled_scanner().scan(d.path(), {d.path() / "model.py"}, partial);
    ASSERT_EQ(checked.findings.size(), 1u);
    EXPECT_EQ(checked.findings[0].reach, Reach::core);
    EXPECT_EQ(checked.findings[0].chain, (std::vector<std::string>{"train.py:2", "model.py:2"}));

    // and the next full scan is warm for every file: check merged into the cache, not replaced it
    const ScanResult again = scan_dir(d, full);
    EXPECT_EQ(again.files_cached, 3u);
    EXPECT_EQ(find(again, "cuda-method-call", "unused.py")->reach, Reach::unreached);
}

TEST(CommandLine, ExplainPrintsTheChainGuardAndDocs) {
    test::TempDir d;
    d.write("train.py", "import torch\nfrom pkg import ops\n\nif __name__ == \"__main__\":\n    pass\n");
    d.write("pkg/__init__.py", "");
    d.write("pkg/ops.py", "import torch\n\ndef f(x):\n    if x.is_cuda:\n        torch.cuda.synchronize()\n");
    const auto json_out = test::run_command(std::string(MPSPORT_BINARY) + " scan --no-cache --format json --fail-on none " +
                                            d.path().generic_string() + " 2>/dev/null");
    const auto j = nlohmann::json::parse(json_out.output);
    ASSERT_EQ(j["findings"].size(), 1u);
    const std::string fp = j["findings"][0]["fingerprint"];
    const auto r = test::run_command(std::string(MPSPORT_BINARY) + " explain " + fp + " --no-cache " + d.path().generic_string() + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("train.py:2"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("pkg/ops.py:5"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("guard: device-check `x.is_cuda`"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("## Why is this bad?"), std::string::npos) << r.output;
    const auto missing = test::run_command(std::string(MPSPORT_BINARY) + " explain 0000000000000000 --no-cache " + d.path().generic_string() + " 2>&1");
    EXPECT_EQ(missing.exit_code, 2);
}

}  // namespace
}  // namespace mpsport
