// The program model on small repositories written here: entry points, reach, the repository's own
// packages, guards that travel through callers, --entry, and `check` reading the other files'
// facts from the cache without truncating it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "analyzer/cuda/clang_engine.hpp"
#include "analyzer/scan_cache.hpp"
#include "analyzer/scanner.hpp"
#include "core/paths.hpp"
#include "reports/checklist.hpp"
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
// A pointer into a scan that is gone at the end of the statement (found by ASan): bind the result first.
const Finding* find(ScanResult&& r, std::string_view rule, std::string_view path) = delete;

// The finding of `rule` in each of `paths`, each expected there and unguarded.
std::vector<const Finding*> unguarded(const ScanResult& r, std::string_view rule, std::initializer_list<const char*> paths) {
    std::vector<const Finding*> out;
    for (const char* path : paths) {
        const Finding* f = find(r, rule, path);
        EXPECT_NE(f, nullptr) << path;
        if (!f) continue;
        EXPECT_EQ(f->guard, GuardKind::none) << path << ": " << f->guard_note;
        out.push_back(f);
    }
    return out;
}

// The findings of one rule in one file, by line.
std::map<int, const Finding*> by_line(const ScanResult& r, std::string_view rule, std::string_view path) {
    std::map<int, const Finding*> out;
    for (const auto& f : r.findings)
        if (f.rule_id == rule && f.location.path == path) out[f.location.line] = &f;
    return out;
}
std::map<int, const Finding*> by_line(ScanResult&& r, std::string_view rule, std::string_view path) = delete;

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

// Megatron-LM's own code is the namespace package megatron/ (no __init__.py; megatron/core and
// megatron/training are its packages), whose name the packages catalogue gives Megatron-Core: its
// imports of megatron.core are itself, not an outside CUDA-only package.
TEST(ProgramModel, AnOwnNamespacePackageNamedLikeACudaPackageIsNotADependency) {
    test::TempDir d;
    d.write("pyproject.toml", "[project]\nname = \"megatron-core\"\nversion = \"1\"\n");
    d.write("megatron/core/__init__.py", "from megatron.core.layers import Linear\n");
    d.write("megatron/core/layers.py", "import torch\n\n\nclass Linear(torch.nn.Module):\n    pass\n");
    d.write("megatron/training/__init__.py", "");
    d.write("megatron/training/loop.py", "import torch\nfrom megatron.core import Linear\nimport transformer_engine\n");
    d.write("pretrain_gpt.py", "from megatron.training.loop import Linear\n\nif __name__ == '__main__':\n    Linear()\n");
    const ScanResult r = scan_dir(d);
    const Finding* te = find(r, "cuda-only-package-import", "megatron/training/loop.py");
    ASSERT_NE(te, nullptr);
    EXPECT_EQ(te->subject, "transformer_engine") << "the real outside package is reported";
    for (const auto& f : r.findings) EXPECT_NE(f.subject, "megatron") << f.location.path << ":" << f.location.line << " " << f.message;
}

// peft's examples/sft/requirements.txt lists deepspeed, which the package's own code imports: the
// top-level requirements.txt and setup.py that declare it too are as needed as that import, the
// example's declaration is installed only to run the example (tooling).
TEST(ProgramModel, ADeclarationInAnExamplesFolderIsTooling) {
    test::TempDir d;
    d.write("requirements.txt", "torch\ndeepspeed\n");
    d.write("setup.py", "from setuptools import setup\nsetup(name='lib', packages=['lib'], install_requires=['deepspeed'])\n");
    d.write("examples/sft/requirements.txt", "transformers\ndeepspeed\n");
    d.write("examples/sft/train.py", "import deepspeed\n\nif __name__ == '__main__':\n    deepspeed.init_distributed()\n");
    d.write("lib/__init__.py", "import deepspeed\n");
    d.write("train.py", "import lib\n\nif __name__ == '__main__':\n    print(lib)\n");
    const ScanResult r = scan_dir(d);
    const Finding* top = find(r, "cuda-only-package-dependency", "requirements.txt");
    const Finding* example = find(r, "cuda-only-package-dependency", "examples/sft/requirements.txt");
    ASSERT_NE(top, nullptr);
    ASSERT_NE(example, nullptr);
    EXPECT_EQ(top->reach, Reach::core) << top->note;
    // setup.py is packaging by its name, yet its install_requires is the project's own install
    const Finding* setup = find(r, "cuda-only-package-dependency", "setup.py");
    ASSERT_NE(setup, nullptr);
    EXPECT_EQ(setup->reach, Reach::core) << setup->note;
    EXPECT_EQ(example->reach, Reach::tooling) << example->note;
    EXPECT_EQ(example->impact, VerdictImpact::none) << example->note;
    EXPECT_NE(example->note.find("declared only for the examples"), std::string::npos) << example->note;
}

// CogView3's inference/requirements.txt lists deepspeed, which only sat/ imports: the program that
// manifest installs for (inference/) never loads it, so the line is one to drop (tooling, no verdict
// impact). sat/requirements.txt, beside the import, keeps the import's reach; so does a manifest in a
// folder without Python code (requirements/base.txt).
TEST(ProgramModel, ADeclarationNoFileOfItsFolderImportsIsTooling) {
    test::TempDir d;
    d.write("inference/requirements.txt", "diffusers\ndeepspeed\n");
    d.write("inference/cli_demo.py", "import torch\n\nif __name__ == '__main__':\n    torch.ones(2)\n");
    d.write("sat/requirements.txt", "deepspeed\n");
    d.write("requirements/base.txt", "deepspeed\n");
    d.write("sat/arguments.py", "import deepspeed\n\n\ndef get_args(parser):\n    return deepspeed.add_config_arguments(parser)\n");
    d.write("sat/train.py", "import argparse\nfrom arguments import get_args\n\nif __name__ == '__main__':\n    get_args(argparse.ArgumentParser())\n");
    const ScanResult r = scan_dir(d);
    const Finding* unused = find(r, "cuda-only-package-dependency", "inference/requirements.txt");
    const Finding* beside = find(r, "cuda-only-package-dependency", "sat/requirements.txt");
    const Finding* codeless = find(r, "cuda-only-package-dependency", "requirements/base.txt");
    ASSERT_NE(unused, nullptr);
    ASSERT_NE(beside, nullptr);
    ASSERT_NE(codeless, nullptr);
    EXPECT_EQ(unused->reach, Reach::tooling) << unused->note;
    EXPECT_EQ(unused->impact, VerdictImpact::none) << unused->note;
    EXPECT_NE(unused->note.find("declared for inference/, whose code never imports it (only sat/arguments.py:1 does)"), std::string::npos) << unused->note;
    EXPECT_EQ(beside->reach, Reach::core) << beside->note;
    EXPECT_EQ(codeless->reach, Reach::core) << codeless->note;
}

// THUDM/ChatGLM-6B declares cpm_kernels (CUDA-only INT4/INT8 kernels) and never imports it: the model
// code it runs comes from the Hub (`trust_remote_code=True`), and that code's quantize() does. Such a
// declaration keeps its weight; the same declaration in a repository that runs no remote code is an
// install line to leave out. A test that loads remote code does not count.
TEST(ProgramModel, ADeclaredPackageThatOnlyHubCodeCanImportKeepsItsWeight) {
    test::TempDir d;
    d.write("requirements.txt", "torch\ntransformers\ncpm_kernels\n");
    d.write("cli_demo.py", "from transformers import AutoModel\n\nif __name__ == '__main__':\n    model = AutoModel.from_pretrained('x')\n");
    d.write("tests/test_load.py", "from transformers import AutoModel\n\n\ndef test_load():\n    AutoModel.from_pretrained('x', trust_remote_code=True)\n");
    const auto cpm = [](const ScanResult& r) { return find(r, "cuda-only-package-dependency", "requirements.txt"); };
    const ScanResult plain = scan_dir(d);
    ASSERT_NE(cpm(plain), nullptr);
    EXPECT_EQ(cpm(plain)->impact, VerdictImpact::none) << cpm(plain)->note;
    EXPECT_NE(cpm(plain)->note.find("no code of the repository imports cpm_kernels: leave it out"), std::string::npos) << cpm(plain)->note;

    d.write("cli_demo.py",
            "from transformers import AutoModel\n\nif __name__ == '__main__':\n    model = AutoModel.from_pretrained('x', trust_remote_code=True)\n"
            "    model = model.quantize(4)\n");
    const ScanResult remote = scan_dir(d);
    ASSERT_NE(cpm(remote), nullptr);
    EXPECT_EQ(cpm(remote)->impact, VerdictImpact::dual) << cpm(remote)->note;
    EXPECT_NE(cpm(remote)->note.find("cli_demo.py:4 runs model code from the Hub (trust_remote_code=True), which may"), std::string::npos)
        << cpm(remote)->note;
    // the fact survives the scan cache: a warm scan that reads no file says the same
    test::TempDir cache;
    ScanOptions o;
    o.cache_dir = cache.path();
    scan_dir(d, o);
    d.write("requirements.txt", "torch\ntransformers\ncpm_kernels\n# edited\n");  // re-read; cli_demo.py from the cache
    const ScanResult warm = scan_dir(d, o);
    ASSERT_NE(cpm(warm), nullptr);
    EXPECT_EQ(cpm(warm)->impact, VerdictImpact::dual) << cpm(warm)->note;
}

// A declared package is as needed as the code's uses of it: MiniGPT-4 declares bitsandbytes and loads
// it only through `load_in_8bit=True` under an option. A module-level use keeps the declaration's
// weight, and an import that says only which build is used (mmcv's pure parts) leaves it as it is.
TEST(ProgramModel, ADeclaredPackageIsAsNeededAsItsUsesInTheCode) {
    test::TempDir d;
    d.write("requirements.txt", "torch\nbitsandbytes==0.45.0\nmmcv-full\ndeepspeed\n");
    d.write("train.py", "from mmcv.utils import Registry\nfrom model import init_llm\n\nif __name__ == \"__main__\":\n    init_llm('x')\n");
    d.write("model.py",
            "def init_llm(path, low_resource=False):\n    if low_resource:\n"
            "        return Llama.from_pretrained(path, load_in_8bit=True)\n    return Llama.from_pretrained(path)\n");
    const ScanResult r = scan_dir(d);
    const auto declared = by_line(r, "cuda-only-package-dependency", "requirements.txt");
    ASSERT_TRUE(declared.count(2) && declared.count(3) && declared.count(4));
    EXPECT_EQ(declared.at(2)->impact, VerdictImpact::none) << declared.at(2)->note;
    EXPECT_EQ(declared.at(2)->severity, Severity::info) << "its one use is an option, at info";
    EXPECT_NE(declared.at(2)->note.find("as needed as its heaviest use in the code, model.py:3"), std::string::npos) << declared.at(2)->note;
    EXPECT_EQ(declared.at(3)->impact, VerdictImpact::dual) << "an import of mmcv's pure parts says nothing of mmcv-full's ops";
    // deepspeed: declared, and no code imports it (generative-models' triton in requirements/pt2.txt):
    // leaving it out of the Mac install is the edit, no verdict
    EXPECT_EQ(declared.at(4)->impact, VerdictImpact::none) << declared.at(4)->note;
    EXPECT_EQ(declared.at(4)->severity, Severity::major) << declared.at(4)->note;
    EXPECT_NE(declared.at(4)->note.find("no code of the repository imports deepspeed"), std::string::npos) << declared.at(4)->note;

    d.write("model.py", "BNB = dict(load_in_8bit=True)\n\ndef init_llm(path):\n    return Llama.from_pretrained(path, **BNB)\n");
    const ScanResult again = scan_dir(d);
    const auto kept = by_line(again, "cuda-only-package-dependency", "requirements.txt");
    ASSERT_TRUE(kept.count(2));
    EXPECT_EQ(kept.at(2)->impact, VerdictImpact::dual) << kept.at(2)->note;

    // generative-models' xformers: imported only with a fallback (info, import-fallback guard), so its
    // declaration is as needed as that use, not a build choice
    d.write("requirements.txt", "torch\nxformers\n");
    d.write("model.py", "try:\n    import xformers.ops\nexcept ImportError:\n    xformers = None\n\n\ndef init_llm(path):\n    return path\n");
    const ScanResult fallback = scan_dir(d);
    const Finding* xformers = find(fallback, "cuda-only-package-dependency", "requirements.txt");
    ASSERT_NE(xformers, nullptr);
    EXPECT_EQ(xformers->impact, VerdictImpact::none) << xformers->note;
    const Finding* use = find(fallback, "optional-cuda-only-package-import", "model.py");
    ASSERT_NE(use, nullptr);
    EXPECT_EQ(use->guard, GuardKind::import_fallback) << use->guard_note;
    EXPECT_EQ(use->severity, Severity::info) << use->note;

    // Marigold's trainers switch xformers on for speed, unguarded: the call raises on a Mac until it is
    // dropped (major, no verdict), while the declaration is one line to keep out of the Mac install: minor.
    d.write("model.py", "def init_llm(pipe):\n    pipe.unet.enable_xformers_memory_efficient_attention()\n    return pipe\n");
    const ScanResult toggled = scan_dir(d);
    const Finding* toggle = find(toggled, "cuda-only-package-import", "model.py");
    ASSERT_NE(toggle, nullptr);
    EXPECT_EQ(toggle->severity, Severity::major) << toggle->note;
    EXPECT_EQ(toggle->impact, VerdictImpact::none) << toggle->note;
    xformers = find(toggled, "cuda-only-package-dependency", "requirements.txt");
    ASSERT_NE(xformers, nullptr);
    EXPECT_EQ(xformers->severity, Severity::minor) << xformers->note;
    EXPECT_EQ(xformers->impact, VerdictImpact::none) << xformers->note;

    // alphafold2 declares pytorch3d and imports only its pure part (quaternion helpers): the package
    // as declared installs on macOS and that part runs there, so the declaration weighs what the use
    // does. mmcv-full declared beside mmcv's pure parts stays a build choice (above).
    d.write("requirements.txt", "torch\npytorch3d\n");
    d.write("model.py", "from pytorch3d.transforms import quaternion_multiply\n\n\ndef init_llm(path):\n    return path\n");
    const ScanResult pure = scan_dir(d);
    const Finding* p3d = find(pure, "cuda-only-package-dependency", "requirements.txt");
    ASSERT_NE(p3d, nullptr);
    EXPECT_EQ(p3d->impact, VerdictImpact::none) << p3d->note;
    d.write("model.py", "from pytorch3d.ops import knn_points\n\n\ndef init_llm(path):\n    return path\n");
    const ScanResult ops = scan_dir(d);
    p3d = find(ops, "cuda-only-package-dependency", "requirements.txt");
    ASSERT_NE(p3d, nullptr);
    EXPECT_EQ(p3d->impact, VerdictImpact::dual) << p3d->note;
}

// What runs only on Linux hosts is info, wherever the model reaches it from: a Dockerfile (Docker on
// macOS runs Linux containers with no access to the GPU; rules/program.yaml file_kind_weights), and
// continuous integration and release packaging (build_hosts: gsplat's .github/workflows/cuda/Linux.sh,
// pytorch3d's packaging/linux_wheels). The same lines in a build script, or an example, keep their weight.
TEST(ProgramModel, WhatRunsOnlyOnLinuxHostsIsInfo) {
    test::TempDir d;
    d.write("Dockerfile", "FROM nvidia/cuda:12.1.0-devel-ubuntu22.04\nENV FORCE_CUDA=1\nCOPY . /app\nCMD python train.py\n");
    d.write(".github/workflows/cuda/Linux.sh", "sudo apt-get install -y cuda-nvcc-12-1\nexport FORCE_CUDA=1\n");
    d.write("packaging/linux_wheels/inside.sh", "export FORCE_CUDA=1\npython setup.py bdist_wheel\n");
    d.write("build.sh", "export FORCE_CUDA=1\npython setup.py develop\n");
    d.write("examples/build.sh", "export FORCE_CUDA=1\npython setup.py develop\n");
    d.write("train.py", "import torch\n\nif __name__ == \"__main__\":\n    torch.zeros(1)\n");
    const ScanResult r = scan_dir(d);
    auto weighed = [&](std::string_view rule, std::string_view path, Severity severity, std::string_view why) {
        const Finding* f = find(r, rule, path);
        ASSERT_NE(f, nullptr) << rule << " in " << path;
        EXPECT_EQ(f->severity, severity) << path << ": " << f->note;
        EXPECT_NE(f->note.find(why), std::string::npos) << path << ": " << f->note;
    };
    weighed("cuda-base-image", "Dockerfile", Severity::info, "in a dockerfile (Docker on macOS runs Linux containers");
    weighed("cuda-build-env", "Dockerfile", Severity::info, "in a dockerfile");
    weighed("cuda-build-env", ".github/workflows/cuda/Linux.sh", Severity::info, "in .github/ (continuous integration");
    weighed("cuda-build-env", "packaging/linux_wheels/inside.sh", Severity::info, "in packaging/");
    const Finding* build = find(r, "cuda-build-env", "build.sh");
    ASSERT_NE(build, nullptr);
    EXPECT_GT(build->rule_severity, Severity::info);
    weighed("cuda-build-env", "build.sh", build->rule_severity, "");
    weighed("cuda-build-env", "examples/build.sh", Severity::minor, "");
    EXPECT_EQ(find(r, "cuda-build-env", "examples/build.sh")->reach, Reach::tooling);
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

// bigscience-workshop/petals: make_inference_graphed_callable() (CUDA graphs and streams) is called in
// `_optimized_*` methods, which `forward` calls only under `x.device.type == "cuda"`; another class's
// __init__ builds the class unguarded. A method called by its own name runs where those calls are, not
// where its class is built: the device check is its guard.
TEST(ProgramModel, AMethodCalledByItsNameTakesTheGuardOfThoseCallsNotOfItsClass) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/graphs.py", "import torch\n\n\ndef make_graphed(fn, args):\n    s = torch.cuda.Stream()\n    return fn\n");
    const std::string attn =
        "import torch\nfrom pkg.graphs import make_graphed\n\n\nclass Attn(torch.nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.g = None\n\n    def _optimized(self, x):\n        if self.g is None:\n"
        "            self.g = make_graphed(torch.relu, (x,))\n        return self.g(x)\n\n";
    const std::string layer =
        "\n\nclass Layer(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.attn = Attn()\n\n"
        "    def forward(self, x):\n        return self.attn(x)\n";
    d.write("train.py", "import torch\nfrom pkg.block import Layer\n\nif __name__ == '__main__':\n    print(Layer()(torch.ones(2, 1)))\n");
    d.write("pkg/block.py", attn +
                                "    def forward(self, x):\n        if x.size(1) == 1 and x.device.type == \"cuda\":\n"
                                "            return self._optimized(x)\n        return torch.relu(x)\n" + layer);
    const ScanResult r = scan_dir(d);
    const Finding* stream = find(r, "torch-cuda-stream-event", "pkg/graphs.py");
    ASSERT_NE(stream, nullptr);
    EXPECT_EQ(stream->guard, GuardKind::device_check) << stream->guard_note;
    EXPECT_NE(stream->guard_note.find("callers of _optimized()"), std::string::npos) << stream->guard_note;
    // called unguarded by its name: no guard, whatever builds the class
    d.write("pkg/block.py", attn + "    def forward(self, x):\n        return self._optimized(x)\n" + layer);
    const ScanResult open = scan_dir(d);
    const Finding* unguarded = find(open, "torch-cuda-stream-event", "pkg/graphs.py");
    ASSERT_NE(unguarded, nullptr);
    EXPECT_EQ(unguarded->guard, GuardKind::none) << unguarded->guard_note;
}

// Open-Sora's vo_ops.py: a function called only in the __main__ block of a module that the run
// imports and no command runs is a self-test's, never the run's. Run by a command, or called by the
// run too, it keeps its finding.
TEST(ProgramModel, AFunctionCalledOnlyByAModulesSelfTestIsNeverCalledByTheRun) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    const std::string ops = "import torch\n\n\ndef interpolate(x):\n    return x\n\n\ndef smoke():\n    x = torch.zeros(2).cuda()\n"
                            "    return interpolate(x)\n\n\nif __name__ == '__main__':\n    smoke()\n";
    d.write("pkg/ops.py", ops);
    d.write("pkg/run_ops.py", ops);
    d.write("pkg/shared_ops.py", ops);
    d.write("scripts/check.sh", "python -m pkg.run_ops\n");
    d.write("train.py", "import pkg.ops\nimport pkg.run_ops\nfrom pkg.shared_ops import smoke\n\nif __name__ == '__main__':\n"
                        "    print(pkg.ops.interpolate(1), pkg.run_ops.interpolate(2), smoke())\n");
    const ScanResult r = scan_dir(d);
    const Finding* self_test = find(r, "cuda-method-call", "pkg/ops.py");
    ASSERT_NE(self_test, nullptr);
    EXPECT_EQ(self_test->guard, GuardKind::never_called) << self_test->guard_note;
    EXPECT_EQ(self_test->guard_note.rfind("every call of smoke() is in the __main__ block (line 13) of a module that train.py:1 imports", 0), 0u)
        << self_test->guard_note;
    EXPECT_EQ(self_test->severity, Severity::info);
    for (const Finding* kept : unguarded(r, "cuda-method-call", {"pkg/run_ops.py", "pkg/shared_ops.py"}))
        EXPECT_EQ(kept->reach, Reach::core) << kept->location.path;
}

// axolotl's fix_mamba_attn_for_loss(): a module that only an import inside a function loads runs
// where that function does, so its module-level findings take the guard of every call of the function.
// A module that another import loads too, or whose loading function is called unguarded, keeps its own.
TEST(ProgramModel, AModuleLoadedOnlyInsideAFunctionTakesItsCallersGuard) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/fused.py", "import triton\n\n\ndef fused(x):\n    return triton.cdiv(x, 2)\n");
    d.write("pkg/always.py", "import triton\n\n\ndef fused(x):\n    return triton.cdiv(x, 2)\n");
    d.write("pkg/shared.py", "import triton\n\n\ndef fused(x):\n    return triton.cdiv(x, 2)\n");
    d.write("pkg/build.py", "def load_fused():\n    from .fused import fused\n    return fused\n\n\n"
                            "def load_always():\n    from .always import fused\n    return fused\n\n\n"
                            "def load_shared():\n    from .shared import fused\n    return fused\n");
    d.write("pkg/tools.py", "from .shared import fused\n");
    d.write("train.py", "import os\nimport pkg.tools\nfrom pkg.build import load_fused, load_always, load_shared\n\n"
                        "if __name__ == '__main__':\n    if int(os.environ.get('WORLD_SIZE', 1)) > 1:\n        f = load_fused()\n"
                        "        g = load_shared()\n    h = load_always()\n");
    const ScanResult r = scan_dir(d);
    const Finding* fused = find(r, "cuda-only-package-import", "pkg/fused.py");
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(fused->guard, GuardKind::distributed_gate) << fused->guard_note;
    EXPECT_EQ(fused->guard_note.rfind("loaded only by the import in load_fused() (pkg/build.py:2); every call of load_fused() is guarded", 0), 0u)
        << fused->guard_note;
    EXPECT_NE(fused->impact, VerdictImpact::stay) << fused->note;
    const bool related_call = std::any_of(fused->related.begin(), fused->related.end(), [](const RelatedLocation& rel) {
        return rel.location.path == "train.py" && rel.location.line == 7 && rel.label.rfind("calls load_fused()", 0) == 0;
    });
    EXPECT_TRUE(related_call);
    for (const Finding* kept : unguarded(r, "cuda-only-package-import", {"pkg/always.py", "pkg/shared.py"}))
        EXPECT_EQ(kept->impact, VerdictImpact::stay) << kept->location.path;
}

// yolov5's smart_DDP(): the DDP wrap sits in a helper that only guarded callers call, in other files,
// through a from-import, a module import and a relative import. The finding takes their guard; one
// unguarded call, a use that is not a call, or a decorator (which may register the function where no
// call shows) leaves it unguarded.
TEST(ProgramModel, AFunctionThatEveryCallerGuardsTakesTheirGuard) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/dist.py", "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n\n"
                           "def wrap(model):\n    return DDP(model, device_ids=[0])\n\n\n"
                           "def main_device():\n    return torch.device('cuda')\n");
    d.write("pkg/trainer.py", "import os\nfrom .dist import wrap\n\n\ndef fit(model):\n"
                              "    if int(os.environ.get('WORLD_SIZE', 1)) > 1:\n        model = wrap(model)\n    return model\n");
    d.write("train.py", "import os\nimport torch\nfrom pkg.dist import wrap\nfrom pkg.trainer import fit\n\n"
                        "RANK = int(os.environ.get('RANK', -1))\n\nif __name__ == '__main__':\n    model = torch.nn.Linear(2, 2)\n"
                        "    if RANK != -1:\n        model = wrap(model)\n    fit(model)\n");
    d.write("tools/eval.py", "import pkg.dist as dist\n\nif __name__ == '__main__':\n    print(dist.main_device())\n");
    const ScanResult r = scan_dir(d);
    const Finding* ddp = find(r, "distributed-data-parallel", "pkg/dist.py");
    ASSERT_NE(ddp, nullptr);
    EXPECT_EQ(ddp->guard, GuardKind::distributed_gate) << ddp->guard_note;
    EXPECT_EQ(ddp->guard_note.rfind("every call of wrap() is guarded", 0), 0u) << ddp->guard_note;
    EXPECT_EQ(ddp->impact, VerdictImpact::none) << ddp->note;
    std::vector<std::string> calls;
    for (const auto& rel : ddp->related)
        if (rel.label.rfind("calls wrap()", 0) == 0) calls.push_back(rel.location.path + ":" + std::to_string(rel.location.line));
    EXPECT_EQ(calls, (std::vector<std::string>{"pkg/trainer.py:7", "train.py:11"}));
    // a function called without a guard (through `import pkg.dist as dist`) keeps its finding
    const Finding* device = find(r, "hardcoded-cuda-device", "pkg/dist.py");
    ASSERT_NE(device, nullptr);
    EXPECT_EQ(device->guard, GuardKind::none) << device->guard_note;

    // calls under different guards: the weakest wins (a try with a fallback leaves more of the path
    // than a distributed gate, which a single-process run never passes)
    d.write("train.py", "import os\nimport torch\nfrom pkg.dist import wrap\nfrom pkg.trainer import fit\n\n"
                        "if __name__ == '__main__':\n    model = torch.nn.Linear(2, 2)\n"
                        "    try:\n        model = wrap(model)\n    except ImportError:\n        pass\n    fit(model)\n");
    const ScanResult mixed_scan = scan_dir(d);
    const Finding* mixed = find(mixed_scan, "distributed-data-parallel", "pkg/dist.py");
    ASSERT_NE(mixed, nullptr);
    EXPECT_EQ(mixed->guard, GuardKind::import_fallback) << mixed->guard_note;

    // one unguarded call, through the module, and the DDP wrap is unguarded again
    d.write("tools/eval.py", "import pkg.dist as dist\n\nif __name__ == '__main__':\n    print(dist.main_device())\n    dist.wrap(None)\n");
    const ScanResult again_scan = scan_dir(d);
    const Finding* again = find(again_scan, "distributed-data-parallel", "pkg/dist.py");
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->guard, GuardKind::none) << again->guard_note;

    // a use that is not a call: where it runs is not known
    d.write("tools/eval.py", "from pkg.dist import wrap\n\nHOOKS = [wrap]\n");
    const ScanResult passed_scan = scan_dir(d);
    const Finding* passed = find(passed_scan, "distributed-data-parallel", "pkg/dist.py");
    ASSERT_NE(passed, nullptr);
    EXPECT_EQ(passed->guard, GuardKind::none) << passed->guard_note;

    // a decorated function may be called by whatever the decorator hands it to: its calls are not known
    d.write("tools/eval.py", "print(1)\n");
    d.write("pkg/dist.py", "from torch.nn.parallel import DistributedDataParallel as DDP\nfrom .hooks import on_start\n\n\n"
                           "@on_start\ndef wrap(model):\n    return DDP(model, device_ids=[0])\n");
    d.write("pkg/hooks.py", "def on_start(f):\n    return f\n");
    const ScanResult decorated_scan = scan_dir(d);
    const Finding* decorated = find(decorated_scan, "distributed-data-parallel", "pkg/dist.py");
    ASSERT_NE(decorated, nullptr);
    EXPECT_EQ(decorated->guard, GuardKind::none) << decorated->guard_note;
    // a registry decorator (guards.registry_calls) stores it for a name a config picks: one more
    // choice of it beside its calls, which keep their guards
    d.write("pkg/dist.py", "from torch.nn.parallel import DistributedDataParallel as DDP\nfrom .registry import register\n\n\n"
                           "@register\ndef wrap(model):\n    return DDP(model, device_ids=[0])\n");
    d.write("pkg/registry.py", "def register(f):\n    return f\n");
    const ScanResult registered_scan = scan_dir(d);
    const Finding* registered = find(registered_scan, "distributed-data-parallel", "pkg/dist.py");
    ASSERT_NE(registered, nullptr);
    EXPECT_EQ(registered->guard, GuardKind::import_fallback) << registered->guard_note;
    EXPECT_TRUE(std::any_of(registered->related.begin(), registered->related.end(),
                            [](const RelatedLocation& l) { return l.label.find("registered by @register") != std::string::npos; }))
        << registered->guard_note;
}

// The caller-guard pass parses a large calling file only in part: the statements that name the
// function, and those naming the functions they sit in, up the callers. Here the guard is three
// calls up, with 12 KB of unrelated functions between the steps; a parse of only the statements that
// name wrap() would see launch() called by nobody, and leave the DDP finding unguarded.
TEST(ProgramModel, CallerGuardsInALargeFileAreFoundThroughItsOwnCallers) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/dist.py", "from torch.nn.parallel import DistributedDataParallel as DDP\n\n\ndef wrap(model):\n    return DDP(model)\n");
    std::string train = "import os\nimport torch\nfrom pkg.dist import wrap\n\nRANK = int(os.environ.get('RANK', -1))\n\n\n"
                        "def launch(model):\n    return wrap(model)\n\n\n";
    auto pad = [&](const std::string& prefix) {
        for (int i = 0; i < 120; ++i) train += "def " + prefix + std::to_string(i) + "(x):\n    return x * " + std::to_string(i) + "\n\n\n";
    };
    pad("before_");
    train += "def outer(model):\n    return launch(model)\n\n\n";
    pad("after_");
    train += "if __name__ == '__main__':\n    model = torch.nn.Linear(2, 2)\n    if RANK != -1:\n        model = outer(model)\n";
    ASSERT_GT(train.size(), 8192u);
    d.write("train.py", train);
    for (bool full_parse : {false, true}) {
        ScanOptions o;
        o.full_parse = full_parse;
        const ScanResult r = scan_dir(d, o);
        const Finding* ddp = find(r, "distributed-data-parallel", "pkg/dist.py");
        ASSERT_NE(ddp, nullptr);
        EXPECT_EQ(ddp->guard, GuardKind::distributed_gate) << "full parse " << full_parse << ": " << ddp->guard_note;
        EXPECT_EQ(ddp->impact, VerdictImpact::none) << ddp->note;
    }
}


// timm's Task.prepare_distributed(): the DDP wrap sits in a method, and train.py calls it only under
// `if args.distributed:`. Methods are followed by name across the repository (FileFacts::attribute_names
// says which files call `.name(`); an override that delegates with super() stands for its caller.
TEST(ProgramModel, AMethodThatEveryCallerGuardsTakesTheirGuard) {
    test::TempDir d;
    test::TempDir cache;
    d.write("pkg/__init__.py", "");
    d.write("pkg/task.py", "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n\n"
                           "class Task:\n    def __init__(self, model):\n        self.model = model\n\n"
                           "    def prepare_distributed(self, ids):\n        self.model = DDP(self.model, device_ids=ids)\n        return self\n\n"
                           "    def forward(self, x):\n        return x.cuda()\n\n\n"
                           "class Distill(Task):\n    def prepare_distributed(self, ids):\n        super().prepare_distributed(ids)\n"
                           "        self.teacher = DDP(self.teacher, device_ids=ids)\n        return self\n");
    d.write("train.py", "import argparse\nimport torch\nfrom pkg.task import Distill\n\nif __name__ == '__main__':\n"
                        "    args = argparse.ArgumentParser().parse_args()\n    task = Distill(torch.nn.Linear(2, 2))\n"
                        "    if args.distributed:\n        task.prepare_distributed([0])\n"
                        "    if torch.cuda.is_available():\n        task.forward(torch.ones(1))\n");
    ScanOptions o;
    o.cache_dir = cache.path();
    auto wraps = [](const ScanResult& r) { return by_line(r, "distributed-data-parallel", "pkg/task.py"); };
    const ScanResult r = scan_dir(d, o);
    auto at = wraps(r);
    ASSERT_EQ(at.size(), 2u);
    for (const auto& [line, f] : at) {
        EXPECT_EQ(f->guard, GuardKind::distributed_gate) << line << ": " << f->guard_note;
        EXPECT_EQ(f->guard_note.rfind("every call of .prepare_distributed() is guarded; train.py:9", 0), 0u) << f->guard_note;
        EXPECT_EQ(f->impact, VerdictImpact::none) << f->note;
    }
    ASSERT_EQ(at[10]->related.size(), 1u);
    EXPECT_EQ(at[10]->related[0].location.path + ":" + std::to_string(at[10]->related[0].location.line), "train.py:9");
    // forward is run by nn.Module.__call__ where no call is written: its guarded explicit call says nothing
    const Finding* cuda = find(r, "cuda-method-call", "pkg/task.py");
    ASSERT_NE(cuda, nullptr);
    EXPECT_EQ(cuda->guard, GuardKind::none) << cuda->guard_note;

    // from the cache, after an unrelated edit: the calling files are known from their cached facts
    d.write("README.md", "edited\n");
    const ScanResult warm = scan_dir(d, o);
    EXPECT_GE(warm.files_cached + 1, warm.files_scanned);
    for (const auto& [line, f] : wraps(warm)) EXPECT_EQ(f->guard, GuardKind::distributed_gate) << line;

    // one unguarded call, in a file that never imports the class (the object comes from elsewhere)
    d.write("tools/launch.py", "def go(task):\n    return task.prepare_distributed([0])\n");
    {
        const ScanResult again = scan_dir(d, o);
        for (const auto& [line, f] : wraps(again)) EXPECT_EQ(f->guard, GuardKind::none) << line << ": " << f->guard_note;
    }
    // a use that is not a call, or the name handed to getattr: where it runs is not known
    d.write("tools/launch.py", "def hooks(task):\n    return [task.prepare_distributed]\n");
    {
        const ScanResult again = scan_dir(d, o);
        for (const auto& [line, f] : wraps(again)) EXPECT_EQ(f->guard, GuardKind::none) << line << ": " << f->guard_note;
    }
    d.write("tools/launch.py", "def hooks(task):\n    return getattr(task, 'prepare_distributed')([0])\n");
    {
        const ScanResult again = scan_dir(d, o);
        for (const auto& [line, f] : wraps(again)) EXPECT_EQ(f->guard, GuardKind::none) << line << ": " << f->guard_note;
    }
    // a notebook that calls it: its calls are not read, so nothing is assumed
    d.write("tools/launch.py", "print(1)\n");
    d.write("demo.ipynb", R"({"cells": [{"cell_type": "code", "metadata": {}, "source": ["task.prepare_distributed([0])\n"], "outputs": [], "execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})");
    {
        const ScanResult again = scan_dir(d, o);
        for (const auto& [line, f] : wraps(again)) EXPECT_EQ(f->guard, GuardKind::none) << line << ": " << f->guard_note;
    }
    std::filesystem::remove(d.path() / "demo.ipynb");
    {
        const ScanResult again = scan_dir(d, o);
        for (const auto& [line, f] : wraps(again)) EXPECT_EQ(f->guard, GuardKind::distributed_gate) << line << ": " << f->guard_note;
    }
}

// score_sde's `def get_pc_sampler(..., device='cuda')`: every call passes device=config.device, so the
// default never applies. By keyword or by position (a method's calls skip self); a call that passes
// neither, or spreads **kwargs (timm's `TrainBenchmarkRunner(**vars(args))`), keeps the finding.
TEST(ProgramModel, ADefaultThatEveryCallPassesIsInfo) {
    test::TempDir d;
    test::TempDir cache;
    d.write("pkg/__init__.py", "");
    const std::string sampling = "import torch\n\n\ndef get_sampler(shape, eps=1e-3, device='cuda'):\n"
                                 "    return torch.zeros(shape, device=device) + eps\n\n\n"
                                 "class Runner:\n    def __init__(self, model):\n        self.model = model\n\n"
                                 "    def sample(self, x, device='cuda'):\n        return self.model(x.to(device))\n\n\n"
                                 "def restore(path, device='cuda'):\n    return torch.load(path, map_location=device)\n";
    d.write("pkg/sampling.py", sampling);
    d.write("train.py", "import torch\nfrom pkg.sampling import get_sampler, restore\nfrom pkg.sampling import Runner\n\n"
                        "if __name__ == '__main__':\n    dev = 'cpu'\n    s = get_sampler((2, 2), device=dev)\n"
                        "    t = get_sampler((3, 3), 1e-2, dev)\n    r = Runner(torch.nn.Linear(2, 2))\n    r.sample(torch.ones(2), dev)\n"
                        "    restore('a.pt')\n");
    ScanOptions o;
    o.cache_dir = cache.path();
    auto at = [](const ScanResult& r) { return by_line(r, "cuda-default-argument", "pkg/sampling.py"); };
    for (int pass = 0; pass < 2; ++pass) {  // parsed, then from the cache
        const ScanResult r = scan_dir(d, o);
        auto found = at(r);
        ASSERT_EQ(found.size(), 3u);
        // eps=1e-3 on the same line is passed by one call only: the default in question is device's
        EXPECT_EQ(found.at(4)->guard, GuardKind::default_unused) << pass << ": " << found.at(4)->guard_note;
        EXPECT_EQ(found.at(4)->guard_note, "every call of get_sampler() passes device (train.py:7)");
        EXPECT_EQ(found.at(4)->severity, Severity::info);
        std::vector<int> related;
        for (const auto& rel : found.at(4)->related) related.push_back(rel.location.line);
        EXPECT_EQ(related, (std::vector<int>{7, 8}));
        EXPECT_EQ(found.at(12)->guard, GuardKind::default_unused) << pass << ": " << found.at(12)->guard_note;
        EXPECT_EQ(found.at(16)->guard, GuardKind::none) << "restore('a.pt') keeps the default: " << found.at(16)->guard_note;
        EXPECT_EQ(found.at(16)->severity, Severity::minor);
        if (pass == 1) {
            EXPECT_GE(r.files_cached + 1, r.files_scanned);
        }
        d.write("README.md", "edited\n");
    }
    // one call that passes only eps, one that spreads **kwargs, one that passes the method too few
    d.write("tools/more.py", "from pkg.sampling import get_sampler\n\n\ndef more(shape):\n    return get_sampler(shape, 1e-2)\n");
    EXPECT_EQ(at(scan_dir(d, o)).at(4)->guard, GuardKind::none);
    d.write("tools/more.py", "from pkg.sampling import get_sampler\n\n\ndef more(shape, **kw):\n    return get_sampler(shape, **kw)\n");
    EXPECT_EQ(at(scan_dir(d, o)).at(4)->guard, GuardKind::none);
    d.write("tools/more.py", "def more(runner, x):\n    return runner.sample(x)\n");
    const ScanResult last_scan = scan_dir(d, o);
    const auto last = at(last_scan);
    EXPECT_EQ(last.at(4)->guard, GuardKind::default_unused) << last.at(4)->guard_note;
    EXPECT_EQ(last.at(12)->guard, GuardKind::none) << last.at(12)->guard_note;
    // A call in the module's own self-test `__main__` block is no call of the run (Fooocus' facexlib
    // face_utils.py calls init_detection_model() without a device only there); with no other call,
    // the self-test rule says more (never-called).
    d.write("pkg/sampling.py", sampling + "\n\nif __name__ == '__main__':\n    print(get_sampler((1, 1)))\n");
    const ScanResult self_test = scan_dir(d, o);
    EXPECT_EQ(at(self_test).at(4)->guard, GuardKind::default_unused) << at(self_test).at(4)->guard_note;
    EXPECT_EQ(at(self_test).at(4)->guard_note, "every call of get_sampler() passes device (train.py:7)");
}

// seamless_communication's FinetuneParams: a dataclass whose `device` field defaults to CUDA, built once
// by `trainer.FinetuneParams(..., device=torch.device(args.device))` and named in type annotations
// (`params: FinetuneParams`). An annotation runs nothing: the default is still never used. A use
// other than a call or an annotation (the class passed on) keeps the finding.
TEST(ProgramModel, ATypeAnnotationIsNoUseOfAFunction) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    const std::string params = "from dataclasses import dataclass\n\nimport torch\n\n\n@dataclass\nclass Params:\n"
                               "    name: str\n    device: torch.device = torch.device('cuda')\n\n\n"
                               "class Trainer:\n    def __init__(self, params: Params, spare: 'Params' = None) -> None:\n"
                               "        self.params: Params = params\n";
    d.write("pkg/trainer.py", params);
    d.write("finetune.py", "import torch\nfrom pkg import trainer\n\n\ndef main(dev: str) -> trainer.Params:\n"
                           "    return trainer.Params(name='x', device=torch.device(dev))\n\n\n"
                           "if __name__ == '__main__':\n    trainer.Trainer(main('cpu'))\n");
    const ScanResult r = scan_dir(d);
    const Finding* f = find(r, "hardcoded-cuda-device", "pkg/trainer.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->location.line, 9);
    EXPECT_EQ(f->guard, GuardKind::default_unused) << f->guard_note;
    EXPECT_EQ(f->guard_note, "every call of Params() passes device (finetune.py:6)");
    d.write("pkg/trainer.py", params + "\n\nREGISTRY = {'params': Params}\n");
    const ScanResult again = scan_dir(d);
    const Finding* passed_on = find(again, "hardcoded-cuda-device", "pkg/trainer.py");
    ASSERT_NE(passed_on, nullptr);
    EXPECT_EQ(passed_on->guard, GuardKind::none) << passed_on->guard_note;
}

// consistency_models' attention: flash-attn is imported inside QKVFlashAttention's constructor, and the
// class is built only in the `attention_type == "flash"` arm of a choice whose else builds the pure-PyTorch
// QKVAttentionLegacy. The import runs where the class is called: one arm of a choice, the one the
// default (`attention_type='flash'`) takes, so the blocker is the run's as written until the Mac passes
// the other value (default-arm: major, dual-track at most; another arm, no verdict impact). A call
// outside the choice, or the class used as a base, keeps it.
// facebookresearch/fairseq: trainer.py builds utils.CudaEnvironment() only under `if self.cuda:` and
// calls its static pretty_print_cuda_env_list() beside it. A call of a class's method through the
// class's name builds nothing: the constructor's CUDA queries take the guard of the one build
// (judged never to run on a Mac in a sample of the thirty-sixth and thirty-seventh holdouts' reports).
TEST(ProgramModel, AMethodCalledThroughItsClassNameIsNoBuildOfTheClass) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/utils.py", "import torch\n\n\nclass CudaEnvironment(object):\n    def __init__(self):\n"
                            "        cur_device = torch.cuda.current_device()\n        self.name = str(cur_device)\n\n"
                            "    @staticmethod\n    def pretty_print(envs):\n        print(envs)\n");
    const auto trainer = [](const std::string& print) {
        return "import torch\nfrom pkg import utils\n\n\nclass Trainer(object):\n    def __init__(self, cfg):\n"
               "        self.cuda = torch.cuda.is_available() and not cfg.cpu\n        if self.cuda:\n"
               "            self.env = utils.CudaEnvironment()\n" + print;
    };
    d.write("pkg/trainer.py", trainer("            utils.CudaEnvironment.pretty_print([self.env])\n"));
    d.write("train.py", "from pkg.trainer import Trainer\n\nif __name__ == '__main__':\n    Trainer(None)\n");
    const ScanResult r = scan_dir(d);
    const Finding* f = find(r, "torch-cuda-device-management", "pkg/utils.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->guard, GuardKind::device_check) << f->guard_note;
    EXPECT_EQ(f->severity, Severity::info) << f->note;
    // the class passed on as a value is still a use the model cannot follow
    d.write("pkg/trainer.py", trainer("        self.factory = utils.CudaEnvironment\n"));
    const ScanResult passed = scan_dir(d);
    f = find(passed, "torch-cuda-device-management", "pkg/utils.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->guard, GuardKind::none) << f->guard_note;
}

TEST(ProgramModel, AConstructorCalledInOneArmOfAChoiceTakesItsGuard) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    const std::string classes =
        "import torch.nn as nn\n\n\nclass FlashAttn(nn.Module):\n    def __init__(self, channels):\n"
        "        from flash_attn.flash_attention import FlashAttention\n        super().__init__()\n        self.inner = FlashAttention()\n\n\n"
        "class LegacyAttn(nn.Module):\n    def __init__(self, channels):\n        super().__init__()\n\n\n";
    d.write("pkg/unet.py", classes +
                               "class Block(nn.Module):\n    def __init__(self, channels, attention_type='flash'):\n        super().__init__()\n"
                               "        if attention_type == 'flash':\n            self.attention = FlashAttn(channels)\n"
                               "        else:\n            self.attention = LegacyAttn(channels)\n");
    d.write("train.py", "from pkg.unet import Block\n\nif __name__ == '__main__':\n    Block(4)\n");
    const ScanResult r = scan_dir(d);
    const Finding* f = find(r, "cuda-only-package-import", "pkg/unet.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->location.line, 6);
    EXPECT_EQ(f->guard, GuardKind::default_arm) << f->guard_note;
    EXPECT_EQ(f->guard_note,
              "every call of FlashAttn() is guarded; pkg/unet.py:20: the default takes the arm of this call; the arm `else` binds self.attention without CUDA");
    EXPECT_EQ(f->severity, Severity::major);
    EXPECT_EQ(f->impact, VerdictImpact::dual);
    ASSERT_EQ(f->related.size(), 1u);
    EXPECT_EQ(f->related[0].location.line, 20);

    // built outside the choice too: required
    d.write("train.py", "from pkg.unet import Block, FlashAttn\n\nif __name__ == '__main__':\n    Block(4)\n    FlashAttn(4)\n");
    const ScanResult also = scan_dir(d);
    EXPECT_EQ(find(also, "cuda-only-package-import", "pkg/unet.py")->guard, GuardKind::none);
    EXPECT_EQ(find(also, "cuda-only-package-import", "pkg/unet.py")->impact, VerdictImpact::stay);
    // a subclass runs the constructor where no call of FlashAttn shows
    d.write("train.py", "from pkg.unet import Block, FlashAttn\n\n\nclass Wide(FlashAttn):\n    pass\n\n\nif __name__ == '__main__':\n    Block(4)\n");
    const ScanResult sub = scan_dir(d);
    EXPECT_EQ(find(sub, "cuda-only-package-import", "pkg/unet.py")->guard, GuardKind::none);
}

// ermongroup/ddim picks its sampler in one arm of a choice each, and both samplers hard-code 'cuda':
// neither arm is a way round the other, and each arm imports functions.denoising (the else raises),
// so the module is core and both findings keep their rule's weight. A third sampler that needs no
// CUDA makes both optional again: a Mac selects it.
TEST(ProgramModel, AnArmIsNoAlternativeWhenTheFunctionItCallsNeedsCudaToo) {
    test::TempDir d;
    d.write("functions/__init__.py", "");
    d.write("functions/denoising.py",
            "import torch\n\n\ndef generalized_steps(x, model):\n    xt = x.to('cuda')\n    return model(xt)\n\n\n"
            "def ddpm_steps(x, model):\n    xt = x.to('cuda')\n    return model(xt)\n\n\ndef plain_steps(x, model):\n    return model(x)\n");
    d.write("runners/__init__.py", "");
    const std::string head =
        "class Diffusion:\n    def __init__(self, args):\n        self.args = args\n\n"
        "    def sample_image(self, x, model):\n"
        "        if self.args.sample_type == 'generalized':\n            from functions.denoising import generalized_steps\n"
        "            xs = generalized_steps(x, model)\n"
        "        elif self.args.sample_type == 'ddpm_noisy':\n            from functions.denoising import ddpm_steps\n"
        "            xs = ddpm_steps(x, model)\n";
    const std::string tail = "        else:\n            raise NotImplementedError\n        return xs\n";
    d.write("runners/diffusion.py", head + tail);
    d.write("main.py", "import sys\nfrom runners.diffusion import Diffusion\n\nif __name__ == '__main__':\n    Diffusion(sys.argv).sample_image(None, None)\n");
    auto steps = [](const ScanResult& r) { return by_line(r, "hardcoded-cuda-device", "functions/denoising.py"); };
    const ScanResult both = scan_dir(d);
    for (int line : {5, 10}) {
        const Finding* f = steps(both)[line];
        ASSERT_NE(f, nullptr) << line;
        EXPECT_EQ(f->guard, GuardKind::none) << line << ": " << f->guard_note;
        EXPECT_EQ(f->reach, Reach::core) << line << ": " << f->note;
        EXPECT_EQ(f->severity, Severity::major) << line;
    }
    // a third arm that does the job without CUDA
    d.write("runners/diffusion.py", head +
                                        "        elif self.args.sample_type == 'plain':\n            from functions.denoising import plain_steps\n"
                                        "            xs = plain_steps(x, model)\n" +
                                        tail);
    const ScanResult three = scan_dir(d);
    for (int line : {5, 10}) {
        const Finding* f = steps(three)[line];
        ASSERT_NE(f, nullptr) << line;
        EXPECT_EQ(f->guard, GuardKind::alternative_branch) << line << ": " << f->guard_note;
        EXPECT_NE(f->guard_note.find("the arm `self.args.sample_type == 'plain'`"), std::string::npos) << f->guard_note;
        EXPECT_EQ(f->severity, Severity::minor) << line;
    }
    // no else: the run may take neither arm, and the import is in one branch
    d.write("runners/diffusion.py", head + "        return xs\n");
    const ScanResult no_else = scan_dir(d);
    ASSERT_NE(steps(no_else)[5], nullptr);
    EXPECT_EQ(steps(no_else)[5]->reach, Reach::optional) << steps(no_else)[5]->note;
}

// YOLOP's `from .default import _C as cfg` takes the yacs config bound in lib/config/default.py: a
// module file holds no modules, so `_C` is no compiled module of the repository's own, and the
// TensorRT deploy program's CUDA in toolkits/deploy (built by its own CMake) is not the run's. A
// `from .. import _C` of a package that binds no such name stays one.
TEST(ProgramModel, ANameImportedFromAModuleFileIsNoCompiledModule) {
    test::TempDir d;
    d.write("lib/__init__.py", "");
    d.write("lib/config/__init__.py", "from .default import _C as cfg\n");
    d.write("lib/config/default.py", "from yacs.config import CfgNode as CN\n_C = CN()\n_C.GPUS = (0, 1)\n");
    d.write("tools/train.py", "import torch\nfrom lib.config import cfg\n\nif __name__ == '__main__':\n    print(cfg)\n");
    d.write("toolkits/deploy/yololayer.cu",
            "__global__ void CalDetection(const float* input, float* output, int n) {\n"
            "    int idx = threadIdx.x + blockDim.x * blockIdx.x;\n    if (idx < n) output[idx] = input[idx];\n}\n");
    const ScanResult r = scan_dir(d);
    const Finding* k = find(r, "cuda-kernel-source", "toolkits/deploy/yololayer.cu");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->reach, Reach::unreached) << k->note;
    EXPECT_EQ(k->impact, VerdictImpact::none) << k->note;
    // the package's own compiled module
    d.write("lib/config/__init__.py", "from .. import _C\n");
    const ScanResult own = scan_dir(d);
    const Finding* built = find(own, "cuda-kernel-source", "toolkits/deploy/yololayer.cu");
    ASSERT_NE(built, nullptr);
    EXPECT_EQ(built->reach, Reach::optional) << built->note;
}

// A CUDA-only import in a file that no entry point reaches (XMem's JIT-built syncbn extension, which
// nothing imports) moves no verdict: one level lower, no impact, as tooling. The confidence names it.
TEST(ProgramModel, ABlockerNoEntryPointReachesMovesNoVerdict) {
    test::TempDir d;
    d.write("train.py", "import torch\n\nif __name__ == '__main__':\n    torch.zeros(1)\n");
    d.write("legacy/fused.py", "import triton\n\n\ndef kernel():\n    pass\n");
    const ScanResult r = scan_dir(d);
    const Finding* f = find(r, "cuda-only-package-import", "legacy/fused.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reach, Reach::unreached);
    EXPECT_EQ(f->rule_severity, Severity::blocker);
    EXPECT_EQ(f->severity, Severity::major) << f->note;
    EXPECT_EQ(f->impact, VerdictImpact::none) << f->note;
    EXPECT_NE(f->note.find("unreached (no entry point reaches this file)"), std::string::npos) << f->note;
    // imported by the run: the rule's weight
    d.write("train.py", "import torch\nimport legacy.fused\n\nif __name__ == '__main__':\n    torch.zeros(1)\n");
    const ScanResult reached = scan_dir(d);
    EXPECT_EQ(find(reached, "cuda-only-package-import", "legacy/fused.py")->impact, VerdictImpact::stay);
}

// efficientdet-pytorch's avg_checkpoints.py casts to float64 the tensors of timm's
// `load_state_dict(c, args.use_ema)`, imported from timm.models.helpers, whose device defaults to
// "cpu" (the float64 rule's cpu_loaders data): CPU tensors, not reported. Passing a device keeps the
// finding, and so does a load_state_dict of another package.
TEST(ProgramModel, Float64OfTensorsAPackagesCpuLoaderReadsIsNotReported) {
    test::TempDir d;
    auto script = [](const std::string& import, const std::string& call) {
        return "import torch\n" + import + "\n\n\ndef average(paths, use_ema):\n    avg = {}\n    for c in paths:\n"
               "        sd = " + call + "\n        for k, v in sd.items():\n            avg[k] = v.clone().to(dtype=torch.float64)\n"
               "    return avg\n\n\nif __name__ == '__main__':\n    average([], False)\n";
    };
    d.write("avg_checkpoints.py", script("from timm.models.helpers import load_state_dict", "load_state_dict(c, use_ema)"));
    const ScanResult cpu = scan_dir(d);
    EXPECT_EQ(find(cpu, "float64-dtype", "avg_checkpoints.py"), nullptr);
    d.write("avg_checkpoints.py", script("from timm.models.helpers import load_state_dict", "load_state_dict(c, use_ema, 'cuda')"));
    const ScanResult on_device = scan_dir(d);
    EXPECT_NE(find(on_device, "float64-dtype", "avg_checkpoints.py"), nullptr);
    d.write("avg_checkpoints.py", script("from other.io import load_state_dict", "load_state_dict(c, use_ema)"));
    const ScanResult other = scan_dir(d);
    EXPECT_NE(find(other, "float64-dtype", "avg_checkpoints.py"), nullptr);
}

// timm's avg_checkpoints.py casts to float64 the tensors of `load_state_dict(c, args.use_ema)`, the
// repository's own loader, whose `device='cpu'` reads the checkpoint onto the CPU: CPU tensors, not
// reported, cold and from the cache. A call that passes a device (by keyword or position) or spreads
// **kwargs, or a second loader of that name in the project, keeps the finding.
TEST(ProgramModel, Float64OfTensorsTheLabsLoaderPutsOnTheCpuIsNotReported) {
    test::TempDir d;
    test::TempDir cache;
    d.write("pkg/__init__.py", "");
    d.write("pkg/helpers.py", "import torch\n\n\ndef load_state_dict(path, use_ema=True, device='cpu'):\n"
                              "    return torch.load(path, map_location=device)\n");
    auto script = [&](const std::string& call) {
        d.write("avg.py", "import torch\nfrom pkg.helpers import load_state_dict\n\nif __name__ == '__main__':\n    avg = {}\n"
                          "    sd = " + call + "\n    for k, v in sd.items():\n        avg[k] = v.clone().to(dtype=torch.float64)\n");
    };
    auto float64 = [](const ScanResult& r) { return find(r, "float64-dtype", "avg.py"); };
    ScanOptions o;
    o.cache_dir = cache.path();
    script("load_state_dict('a.pt', True)");
    EXPECT_EQ(float64(scan_dir(d, o)), nullptr);
    d.write("README.md", "edited\n");
    const ScanResult cached = scan_dir(d, o);
    EXPECT_GE(cached.files_cached + 1, cached.files_scanned);
    EXPECT_EQ(float64(cached), nullptr) << "from the cache";
    for (const std::string call : {"load_state_dict('a.pt', True, 'cuda')", "load_state_dict('a.pt', device='cuda')",
                                   "load_state_dict('a.pt', **options)"}) {
        script(call);
        const ScanResult r = scan_dir(d, o);
        ASSERT_NE(float64(r), nullptr) << call;
        EXPECT_EQ(float64(r)->location.line, 8) << call;
    }
    script("load_state_dict('a.pt', True)");
    d.write("pkg/other.py", "def load_state_dict(path, device='cpu'):\n    return path\n");
    EXPECT_NE(float64(scan_dir(d, o)), nullptr) << "two loaders of that name: which one is called is not known";
}

// NVlabs' ops (stylegan3, eg3d): `_plugin = custom_ops.get_plugin(module_name='bias_act_plugin',
// sources=[...])` in `_init()`, the repository's wrapper of cpp_extension.load (rules/program.yaml
// extension_loaders), called as `x.device.type == 'cuda' and _init()`; the op is called in the forward
// of an autograd Function that `_bias_act_cuda()` makes, whose `.apply` runs under the same check. The
// build is on a path a Mac never takes: info. The op is nothing to edit, but a Mac runs the pure-PyTorch
// path beside it instead (rules/program.yaml device_routed_op): minor and dual-track, as every such
// repository is labelled. Called without the check, the op is required.
TEST(ProgramModel, AnExtensionBuiltThroughTheRepositorysLoaderTakesTheGuardOfItsCalls) {
    test::TempDir d;
    d.write("torch_utils/__init__.py", "");
    d.write("torch_utils/ops/__init__.py", "");
    d.write("torch_utils/custom_ops.py", "import importlib\n\nimport torch.utils.cpp_extension\n\n\n"
                                         "def get_plugin(module_name, sources, headers=None, source_dir=None, **build_kwargs):\n"
                                         "    torch.utils.cpp_extension.load(name=module_name, sources=sources, **build_kwargs)\n"
                                         "    return importlib.import_module(module_name)\n");
    const std::string init = "import os\n\nimport torch\n\nfrom .. import custom_ops\n\n_plugin = None\n\n\ndef _init():\n    global _plugin\n"
                             "    if _plugin is None:\n        _plugin = custom_ops.get_plugin(module_name='bias_act_plugin', "
                             "sources=['bias_act.cpp', 'bias_act.cu'], source_dir=os.path.dirname(__file__))\n    return True\n\n\n";
    const std::string cuda_class = "def _bias_act_cuda():\n    class BiasActCuda(torch.autograd.Function):\n        @staticmethod\n"
                                   "        def forward(ctx, x, b):\n            return _plugin.bias_act(x, b)\n\n    return BiasActCuda\n";
    d.write("torch_utils/ops/bias_act.py", init +
                                               "def bias_act(x, b, impl='cuda'):\n    if impl == 'cuda' and x.device.type == 'cuda' and _init():\n"
                                               "        return _bias_act_cuda().apply(x, b)\n    return x + b\n\n\n" + cuda_class);
    d.write("torch_utils/ops/bias_act.cpp", "#include <torch/extension.h>\ntorch::Tensor bias_act_cuda(torch::Tensor x, torch::Tensor b);\n"
                                            "static torch::Tensor bias_act(torch::Tensor x, torch::Tensor b) { return bias_act_cuda(x, b); }\n"
                                            "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"bias_act\", &bias_act); }\n");
    d.write("torch_utils/ops/bias_act.cu", "#include <torch/extension.h>\n"
                                           "__global__ void bias_act_kernel(float* y, const float* x, int n) { int i = threadIdx.x; if (i < n) y[i] = x[i]; }\n"
                                           "torch::Tensor bias_act_cuda(torch::Tensor x, torch::Tensor b) {\n  auto y = torch::empty_like(x);\n"
                                           "  bias_act_kernel<<<1, 256>>>(y.data_ptr<float>(), x.data_ptr<float>(), x.numel());\n  return y;\n}\n");
    d.write("train.py", "import torch\n\nfrom torch_utils.ops import bias_act\n\nif __name__ == '__main__':\n"
                        "    print(bias_act.bias_act(torch.ones(4), torch.zeros(4)))\n");
    auto op = [](const ScanResult& r) -> const Finding* {
        for (const auto& f : r.findings)
            if (f.rule_id == "cuda-only-extension-op" && f.location.path == "torch_utils/ops/bias_act.cpp") return &f;
        return nullptr;
    };
    const ScanResult guarded = scan_dir(d);
    ASSERT_NE(op(guarded), nullptr);
    EXPECT_EQ(op(guarded)->severity, Severity::minor) << op(guarded)->note;
    EXPECT_EQ(op(guarded)->impact, VerdictImpact::dual) << op(guarded)->note;
    EXPECT_EQ(op(guarded)->guard, GuardKind::device_check) << op(guarded)->note;
    EXPECT_NE(op(guarded)->note.find("callers of _bias_act_cuda(): impl == 'cuda' and x.device.type == 'cuda'"), std::string::npos)
        << op(guarded)->note;
    EXPECT_NE(op(guarded)->note.find("sends a Mac down the pure-PyTorch path beside it"), std::string::npos) << op(guarded)->note;
    const Finding* kernel = find(guarded, "cuda-kernel-source", "torch_utils/ops/bias_act.cu");
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->severity, Severity::info) << kernel->note;

    d.write("torch_utils/ops/bias_act.py", init + "def bias_act(x, b):\n    _init()\n    return _bias_act_cuda().apply(x, b)\n\n\n" + cuda_class);
    const ScanResult required = scan_dir(d);
    ASSERT_NE(op(required), nullptr);
    EXPECT_EQ(op(required)->reach, Reach::core) << op(required)->note;
    EXPECT_EQ(op(required)->impact, VerdictImpact::stay) << op(required)->note;

    // stylegan2-ada's spelling: the sources are a name bound in _init(), then joined to the folder
    std::string by_name = init;
    const std::string literal = "sources=['bias_act.cpp', 'bias_act.cu'], source_dir=os.path.dirname(__file__))";
    by_name.replace(by_name.find(literal), literal.size(), "sources=sources)");
    const std::string check = "    if _plugin is None:\n";
    by_name.replace(by_name.find(check), check.size(),
                    "    if _plugin is None:\n        sources = ['bias_act.cpp', 'bias_act.cu']\n"
                    "        sources = [os.path.join(os.path.dirname(__file__), s) for s in sources]\n");
    d.write("torch_utils/ops/bias_act.py", by_name +
                                               "def bias_act(x, b, impl='cuda'):\n    if impl == 'cuda' and x.device.type == 'cuda' and _init():\n"
                                               "        return _bias_act_cuda().apply(x, b)\n    return x + b\n\n\n" + cuda_class);
    const ScanResult named = scan_dir(d);
    ASSERT_NE(op(named), nullptr);
    EXPECT_EQ(op(named)->severity, Severity::minor) << op(named)->note;
    EXPECT_EQ(op(named)->impact, VerdictImpact::dual) << op(named)->note;

    // stylegan2-ada's upfirdn2d: the build in try/except (a fallback beside it) inside that _init(); its
    // callers' device check says more, the Mac never builds it, and its kernels are info too
    std::string in_try = init;
    const std::string build = "        _plugin = custom_ops.get_plugin(";
    in_try.replace(in_try.find(build), build.size(), "        try:\n            _plugin = custom_ops.get_plugin(");
    const std::string built = "source_dir=os.path.dirname(__file__))\n";
    in_try.replace(in_try.find(built), built.size(), built + "        except Exception:\n            _plugin = None\n");
    d.write("torch_utils/ops/bias_act.py", in_try +
                                               "def bias_act(x, b, impl='cuda'):\n    if impl == 'cuda' and x.device.type == 'cuda' and _init():\n"
                                               "        return _bias_act_cuda().apply(x, b)\n    return x + b\n\n\n" + cuda_class);
    const ScanResult tried = scan_dir(d);
    const Finding* tried_kernel = find(tried, "cuda-kernel-source", "torch_utils/ops/bias_act.cu");
    ASSERT_NE(tried_kernel, nullptr);
    EXPECT_EQ(tried_kernel->severity, Severity::info) << tried_kernel->note;
    EXPECT_EQ(tried_kernel->impact, VerdictImpact::none) << tried_kernel->note;

    // stylegan3's filtered_lrelu.cu is named only among the loader's headers= (its *_wr.cu sources
    // include it): it is built with them, as guarded as they are
    std::string with_headers = init;
    with_headers.replace(with_headers.find(literal), literal.size(),
                         "sources=['bias_act.cpp', 'bias_act_wr.cu'], headers=['bias_act.h', 'bias_act_impl.cu'], source_dir=os.path.dirname(__file__))");
    d.write("torch_utils/ops/bias_act.py", with_headers +
                                               "def bias_act(x, b, impl='cuda'):\n    if impl == 'cuda' and x.device.type == 'cuda' and _init():\n"
                                               "        return _bias_act_cuda().apply(x, b)\n    return x + b\n\n\n" + cuda_class);
    d.write("torch_utils/ops/bias_act_impl.cu", "__global__ void impl_kernel(float* y) { y[threadIdx.x] = 0.f; }\n");
    d.write("torch_utils/ops/bias_act_wr.cu", "#include \"bias_act_impl.cu\"\n");
    const ScanResult headers = scan_dir(d);
    const Finding* impl = find(headers, "cuda-kernel-source", "torch_utils/ops/bias_act_impl.cu");
    ASSERT_NE(impl, nullptr);
    EXPECT_EQ(impl->subject, "bias_act_plugin") << impl->note;
    EXPECT_EQ(impl->severity, Severity::info) << impl->note;

    // stylegan3's filtered_lrelu: its network is built by class name from a config, so no entry reaches
    // the op's module. Every call of the op is still under the device check: info, not unreached's
    // major/dual.
    d.write("torch_utils/ops/bias_act.py", init +
                                               "def bias_act(x, b, impl='cuda'):\n    if impl == 'cuda' and x.device.type == 'cuda' and _init():\n"
                                               "        return _bias_act_cuda().apply(x, b)\n    return x + b\n\n\n" + cuda_class);
    d.write("train.py", "import torch\n\nif __name__ == '__main__':\n    print(torch.ones(4))\n");
    const ScanResult unreached = scan_dir(d);
    ASSERT_NE(op(unreached), nullptr);
    EXPECT_EQ(op(unreached)->reach, Reach::unreached);
    EXPECT_EQ(op(unreached)->guard, GuardKind::device_check) << op(unreached)->note;
    EXPECT_EQ(op(unreached)->severity, Severity::info) << op(unreached)->note;
    EXPECT_EQ(op(unreached)->impact, VerdictImpact::none);
}

// DALLE2's `@contextmanager def one_unet_in_gpu(self, ...)`, entered only under `is_cuda and ...`: a
// decorator that only wraps (rules/program.yaml transparent_decorators) leaves its calls its calls, so
// the method takes their guard. Any other decorator may register the function: it stays as it was.
TEST(ProgramModel, AWrappingDecoratorLeavesTheCallersGuard) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    auto write = [&](const std::string& decorator) {
        d.write("pkg/model.py", "from contextlib import contextmanager\n\nimport torch\n\n\nclass Decoder(torch.nn.Module):\n"
                                "    " + decorator + "\n    def one_in_gpu(self):\n        self.cuda()\n        yield\n\n"
                                "    def sample(self, x):\n        is_cuda = x.is_cuda\n        if is_cuda:\n"
                                "            with self.one_in_gpu():\n                return x * 2\n        return x\n");
    };
    d.write("train.py", "import torch\nfrom pkg.model import Decoder\n\nif __name__ == '__main__':\n    Decoder().sample(torch.ones(2))\n");
    write("@contextmanager");
    const ScanResult wrapped = scan_dir(d);
    const Finding* f = find(wrapped, "cuda-method-call", "pkg/model.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->location.line, 9);
    EXPECT_EQ(f->guard, GuardKind::device_check) << f->guard_note;
    EXPECT_EQ(f->severity, Severity::info);
    write("@registry.register");
    const ScanResult registered = scan_dir(d);
    EXPECT_EQ(find(registered, "cuda-method-call", "pkg/model.py")->guard, GuardKind::none);
}

// flash-attention's tests/cute: a helper that makes CUDA tensors, called only by tests that skip
// themselves without CUDA, never runs on a Mac: info, as the tests are. One test that calls it without
// a skip keeps it at the minor a test's finding weighs at most.
TEST(ProgramModel, ATestHelperThatOnlySkippedTestsCallIsInfo) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("train.py", "import pkg\n\nif __name__ == '__main__':\n    print(pkg)\n");
    const std::string skipped_tests =
        "import pytest\nimport torch\n\n\ndef setup_tensors(n):\n    return torch.randn(n, device='cuda')\n\n\n"
        "@pytest.mark.skipif(not torch.cuda.is_available(), reason='needs CUDA')\ndef test_a():\n    assert setup_tensors(2).shape == (2,)\n\n\n"
        "@pytest.mark.skipif(not torch.cuda.is_available(), reason='needs CUDA')\ndef test_b():\n    assert setup_tensors(3).shape == (3,)\n";
    d.write("tests/test_ops.py", skipped_tests);
    const ScanResult helper_scan = scan_dir(d);
    const Finding* helper = find(helper_scan, "hardcoded-cuda-device", "tests/test_ops.py");
    ASSERT_NE(helper, nullptr);
    EXPECT_EQ(helper->location.line, 6);
    EXPECT_EQ(helper->guard, GuardKind::test_skip) << helper->guard_note;
    EXPECT_EQ(helper->severity, Severity::info);
    d.write("tests/test_ops.py", skipped_tests + "\n\ndef test_c():\n    assert setup_tensors(4).shape == (4,)\n");
    const ScanResult called_scan = scan_dir(d);
    const Finding* called = find(called_scan, "hardcoded-cuda-device", "tests/test_ops.py");
    ASSERT_NE(called, nullptr);
    EXPECT_EQ(called->guard, GuardKind::none) << called->guard_note;
    EXPECT_EQ(called->severity, Severity::minor);
}

// timm's distributed_train.sh: `torchrun --nproc_per_node=$NUM_PROC train.py`, where train.py wraps DDP
// only under its distributed gate, is a way to scale out (rules/program.yaml scale_out_launch): the Mac
// runs `python train.py`. A launched script that needs several processes (FSDP set up
// unconditionally) keeps the launcher's weight; unconditional DDP does not (at world size 1 it is the
// model itself: an edit). A script that no file of the repository is
// (ControlNet's vendored annotator/uniformer/exp/*/run.sh launches a tools/train.py it does not ship)
// runs none of the repository's code: unreached, on every line of a command continued with `\`. So does
// a module of two or more names that no file is, from whatever folder (ml-mobileclip's training configs
// launch `-m src.open_clip_train.main`, of open_clip installed beside it), unless the command runs a
// script of the repository too (`python -m torch.distributed.launch ... train.py`).
TEST(ProgramModel, ALauncherOfAScriptThatRunsAsOneProcessIsScaleOut) {
    test::TempDir d;
    d.write("train.py", "import os\nimport torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n"
                        "ddp = int(os.environ.get('RANK', -1)) != -1\n\nif __name__ == '__main__':\n    model = torch.nn.Linear(2, 2)\n"
                        "    if ddp:\n        torch.distributed.init_process_group('nccl')\n        model = DDP(model)\n");
    d.write("train_ddp.py", "import torch\nimport torch.distributed as dist\nfrom torch.distributed.fsdp import FullyShardedDataParallel\n\n"
                            "if __name__ == '__main__':\n    dist.init_process_group('nccl')\n    model = FullyShardedDataParallel(torch.nn.Linear(2, 2))\n");
    d.write("scripts/dist.sh", "#!/bin/bash\nNUM_PROC=$1\ntorchrun --nproc_per_node=$NUM_PROC train.py \"$@\"\n"
                               "torchrun --nproc_per_node=8 train_ddp.py\ntorchrun --nproc_per_node=8 elsewhere/train.py\n"
                               "PYTHONPATH=. \\\n    python -m torch.distributed.launch --nproc_per_node=8 \\\n    train.py --launcher pytorch\n"
                               "torchrun --nproc_per_node=8 -m src.open_clip_train.main --local-loss\n"
                               "torchrun --nproc_per_node=8 -m pkg.train\n");
    d.write("src/pkg/__init__.py", "");
    d.write("src/pkg/train.py", "import torch.distributed as dist\n\nif __name__ == '__main__':\n    dist.init_process_group('nccl')\n");
    const ScanResult r = scan_dir(d);
    std::map<int, const Finding*> launches;
    for (const auto& f : r.findings)
        if (f.rule_id == "multi-gpu-launch" && f.location.path == "scripts/dist.sh") launches[f.location.line] = &f;
    ASSERT_EQ(launches.size(), 6u);
    EXPECT_EQ(launches[3]->impact, VerdictImpact::none) << launches[3]->note;
    EXPECT_EQ(launches[3]->severity, Severity::info) << launches[3]->note;
    EXPECT_NE(launches[3]->note.find("launches train.py, whose own distributed code is behind a gate"), std::string::npos) << launches[3]->note;
    EXPECT_EQ(launches[4]->impact, VerdictImpact::dual) << launches[4]->note;
    EXPECT_EQ(launches[4]->severity, Severity::major);
    EXPECT_EQ(launches[5]->reach, Reach::unreached) << launches[5]->note;
    EXPECT_EQ(launches[5]->impact, VerdictImpact::none) << launches[5]->note;
    EXPECT_NE(launches[5]->note.find("launches elsewhere/train.py, which is not in this repository"), std::string::npos) << launches[5]->note;
    // the launcher on the second line of a command that starts on the line before, of train.py
    EXPECT_EQ(launches[7]->impact, VerdictImpact::none) << launches[7]->note;
    EXPECT_NE(launches[7]->note.find("launches train.py, whose own distributed code is behind a gate"), std::string::npos) << launches[7]->note;
    EXPECT_EQ(launches[9]->reach, Reach::unreached) << launches[9]->note;
    EXPECT_EQ(launches[9]->impact, VerdictImpact::none) << launches[9]->note;
    EXPECT_NE(launches[9]->note.find("launches src.open_clip_train.main, which is not in this repository"), std::string::npos) << launches[9]->note;
    // run from src/, pkg.train is src/pkg/train.py: it could be the repository's
    EXPECT_NE(launches[10]->reach, Reach::unreached) << launches[10]->note;
    EXPECT_EQ(launches[10]->note.find("not in this repository"), std::string::npos) << launches[10]->note;
    // the rules program.yaml names are rules of the bundled catalogue (a catalogue of a few rules may lack them)
    for (const auto& id : test::bundled_catalogue().program().scale_out_rules) EXPECT_NE(test::bundled_catalogue().find(id), nullptr) << id;
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

// An evaluation harness (evals/lambada.py importing a model that needs flash_attn) is tooling, as a
// benchmark is: it is not the training run, and its CUDA-only import moves no verdict. The same
// import reached from train.py is core.
TEST(ProgramModel, EvaluationScriptsAreTooling) {
    test::TempDir d;
    d.write("train.py", "import torch\nfrom models import simple\n\nif __name__ == \"__main__\":\n    simple.run()\n");
    d.write("models/__init__.py", "");
    d.write("models/simple.py", "import torch\ndef run():\n    return torch.ones(2)\n");
    d.write("models/fused_lm.py", "import torch\nfrom flash_attn import flash_attn_func\n");
    d.write("evals/lambada.py", "from models.fused_lm import flash_attn_func\n\nif __name__ == \"__main__\":\n    pass\n");
    const ScanResult r = scan_dir(d);
    const Finding* f = find(r, "cuda-only-package-import", "models/fused_lm.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reach, Reach::tooling);
    EXPECT_NE(f->impact, VerdictImpact::stay) << f->note;
    d.write("train.py", "import torch\nfrom models import simple, fused_lm\n\nif __name__ == \"__main__\":\n    simple.run()\n");
    const ScanResult again = scan_dir(d);
    f = find(again, "cuda-only-package-import", "models/fused_lm.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reach, Reach::core);
    EXPECT_EQ(f->impact, VerdictImpact::stay);
}

// lucidrains/lightweight-gan's package holds lightweight_gan/lightweight_gan.py, and its cli.py does
// `from lightweight_gan.diff_augment_test import DiffAugmentTest`: Python 3 resolves that from the
// package, not from the module beside cli.py that is named like it (the import had resolved to nothing,
// and the module's CUDA assert read as a test's). A name that does resolve beside the importer, or a
// namespace package there (safari's src/tasks), still does.
TEST(ProgramModel, AModuleNamedLikeItsPackageDoesNotShadowThePackage) {
    test::TempDir d;
    d.write("setup.py", "from setuptools import setup\nsetup(name='gan', packages=['gan'], entry_points={'console_scripts': ['gan = gan.cli:main']})\n");
    d.write("gan/__init__.py", "from gan.gan import Trainer\n");
    d.write("gan/gan.py", "import torch\n\n\nclass Trainer:\n    pass\n");
    d.write("gan/cli.py", "from gan import Trainer\nfrom gan.augment_test import AugmentTest\n\n\ndef main():\n    Trainer()\n");
    d.write("gan/augment_test.py", "import torch\nassert torch.cuda.is_available()\n\n\nclass AugmentTest:\n    pass\n");
    const ScanResult r = scan_dir(d);
    const Finding* f = find(r, "cuda-required-assert", "gan/augment_test.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reach, Reach::core) << f->note;
    ASSERT_FALSE(f->chain.empty());
    EXPECT_EQ(f->chain.front(), "gan/cli.py:2");

    test::TempDir ns;
    ns.write("train.py", "from src.tasks import tasks\n\nif __name__ == '__main__':\n    tasks.run()\n");
    ns.write("src/tasks/tasks.py", "import torch\n\n\ndef run():\n    return torch.zeros(1).cuda()\n");
    const ScanResult rn = scan_dir(ns);
    const Finding* g = find(rn, "cuda-method-call", "src/tasks/tasks.py");
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->reach, Reach::core);
}

// fundamentalvision/Deformable-DETR's benchmark.py times the model on a GPU: a benchmark, as
// benchmark_*.py is, not the training run.
TEST(ProgramModel, ABenchmarkScriptIsTooling) {
    test::TempDir d;
    d.write("main.py", "import torch\n\nif __name__ == \"__main__\":\n    torch.ones(2)\n");
    d.write("benchmark.py", "import torch\n\nif __name__ == \"__main__\":\n    torch.cuda.synchronize()\n");
    const ScanResult r = scan_dir(d);
    const Finding* f = find(r, "torch-cuda-synchronize", "benchmark.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reach, Reach::tooling) << f->note;
}

// sail-sg/poolformer's segmentation/tools/onnx2tensorrt.py converts a trained model to a TensorRT
// engine: a deployment tool, not the training run, whatever it imports.
TEST(ProgramModel, ConvertersToADeploymentFormatAreTooling) {
    test::TempDir d;
    d.write("train.py", "import torch\n\nif __name__ == \"__main__\":\n    torch.ones(2)\n");
    for (const char* name : {"tools/onnx2tensorrt.py", "tools/pytorch2onnx.py", "tools/model2trt.py"}) {
        d.write(name, "import tensorrt as trt\n\nif __name__ == \"__main__\":\n    trt.Builder(None)\n");
    }
    const ScanResult r = scan_dir(d);
    for (const char* name : {"tools/onnx2tensorrt.py", "tools/pytorch2onnx.py", "tools/model2trt.py"}) {
        const Finding* f = find(r, "cuda-only-package-import", name);
        ASSERT_NE(f, nullptr) << name;
        EXPECT_EQ(f->reach, Reach::tooling) << name;
        EXPECT_EQ(f->impact, VerdictImpact::none) << name << ": " << f->note;
    }
    d.write("tools/train_trt.py", "import tensorrt as trt\n\nif __name__ == \"__main__\":\n    trt.Builder(None)\n");
    const ScanResult named_otherwise = scan_dir(d);
    EXPECT_NE(find(named_otherwise, "cuda-only-package-import", "tools/train_trt.py")->reach, Reach::tooling) << "a script named as no converter";
}

// A training script in a sub-folder with its own README is a program of its own beside the main one
// (litgpt's extensions/thunder/pretrain.py, which runs unsloth's Triton kernels, beside the litgpt
// command): what only it reaches is optional, one arm of a choice of program, so its blocker makes
// dual-track at most. The same script with no main program beside it (a repository of sub-projects),
// or beside only a library module's __main__ self-test, stays a training entry of the repository.
TEST(ProgramModel, ASubProjectWithItsOwnReadmeBesideTheMainProgramIsOptional) {
    test::TempDir d;
    d.write("pyproject.toml", "[project]\nname = \"pkg\"\n\n[project.scripts]\npkg = \"pkg.__main__:main\"\n");
    d.write("pkg/__init__.py", "");
    d.write("pkg/__main__.py", "import torch\n\n\ndef main():\n    return torch.ones(2)\n\n\nif __name__ == '__main__':\n    main()\n");
    d.write("pkg/data.py", "import torch\n\nif __name__ == '__main__':\n    print(torch.ones(2))\n");
    d.write("extensions/fast/README.md", "# Fast pretraining\n\n    python extensions/fast/pretrain.py\n");
    d.write("extensions/fast/pretrain.py", "import torch\nfrom kernels import swiglu\n\nif __name__ == '__main__':\n    swiglu.run()\n");
    d.write("extensions/fast/kernels/__init__.py", "");
    d.write("extensions/fast/kernels/swiglu.py", "import triton\n\n\ndef run():\n    pass\n");
    const ScanResult r = scan_dir(d);
    const Finding* triton = find(r, "cuda-only-package-import", "extensions/fast/kernels/swiglu.py");
    ASSERT_NE(triton, nullptr);
    EXPECT_EQ(triton->reach, Reach::optional) << triton->note;
    EXPECT_EQ(triton->impact, VerdictImpact::dual) << triton->note;
    EXPECT_NE(triton->note.find("a program of its own in extensions/fast/"), std::string::npos) << triton->note;
    const auto& entries = r.program.entry_points;
    const auto side = std::find_if(entries.begin(), entries.end(), [](const EntryPoint& e) { return e.path == "extensions/fast/pretrain.py"; });
    ASSERT_NE(side, entries.end());
    EXPECT_NE(side->why.find("a program of its own in extensions/fast/ (with its own README)"), std::string::npos) << side->why;
    // A package for scale or speed that the side program imports unconditionally is one it needs
    // (minRF's advanced/main_t2i.py trains through deepspeed.initialize()): dual-track, not the info of
    // an import in one arm of an if.
    d.write("extensions/fast/pretrain.py", "import torch\nimport deepspeed\nfrom kernels import swiglu\n\nif __name__ == '__main__':\n    swiglu.run()\n");
    const ScanResult with_deepspeed = scan_dir(d);
    const Finding* deepspeed = find(with_deepspeed, "cuda-only-package-import", "extensions/fast/pretrain.py");
    ASSERT_NE(deepspeed, nullptr);
    EXPECT_EQ(deepspeed->reach, Reach::optional) << deepspeed->note;
    EXPECT_EQ(deepspeed->impact, VerdictImpact::dual) << deepspeed->note;
    EXPECT_EQ(deepspeed->severity, Severity::minor) << deepspeed->note;
    d.write("extensions/fast/pretrain.py", "import torch\nfrom kernels import swiglu\n\nif __name__ == '__main__':\n    swiglu.run()\n");

    // no main program: the package's API and a module's self-test are none
    d.write("pyproject.toml", "[project]\nname = \"pkg\"\n");
    d.write("pkg/__main__.py", "import torch\n");
    const ScanResult alone = scan_dir(d);
    triton = find(alone, "cuda-only-package-import", "extensions/fast/kernels/swiglu.py");
    ASSERT_NE(triton, nullptr);
    EXPECT_EQ(triton->reach, Reach::core) << triton->note;
    EXPECT_EQ(triton->impact, VerdictImpact::stay) << triton->note;

    // a script at the top of the repository is a main program too
    d.write("train.py", "import torch\n\nif __name__ == '__main__':\n    print(torch.ones(2))\n");
    const ScanResult beside_train = scan_dir(d);
    triton = find(beside_train, "cuda-only-package-import", "extensions/fast/kernels/swiglu.py");
    ASSERT_NE(triton, nullptr);
    EXPECT_EQ(triton->reach, Reach::optional) << triton->note;
}

// A program of its own that the repository's top README never names is an add-on, not part of the
// documented work (litgpt's README links extensions/xla, never extensions/thunder, whose unsloth
// kernels need Triton): what only it reaches is tooling. Named as a path or a folder to enter, it is
// one arm of a choice of program, as before. A folder whose name is no identifier
// (deep-person-reid's torchreid/utils/GPU-Re-Ranking) holds scripts, not modules of the package, so a
// program there is a program of its own too; and the main program may be a script the top README runs.
TEST(ProgramModel, AProgramOfItsOwnTheTopReadmeDoesNotNameIsAnAddOn) {
    test::TempDir d;
    d.write("pyproject.toml", "[project]\nname = \"pkg\"\n\n[project.scripts]\npkg = \"pkg.__main__:main\"\n");
    d.write("pkg/__init__.py", "");
    d.write("pkg/__main__.py", "import torch\n\n\ndef main():\n    return torch.ones(2)\n\n\nif __name__ == '__main__':\n    main()\n");
    d.write("extensions/fast/README.md", "# Fast pretraining\n\n    python extensions/fast/pretrain.py\n");
    d.write("extensions/fast/pretrain.py", "import torch\nfrom kernels import swiglu\n\nif __name__ == '__main__':\n    swiglu.run()\n");
    d.write("extensions/fast/kernels/__init__.py", "");
    d.write("extensions/fast/kernels/swiglu.py", "import triton\n\n\ndef run():\n    pass\n");
    d.write("README.md", "# pkg\n\nRun `pkg finetune`. TPUs: see [extensions/xla](extensions/xla).\n");
    const ScanResult addon = scan_dir(d);
    const Finding* triton = find(addon, "cuda-only-package-import", "extensions/fast/kernels/swiglu.py");
    ASSERT_NE(triton, nullptr);
    EXPECT_EQ(triton->reach, Reach::tooling) << triton->note;
    EXPECT_EQ(triton->impact, VerdictImpact::none) << triton->note;
    const auto& entries = addon.program.entry_points;
    const auto side = std::find_if(entries.begin(), entries.end(), [](const EntryPoint& e) { return e.path == "extensions/fast/pretrain.py"; });
    ASSERT_NE(side, entries.end());
    EXPECT_TRUE(side->tooling);
    EXPECT_NE(side->why.find("the repository's README does not name it: an add-on"), std::string::npos) << side->why;
    // named as a folder to enter
    d.write("README.md", "# pkg\n\nFast pretraining:\n\n    cd extensions/fast && python pretrain.py\n");
    const ScanResult named = scan_dir(d);
    EXPECT_EQ(find(named, "cuda-only-package-import", "extensions/fast/kernels/swiglu.py")->reach, Reach::optional);
    EXPECT_EQ(find(named, "cuda-only-package-import", "extensions/fast/kernels/swiglu.py")->impact, VerdictImpact::dual);

    // a hyphenated folder inside the package, beside a main script that the top README runs
    test::TempDir r;
    r.write("setup.py", "from setuptools import setup\nsetup(name='reid', packages=['reid'])\n");
    r.write("reid/__init__.py", "");
    r.write("scripts/main.py", "import torch\nimport reid\n\nif __name__ == '__main__':\n    print(torch.ones(2))\n");
    r.write("README.rst", "reid\n====\n\nTrain with::\n\n    python scripts/main.py --config-file configs/a.yaml\n");
    r.write("reid/utils/GPU-Re-Ranking/README.md", "# GPU re-ranking\n\n    python main.py --data_path x\n");
    r.write("reid/utils/GPU-Re-Ranking/main.py", "import torch\nimport gnn_reranking\n\nif __name__ == '__main__':\n    gnn_reranking.run()\n");
    r.write("reid/utils/GPU-Re-Ranking/gnn_reranking.py", "import torch\nimport triton\n\n\ndef run():\n    pass\n");
    const ScanResult reid = scan_dir(r);
    const Finding* rerank = find(reid, "cuda-only-package-import", "reid/utils/GPU-Re-Ranking/gnn_reranking.py");
    ASSERT_NE(rerank, nullptr);
    EXPECT_EQ(rerank->reach, Reach::tooling) << rerank->note;
    EXPECT_EQ(rerank->impact, VerdictImpact::none) << rerank->note;
}

// An entry script that imports another framework at its top and not torch is that framework's
// program (ResNeSt's scripts/gluon/train.py: MXNet and horovod.mxnet beside the PyTorch models):
// tooling, so its horovod moves no verdict. One that imports torch too stays the run.
TEST(ProgramModel, AnEntryOfAnotherFrameworkIsTooling) {
    test::TempDir d;
    d.write("train.py", "import torch\n\nif __name__ == '__main__':\n    print(torch.ones(2))\n");
    d.write("scripts/gluon/train.py", "import mxnet as mx\nimport horovod.mxnet as hvd\n\nif __name__ == '__main__':\n    hvd.init()\n");
    const ScanResult r = scan_dir(d);
    const Finding* hvd = find(r, "cuda-only-package-import", "scripts/gluon/train.py");
    ASSERT_NE(hvd, nullptr);
    EXPECT_EQ(hvd->reach, Reach::tooling) << hvd->note;
    EXPECT_EQ(hvd->impact, VerdictImpact::none);
    const auto& entries = r.program.entry_points;
    const auto gluon = std::find_if(entries.begin(), entries.end(), [](const EntryPoint& e) { return e.path == "scripts/gluon/train.py"; });
    ASSERT_NE(gluon, entries.end());
    EXPECT_NE(gluon->why.find("a program of another framework (it imports mxnet, not torch)"), std::string::npos) << gluon->why;
    d.write("scripts/gluon/train.py", "import torch\nimport mxnet as mx\nimport horovod.mxnet as hvd\n\nif __name__ == '__main__':\n    hvd.init()\n");
    const ScanResult both = scan_dir(d);
    EXPECT_NE(find(both, "cuda-only-package-import", "scripts/gluon/train.py")->reach, Reach::tooling);
    // score_sde_pytorch's main.py imports tensorflow for its file helpers, and run_lib, which imports
    // torch: a PyTorch program
    d.write("scripts/gluon/train.py", "import mxnet as mx\nimport run_lib\n\nif __name__ == '__main__':\n    run_lib.train()\n");
    d.write("scripts/gluon/run_lib.py", "import torch\nimport horovod.torch as hvd\n\n\ndef train():\n    hvd.init()\n");
    const ScanResult through = scan_dir(d);
    ASSERT_NE(find(through, "cuda-only-package-import", "scripts/gluon/run_lib.py"), nullptr);
    EXPECT_EQ(find(through, "cuda-only-package-import", "scripts/gluon/run_lib.py")->reach, Reach::core);
}

// TinyLlama's lit_gpt/model.py: flash_attn (no replacement: stay-on-CUDA) imported at the top, and
// called only under a device check, with PyTorch's attention beside it. The import is the edit: guard
// it, and the Mac runs the code beside the call. Major and dual-track, not a blocker. A call outside the
// check keeps the package's weight.
TEST(ProgramModel, APackageWithNoReplacementUsedOnlyOnCudaPathsIsAnImportToGuard) {
    test::TempDir d;
    const std::string head =
        "import torch\nimport torch.nn.functional as F\nfrom flash_attn import flash_attn_func\n\n\n"
        "def attention(q, k, v):\n"
        "    if q.device.type == 'cuda' and q.dtype == torch.float16:\n        return flash_attn_func(q, k, v, causal=True)\n"
        "    return F.scaled_dot_product_attention(q, k, v, is_causal=True)\n";
    const std::string tail = "\n\nif __name__ == '__main__':\n    x = torch.ones(1, 2, 4, 8)\n    print(attention(x, x, x))\n";
    d.write("train.py", head + tail);
    const ScanResult r = scan_dir(d);
    const auto fa = by_line(r, "cuda-only-package-import", "train.py");
    ASSERT_NE(fa.count(3), 0u);
    EXPECT_EQ(fa.at(3)->impact, VerdictImpact::dual) << fa.at(3)->note;
    EXPECT_EQ(fa.at(3)->severity, Severity::major) << fa.at(3)->note;
    EXPECT_NE(fa.at(3)->note.find("every use is on a path a Mac never takes"), std::string::npos) << fa.at(3)->note;
    EXPECT_EQ(assess(r.findings, nullptr, test::bundled_catalogue(), r.file_lines, &r).verdict, Verdict::dual_track);
    // one call outside the check
    d.write("train.py", head + "\n\ndef fast(q, k, v):\n    return flash_attn_func(q, k, v)\n" + tail);
    const ScanResult used = scan_dir(d);
    const auto again = by_line(used, "cuda-only-package-import", "train.py");
    ASSERT_NE(again.count(3), 0u);
    EXPECT_EQ(again.at(3)->impact, VerdictImpact::stay) << again.at(3)->note;
    EXPECT_EQ(assess(used.findings, nullptr, test::bundled_catalogue(), used.file_lines, &used).verdict, Verdict::stay_on_cuda);
}

// llm-foundry's attention.py: `attention_implementations.register('flash', func=flash_attn_fn)` beside
// the torch implementation. The registry stores the function under a name a config picks: chosen, not
// called (alternative-branch), so flash_attn's lazy import in it is one implementation of a choice:
// minor, no verdict impact. The same function passed to a call that runs it (a thread's target) is a call.
TEST(ProgramModel, AFunctionPassedToARegistryIsChosenNotCalled) {
    test::TempDir d;
    const std::string head =
        "import threading\nimport torch\n\n\ndef flash_attn_fn(q, k, v):\n    from flash_attn import flash_attn_func\n"
        "    return flash_attn_func(q, k, v)\n\n\ndef torch_attn_fn(q, k, v):\n"
        "    return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n\n\n";
    const std::string tail = "\n\nif __name__ == '__main__':\n    print(torch.ones(2))\n";
    d.write("train.py", head + "registry.register('flash', func=flash_attn_fn)\nregistry.register('torch', func=torch_attn_fn)\n" + tail);
    const ScanResult r = scan_dir(d);
    const Finding* fa = find(r, "cuda-only-package-import", "train.py");
    ASSERT_NE(fa, nullptr);
    EXPECT_EQ(fa->guard, GuardKind::alternative_branch) << fa->note;
    EXPECT_EQ(fa->impact, VerdictImpact::none) << fa->note;
    EXPECT_EQ(fa->severity, Severity::minor) << fa->note;
    EXPECT_NE(fa->note.find("registered by registry.register('flash', func=flash_attn_fn)"), std::string::npos) << fa->note;
    d.write("train.py", head + "threading.Thread(target=flash_attn_fn).start()\n" + tail);
    const ScanResult run = scan_dir(d);
    const Finding* called = find(run, "cuda-only-package-import", "train.py");
    ASSERT_NE(called, nullptr);
    EXPECT_EQ(called->impact, VerdictImpact::stay) << called->note;
}

// llm-foundry's norm.py: `@norms.register_class('triton_rmsnorm')` on a class whose __init__ imports
// flash_attn's Triton RMSNorm. The decorator stores the class for a name a config picks: chosen, not
// called (alternative-branch): minor, no verdict impact. Built by the run itself, the class is a call.
TEST(ProgramModel, AClassADecoratorRegistersIsChosenNotCalled) {
    test::TempDir d;
    const std::string cls =
        "import torch\n\n\n@norms.register_class('triton_rmsnorm')\nclass TritonRMSNorm(torch.nn.Module):\n"
        "    def __init__(self, n):\n        super().__init__()\n        from flash_attn.ops.triton.layer_norm import rms_norm_fn\n"
        "        self.fn = rms_norm_fn\n\n\n";
    d.write("train.py", cls + "if __name__ == '__main__':\n    print(norms.get('rmsnorm')(4))\n");
    const ScanResult r = scan_dir(d);
    const Finding* fa = find(r, "cuda-only-package-import", "train.py");
    ASSERT_NE(fa, nullptr);
    EXPECT_EQ(fa->guard, GuardKind::alternative_branch) << fa->note;
    EXPECT_EQ(fa->impact, VerdictImpact::none) << fa->note;
    EXPECT_NE(fa->note.find("registered by @norms.register_class('triton_rmsnorm')"), std::string::npos) << fa->note;
    d.write("train.py", cls + "if __name__ == '__main__':\n    print(TritonRMSNorm(4))\n");
    const ScanResult built = scan_dir(d);
    const Finding* called = find(built, "cuda-only-package-import", "train.py");
    ASSERT_NE(called, nullptr);
    EXPECT_EQ(called->impact, VerdictImpact::stay) << called->note;
}

// Real-ESRGAN: `@MODEL_REGISTRY.register()` stores RealESRNetModel, and the first stage's run config
// names it (`model_type: RealESRNetModel`): that config runs it, so its __init__'s `.cuda()` keeps the
// rule's weight. A registered class no shipped config names stays chosen, not called.
TEST(ProgramModel, ARegisteredClassAShippedConfigNamesIsCalled) {
    for (const bool named : {false, true}) {
        test::TempDir d;
        d.write("realesrgan/__init__.py", "from .models import *\n");
        d.write("realesrgan/models/__init__.py", "from .realesrnet_model import RealESRNetModel\n");
        d.write("realesrgan/models/realesrnet_model.py",
                "import torch\nfrom basicsr.utils.registry import MODEL_REGISTRY\n\n\n@MODEL_REGISTRY.register()\nclass RealESRNetModel(SRModel):\n"
                "    def __init__(self, opt):\n        super().__init__(opt)\n        self.jpeger = DiffJPEG(differentiable=False).cuda()\n");
        d.write("realesrgan/train.py", "import realesrgan.models\nfrom basicsr.train import train_pipeline\n\nif __name__ == '__main__':\n    train_pipeline('.')\n");
        d.write("options/train_realesrnet_x4plus.yml", std::string("name: train_RealESRNetx4plus\nmodel_type: ") + (named ? "RealESRNetModel" : "SRModel") +
                                                          "\nscale: 4\n");
        const ScanResult r = scan_dir(d);
        const Finding* f = find(r, "cuda-method-call", "realesrgan/models/realesrnet_model.py");
        ASSERT_NE(f, nullptr) << named;
        EXPECT_EQ(f->guard, named ? GuardKind::none : GuardKind::alternative_branch) << f->note;
        EXPECT_EQ(f->severity, named ? Severity::major : Severity::minor) << f->note;
    }
}

// jeonsworld/ViT-pytorch's shape, with a package for speed (bitsandbytes: dual-track) imported at the
// top and used only under `if args.bits8:` and `if args.local_rank != -1:`: moving the import is the
// edit, no Linux GPU needed, but the import fails where the package is missing: major, no verdict,
// where the README's command turns --bits8 on; minor where nothing does (the option's own weight). One
// use outside a guard keeps the package's weight (major, dual-track).
TEST(ProgramModel, APackageForSpeedUsedOnlyUnderGuardsIsAnImportToMove) {
    test::TempDir d;
    const std::string head =
        "import argparse\nimport torch\nimport bitsandbytes as bnb\nfrom bitsandbytes.optim import GlobalOptimManager\n\n\n"
        "def setup(args, model, optimizer):\n"
        "    if args.bits8:\n        optimizer = bnb.optim.Adam8bit(model.parameters())\n"
        "    if args.local_rank != -1:\n        GlobalOptimManager.get_instance().register_parameters(model.parameters())\n";
    const std::string tail =
        "    return model, optimizer\n\n\nif __name__ == '__main__':\n    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--bits8', action='store_true')\n    parser.add_argument('--local_rank', type=int, default=-1)\n"
        "    setup(parser.parse_args(), torch.nn.Linear(2, 2), None)\n";
    d.write("train.py", head + tail);
    d.write("README.md", "# vit\n\n    python train.py --bits8\n");
    const ScanResult r = scan_dir(d);
    const auto bnb = by_line(r, "cuda-only-package-import", "train.py");
    ASSERT_NE(bnb.count(3), 0u);
    EXPECT_EQ(bnb.at(3)->impact, VerdictImpact::none) << bnb.at(3)->note;
    EXPECT_EQ(bnb.at(3)->severity, Severity::major) << bnb.at(3)->note;
    EXPECT_NE(bnb.at(3)->note.find("imported at the top but used only under guards (off by default: --bits8)"), std::string::npos) << bnb.at(3)->note;
    d.write("README.md", "# vit\n\n    python train.py\n");
    const ScanResult off = scan_dir(d);
    EXPECT_EQ(by_line(off, "cuda-only-package-import", "train.py").at(3)->severity, Severity::minor);
    // one unguarded use
    d.write("train.py", head + "    bnb.optim.Adam8bit(model.parameters())\n" + tail);
    const ScanResult used = scan_dir(d);
    const auto again = by_line(used, "cuda-only-package-import", "train.py");
    ASSERT_NE(again.count(3), 0u);
    EXPECT_EQ(again.at(3)->impact, VerdictImpact::dual) << again.at(3)->note;
}

// A module that the README's Python code imports is the project's API (GroundingDINO's `from
// groundingdino.util.inference import load_model, predict`), though only demo scripts (tooling) and
// no __init__.py import it: what it reaches is core. Imports in a shell block, a relative import, an
// outside package and a module in a tests folder name no API; doctest lines and reStructuredText's
// code-block do.
TEST(ProgramModel, AModuleTheReadmesPythonCodeImportsIsPackageApi) {
    test::TempDir d;
    d.write("setup.py", "from setuptools import setup\nsetup(name='gdet', packages=['gdet'])\n");
    d.write("gdet/__init__.py", "");
    d.write("gdet/util/__init__.py", "");
    d.write("gdet/util/inference.py", "import torch\nfrom gdet.models import net\n\n\ndef load_model(path):\n    return net.Net()\n");
    d.write("gdet/models/__init__.py", "");
    d.write("gdet/models/net.py", "import torch\nimport triton\n\n\nclass Net(torch.nn.Module):\n    pass\n");
    d.write("gdet/tools/__init__.py", "");
    d.write("gdet/tools/export.py", "import torch\nimport flash_attn\n");
    d.write("tests/helpers.py", "import torch\nimport apex\n");
    d.write("demo/run_demo.py", "from gdet.util.inference import load_model\n\nif __name__ == '__main__':\n    load_model('x')\n");
    const std::string shell_only = "# gdet\n\n```bash\npython demo/run_demo.py\nimport gdet.tools.export\n```\n\n```python\nfrom .tools import export\nimport torch\nfrom tests.helpers import x\n```\n";
    d.write("README.md", shell_only);
    const ScanResult before = scan_dir(d);
    const Finding* triton = find(before, "cuda-only-package-import", "gdet/models/net.py");
    ASSERT_NE(triton, nullptr);
    EXPECT_EQ(triton->reach, Reach::tooling) << triton->note;
    EXPECT_NE(triton->impact, VerdictImpact::stay);

    d.write("README.md", shell_only + "\n```python\nfrom gdet.util.inference import load_model, predict\nmodel = load_model('w.pth')\n```\n");
    const ScanResult r = scan_dir(d);
    triton = find(r, "cuda-only-package-import", "gdet/models/net.py");
    ASSERT_NE(triton, nullptr);
    EXPECT_EQ(triton->reach, Reach::core) << triton->note;
    EXPECT_EQ(triton->impact, VerdictImpact::stay) << triton->note;
    const auto& entries = r.program.entry_points;
    const auto api = std::find_if(entries.begin(), entries.end(), [](const EntryPoint& e) { return e.path == "gdet/util/inference.py"; });
    ASSERT_NE(api, entries.end());
    EXPECT_FALSE(api->tooling) << "a package's API is no sampling script, whatever its name says: " << api->why;
    EXPECT_EQ(api->why, "package API (README.md:15 imports it)");
    for (const char* path : {"gdet/tools/export.py", "tests/helpers.py"})
        EXPECT_TRUE(std::none_of(entries.begin(), entries.end(), [&](const EntryPoint& e) { return e.path == path; })) << path;
    EXPECT_NE(find(r, "cuda-only-package-import", "gdet/tools/export.py")->reach, Reach::core);

    // a doctest line and a reStructuredText code-block name it too
    d.write("README.md", shell_only);
    d.write("docs/usage.rst", "Usage\n=====\n\n.. code-block:: python\n\n    import gdet.tools.export as ex\n\nText again.\n\n>>> from gdet.util.inference import load_model\n");
    const ScanResult rst = scan_dir(d);
    EXPECT_EQ(find(rst, "cuda-only-package-import", "gdet/models/net.py")->reach, Reach::core);
    EXPECT_EQ(find(rst, "cuda-only-package-import", "gdet/tools/export.py")->reach, Reach::core);
    d.write("docs/usage.rst", "Usage\n=====\n\n.. code-block:: python\n\n    x = 1\n\nimport gdet.tools.export\n");
    const ScanResult outside_block = scan_dir(d);
    EXPECT_NE(find(outside_block, "cuda-only-package-import", "gdet/tools/export.py")->reach, Reach::core) << "prose after the block is no code";

    // the names in parentheses on the lines below (mochi's README: `from genmo.mochi_preview.pipelines import (`)
    d.write("docs/usage.rst", "Usage\n=====\n");
    d.write("README.md", shell_only + "\n```python\nfrom gdet.util.inference import (\n    load_model,\n    predict,\n)\n```\n");
    const ScanResult wrapped = scan_dir(d);
    EXPECT_EQ(find(wrapped, "cuda-only-package-import", "gdet/models/net.py")->reach, Reach::core);
}

// A blocker that one program needs while another program of the same code runs without it is that
// program's, not the repository's (FastChat: train_mem.py patches attention with flash-attn, the
// serving CLI needs none of it): dual-track. A program is an entry a command runs whose file name
// trains, serves or samples; a download script that shares the code is none.
TEST(ProgramModel, ABlockerThatOnlyOneOfTheProgramsNeedsIsDualTrack) {
    test::TempDir d;
    d.write("chat/__init__.py", "");
    d.write("chat/model.py", "import torch\n\n\ndef load():\n    return torch.nn.Linear(2, 2)\n");
    d.write("chat/train/__init__.py", "");
    d.write("chat/train/train.py", "import torch\nfrom chat import model\n\n\ndef train():\n    model.load()\n\n\nif __name__ == '__main__':\n    train()\n");
    d.write("chat/train/flash_patch.py", "import flash_attn\n\n\ndef patch():\n    return flash_attn.flash_attn_func\n");
    d.write("chat/train/train_mem.py",
            "from chat.train.flash_patch import patch\npatch()\nfrom chat.train.train import train\n\nif __name__ == '__main__':\n    train()\n");
    d.write("chat/serve/__init__.py", "");
    d.write("chat/serve/cli.py", "from chat import model\n\nif __name__ == '__main__':\n    model.load()\n");
    d.write("chat/data/__init__.py", "");
    d.write("chat/data/download_weights.py", "from chat import model\n\nif __name__ == '__main__':\n    pass\n");
    const std::string train_cmd = "torchrun --nproc_per_node=4 chat/train/train_mem.py\n";
    d.write("README.md", "```bash\n" + train_cmd + "python3 chat/data/download_weights.py\n```\n");
    const ScanResult alone = scan_dir(d);
    const Finding* flash = find(alone, "cuda-only-package-import", "chat/train/flash_patch.py");
    ASSERT_NE(flash, nullptr);
    EXPECT_EQ(flash->reach, Reach::core);
    EXPECT_EQ(flash->impact, VerdictImpact::stay) << "a download script is no program the Mac runs instead: " << flash->note;

    d.write("README.md", "```bash\n" + train_cmd + "python3 -m chat.serve.cli --device mps\n```\n");
    const ScanResult r = scan_dir(d);
    flash = find(r, "cuda-only-package-import", "chat/train/flash_patch.py");
    ASSERT_NE(flash, nullptr);
    EXPECT_EQ(flash->reach, Reach::core);
    EXPECT_EQ(flash->severity, Severity::blocker) << flash->note;
    EXPECT_EQ(flash->impact, VerdictImpact::dual) << flash->note;
    EXPECT_NE(flash->note.find("chat/serve/cli.py, a program of the repository, runs without chat/train/flash_patch.py"), std::string::npos)
        << flash->note;

    // a serving program that needs the package too leaves no program without it
    d.write("chat/serve/cli.py", "from chat import model\nfrom chat.train import flash_patch\n\nif __name__ == '__main__':\n    model.load()\n");
    const ScanResult both = scan_dir(d);
    EXPECT_EQ(find(both, "cuda-only-package-import", "chat/train/flash_patch.py")->impact, VerdictImpact::stay);
}

// ChatRWKV's JIT build names its sources by f-strings under the module's folder
// (`f"{current_path}/cuda/operators.cu"`, `current_path = os.path.dirname(os.path.abspath(__file__))`):
// they are the extension's sources, so its kernels are as optional as its build (info), not files no
// entry reaches. An f-string with any other interpolation names no file.
TEST(ProgramModel, AJitBuildsFStringSourcesUnderTheModulesFolderAreItsSources) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("rwkv/__init__.py", "");
    d.write("rwkv/cuda/operators.cu", "__global__ void kernel_wkv_forward(float* y) { y[threadIdx.x] = 1.f; }\n"
                                      "void cuda_forward(float* y) { kernel_wkv_forward<<<1, 32>>>(y); }\n");
    d.write("rwkv/cuda/wrapper.cpp", "void cuda_forward(float* y);\nvoid forward(at::Tensor y) { cuda_forward(y.data_ptr<float>()); }\n"
                                     "TORCH_LIBRARY(rwkv, m) {\n  m.def(\"forward\", forward);\n}\n");
    auto weigh = [&](const std::string& folder) {
        d.write("rwkv/model.py", "import os\nimport torch\nfrom torch.utils.cpp_extension import load\n\n"
                                 "current_path = os.path.dirname(os.path.abspath(__file__))\n\ntry:\n"
                                 "    load(name='wkv_cuda', sources=[f\"{" + folder + "}/cuda/wrapper.cpp\", f\"{" + folder + "}/cuda/operators.cu\"])\n"
                                 "    CUDA_ON = True\nexcept Exception:\n    CUDA_ON = False\n");
        d.write("train.py", "import torch\nimport rwkv.model\n\nif __name__ == '__main__':\n    print(torch.ones(2))\n");
        const ScanResult r = scan_dir(d);
        const Finding* kernel = find(r, "cuda-kernel-source", "rwkv/cuda/operators.cu");
        EXPECT_NE(kernel, nullptr) << folder;
        return kernel ? *kernel : Finding{};
    };
    Finding kernel = weigh("current_path");
    EXPECT_EQ(kernel.reach, Reach::optional) << kernel.note;
    EXPECT_EQ(kernel.severity, Severity::info) << kernel.note;
    kernel = weigh("os.environ['HOME']");
    EXPECT_EQ(kernel.reach, Reach::unreached) << kernel.note;
}

// cszn/KAIR: main_test_face_enhancement.py, a __main__ block no command runs, imports a module that
// builds a CUDA extension on load, while the README's programs (main_train_psnr.py,
// main_test_swinir.py) share its utilities and run without it: the blocker is that script's, dual-track.
// With no documented program beside it, or one that needs the module too, it stays the run's.
TEST(ProgramModel, ABlockerOnlyAnUndocumentedScriptReachesIsDualBesideTheDocumentedPrograms) {
    test::TempDir d;
    d.write("utils/__init__.py", "");
    d.write("utils/utils_image.py", "import numpy as np\n\n\ndef imread(p):\n    return np.zeros(2)\n");
    d.write("models/__init__.py", "");
    d.write("models/op/__init__.py", "");
    d.write("models/op/fused_act.py",
            "import os\nfrom torch.utils.cpp_extension import load\n\nmodule_path = os.path.dirname(__file__)\n"
            "fused = load('fused', sources=[os.path.join(module_path, 'fused_bias_act.cpp'), os.path.join(module_path, 'fused_bias_act_kernel.cu')])\n");
    d.write("models/network_faceenhancer.py", "from models.op.fused_act import fused\n\n\ndef build():\n    return fused\n");
    d.write("models/network_swinir.py", "import torch\n\n\ndef build():\n    return torch.nn.Linear(2, 2)\n");
    d.write("main_test_face_enhancement.py",
            "from utils import utils_image as util\nfrom models.network_faceenhancer import build\n\nif __name__ == '__main__':\n"
            "    build()\n    util.imread('x')\n");
    d.write("main_test_swinir.py",
            "from utils import utils_image as util\nfrom models.network_swinir import build\n\nif __name__ == '__main__':\n"
            "    build()\n    util.imread('x')\n");
    const auto build = [](const ScanResult& r) { return find(r, "cuda-extension-build", "models/op/fused_act.py"); };
    const ScanResult alone = scan_dir(d);
    ASSERT_NE(build(alone), nullptr);
    EXPECT_EQ(build(alone)->impact, VerdictImpact::stay) << "no command runs either script: " << build(alone)->note;

    d.write("README.md", "```bash\npython main_test_swinir.py --task real_sr\n```\n");
    const ScanResult r = scan_dir(d);
    ASSERT_NE(build(r), nullptr);
    EXPECT_EQ(build(r)->reach, Reach::core);
    EXPECT_EQ(build(r)->impact, VerdictImpact::dual) << build(r)->note;
    EXPECT_NE(build(r)->note.find("main_test_swinir.py, a program of the repository, runs without models/op/fused_act.py"), std::string::npos)
        << build(r)->note;

    // the documented program needs it too
    d.write("models/network_swinir.py", "import torch\nfrom models.op.fused_act import fused\n\n\ndef build():\n    return fused\n");
    EXPECT_EQ(build(scan_dir(d))->impact, VerdictImpact::stay);
}

// Tencent/Hunyuan3D-2: shape generation (shape_app.py) is plain PyTorch; texture generation
// (texture_app.py) loads a rasterizer that texgen/rasterizer/setup.py builds as a CUDA extension. The
// build, like the extension's op, is that one program's blocker: dual-track, with the program that
// runs without it named. Where every documented program loads it, it stays the run's.
TEST(ProgramModel, AnExtensionBuildOnlyOneProgramLoadsIsThatProgramsBlocker) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("hy/__init__.py", "");
    d.write("hy/shapegen/__init__.py", "import torch\n\n\ndef generate(x):\n    return torch.relu(x)\n");
    d.write("hy/texgen/__init__.py", "from .render import paint\n");
    d.write("hy/texgen/render.py", "import rast_kernel\n\n\ndef paint(v):\n    return rast_kernel.rasterize(v)\n");
    d.write("hy/texgen/rasterizer/setup.py",
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension, BuildExtension\n\n"
            "setup(name='rast', ext_modules=[CUDAExtension('rast_kernel', ['rast.cpp', 'rast_gpu.cu'])],\n"
            "      cmdclass={'build_ext': BuildExtension})\n");
    d.write("hy/texgen/rasterizer/rast.cpp",
            "#include <torch/extension.h>\ntorch::Tensor rasterize_gpu(torch::Tensor v);\n"
            "torch::Tensor rasterize(torch::Tensor v) { return rasterize_gpu(v); }\n"
            "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"rasterize\", &rasterize); }\n");
    d.write("hy/texgen/rasterizer/rast_gpu.cu",
            "#include <torch/extension.h>\n__global__ void rast_kernel(float* v) { v[threadIdx.x] = 0.f; }\n"
            "torch::Tensor rasterize_gpu(torch::Tensor v) { rast_kernel<<<1, 1>>>(v.data_ptr<float>()); return v; }\n");
    d.write("shape_app.py", "import torch\nfrom hy.shapegen import generate\n\nif __name__ == '__main__':\n    generate(torch.ones(2))\n");
    d.write("texture_app.py", "import torch\nfrom hy.texgen import paint\n\nif __name__ == '__main__':\n    paint(torch.ones(2))\n");
    d.write("README.md", "```bash\npython shape_app.py\npython texture_app.py\n```\n");
    const auto build = [](const ScanResult& r) { return find(r, "cuda-extension-build", "hy/texgen/rasterizer/setup.py"); };
    const ScanResult r = scan_dir(d);
    ASSERT_NE(build(r), nullptr);
    EXPECT_EQ(build(r)->reach, Reach::core) << build(r)->note;
    EXPECT_EQ(build(r)->impact, VerdictImpact::dual) << build(r)->note;
    EXPECT_NE(build(r)->note.find("shape_app.py, a program of the repository, runs without"), std::string::npos) << build(r)->note;
    EXPECT_EQ(assess(r.findings, nullptr, test::bundled_catalogue(), r.file_lines, &r).verdict, Verdict::dual_track);

    // both programs paint
    d.write("shape_app.py", "import torch\nfrom hy.shapegen import generate\nfrom hy.texgen import paint\n\nif __name__ == '__main__':\n"
                            "    paint(generate(torch.ones(2)))\n");
    const ScanResult both = scan_dir(d);
    ASSERT_NE(build(both), nullptr);
    EXPECT_EQ(build(both)->impact, VerdictImpact::stay) << build(both)->note;
}

// HazyResearch/ThunderKittens: a header-only CUDA library (include/) whose kernels/ folders each
// build an extension with nvcc from a Makefile; its Python is the Makefile's input generator and the
// kernels' tests. No Python import reaches the C++/CUDA, which is what the repository delivers: its
// CUDA-only ops are the run's (stay-on-CUDA). Beside a Python package that an entry imports, the same
// unlinked sources are off the run again.
TEST(ProgramModel, TheKernelsOfARepositoryWhosePythonIsScriptsAndTestsAreItsRun) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("include/tiles/tile.cuh", "#pragma once\n__device__ inline float twice(float x) { return 2.f * x; }\n");
    d.write("kernels/scale/scale.cu",
            "#include <torch/extension.h>\n#include \"tiles/tile.cuh\"\n"
            "__global__ void scale_kernel(float* y, int n) { int i = threadIdx.x; if (i < n) y[i] = twice(y[i]); }\n"
            "torch::Tensor scale(torch::Tensor x) {\n  scale_kernel<<<1, 256>>>(x.data_ptr<float>(), x.numel());\n  return x;\n}\n"
            "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"scale\", &scale); }\n");
    d.write("kernels/scale/Makefile", "NVCC := nvcc\nCMD := python gentests.py; ./scale.out inputs.txt\n\nall:\n\t$(NVCC) scale.cu -o scale.out\n"
                                      "\nrun: all\n\t$(CMD)\n");
    d.write("kernels/scale/gentests.py", "import torch\n\nif __name__ == '__main__':\n    torch.save(torch.randn(256), 'inputs.pt')\n");
    d.write("kernels/scale/test_scale.py", "import torch\nimport _C\n\n\ndef test_scale():\n    x = torch.ones(4, device='cuda')\n"
                                           "    assert torch.equal(_C.scale(x), 2 * x)\n");
    const auto op = [](const ScanResult& r) { return find(r, "cuda-only-extension-op", "kernels/scale/scale.cu"); };
    const ScanResult r = scan_dir(d);
    ASSERT_NE(op(r), nullptr);
    EXPECT_EQ(op(r)->reach, Reach::core) << op(r)->note;
    EXPECT_EQ(op(r)->impact, VerdictImpact::stay) << op(r)->note;
    EXPECT_NE(op(r)->note.find("its C++/CUDA is what it delivers"), std::string::npos) << op(r)->note;
    EXPECT_EQ(assess(r.findings, nullptr, test::bundled_catalogue(), r.file_lines, &r).verdict, Verdict::stay_on_cuda);

    // a project copied in (third_party/) is no product of the repository's own
    d.write("third_party/cutlass/gemm.cu", "__global__ void gemm_kernel(float* c) { c[threadIdx.x] = 0.f; }\n");
    const ScanResult vendored = scan_dir(d);
    const Finding* gemm = find(vendored, "cuda-kernel-source", "third_party/cutlass/gemm.cu");
    ASSERT_NE(gemm, nullptr);
    EXPECT_NE(gemm->reach, Reach::core) << gemm->note;
    EXPECT_EQ(gemm->impact, VerdictImpact::none) << gemm->note;

    // a Python program of its own: the kernels nothing links stay off its run
    d.write("tiles/__init__.py", "import torch\n\n\ndef scale(x):\n    return 2 * x\n");
    d.write("train.py", "import torch\nfrom tiles import scale\n\nif __name__ == '__main__':\n    scale(torch.ones(4))\n");
    const ScanResult program = scan_dir(d);
    ASSERT_NE(op(program), nullptr);
    EXPECT_EQ(op(program)->reach, Reach::unreached) << op(program)->note;
    EXPECT_EQ(op(program)->impact, VerdictImpact::none) << op(program)->note;
}

// facebookresearch/ConvNeXt-V2: models/utils.py imports MinkowskiEngine on load for its sparse layers.
// The fine-tuning program takes only LayerNorm and GRN from it, which use none of it (directly or
// through another definition); the pre-training program's sparse model needs it. Fine-tuning runs
// once the import is moved: the blocker is one program's, dual-track. Taking a definition that uses
// it, or the whole module, or a module whose own top-level code uses it, keeps stay-on-CUDA.
TEST(ProgramModel, AProgramThatTakesOnlyDefinitionsThatDoNotUseAStayImportRunsWithoutIt) {
    test::TempDir d;
    d.write("models/__init__.py", "");
    d.write("models/utils.py",
            "import torch\nimport MinkowskiEngine as ME\n\n\ndef _norm(x):\n    return x\n\n\nclass LayerNorm(torch.nn.Module):\n"
            "    def forward(self, x):\n        return _norm(x)\n\n\nclass GRN(torch.nn.Module):\n    pass\n\n\n"
            "def _sparse(x):\n    return ME.SparseTensor(x)\n\n\nclass MinkowskiGRN(torch.nn.Module):\n"
            "    def forward(self, x):\n        return _sparse(x)\n");
    d.write("models/dense.py", "from .utils import LayerNorm, GRN\n\n\ndef build():\n    return LayerNorm()\n");
    d.write("models/sparse.py", "from .utils import MinkowskiGRN, LayerNorm\n\n\ndef build():\n    return MinkowskiGRN()\n");
    d.write("main_finetune.py", "from models.dense import build\n\nif __name__ == '__main__':\n    build()\n");
    d.write("main_pretrain.py", "from models.sparse import build\n\nif __name__ == '__main__':\n    build()\n");
    d.write("README.md", "```bash\npython main_pretrain.py\npython main_finetune.py\n```\n");
    const auto me = [](const ScanResult& r) { return find(r, "cuda-only-package-import", "models/utils.py"); };
    const ScanResult r = scan_dir(d);
    ASSERT_NE(me(r), nullptr);
    EXPECT_EQ(me(r)->reach, Reach::core);
    EXPECT_EQ(me(r)->severity, Severity::blocker) << me(r)->note;
    EXPECT_EQ(me(r)->impact, VerdictImpact::dual) << me(r)->note;
    EXPECT_NE(me(r)->note.find("main_finetune.py, a program of the repository, runs without what models/utils.py:2 imports"), std::string::npos)
        << me(r)->note;

    // fine-tuning takes a definition that uses it through another: both programs need it
    d.write("models/dense.py", "from .utils import LayerNorm, MinkowskiGRN\n\n\ndef build():\n    return LayerNorm()\n");
    EXPECT_EQ(me(scan_dir(d))->impact, VerdictImpact::stay);
    // the whole module
    d.write("models/dense.py", "from . import utils\n\n\ndef build():\n    return utils.LayerNorm()\n");
    EXPECT_EQ(me(scan_dir(d))->impact, VerdictImpact::stay);
    // names only, but the module's own top-level code uses the package on load
    d.write("models/dense.py", "from .utils import LayerNorm, GRN\n\n\ndef build():\n    return LayerNorm()\n");
    d.write("models/utils.py", read_file(d.path() / "models/utils.py") + "\nSPARSE = {'grn': MinkowskiGRN}\n");
    EXPECT_EQ(me(scan_dir(d))->impact, VerdictImpact::stay);
}

// lucidrains/PaLM-pytorch: train.py imports PaLM from the Triton variant, and the package defines a
// pure-PyTorch PaLM too. Triton is needed only as written: dual-track at most, with the twin named. A
// twin that itself needs a CUDA-only package to load, or a name with no twin, keeps stay-on-CUDA.
TEST(ProgramModel, AStayImportReachedThroughNamesWithATwinIsDualTrackAtMost) {
    test::TempDir d;
    d.write("palm_pytorch/__init__.py", "from palm_pytorch.palm import PaLM\n");
    d.write("palm_pytorch/palm.py", "import torch\n\n\nclass PaLM(torch.nn.Module):\n    pass\n");
    d.write("palm_pytorch/triton/__init__.py", "from palm_pytorch.triton.palm import PaLM\n");
    d.write("palm_pytorch/triton/palm.py", "import torch\nfrom palm_pytorch.triton.softmax import causal_softmax\n\n\nclass PaLM(torch.nn.Module):\n    pass\n");
    d.write("palm_pytorch/triton/softmax.py", "import triton\n\n\ndef causal_softmax(x):\n    return x\n");
    d.write("train.py", "import torch\nfrom palm_pytorch.triton import PaLM\n\nif __name__ == '__main__':\n    PaLM()\n");
    const ScanResult r = scan_dir(d);
    const Finding* triton = find(r, "cuda-only-package-import", "palm_pytorch/triton/softmax.py");
    ASSERT_NE(triton, nullptr);
    EXPECT_EQ(triton->reach, Reach::core);
    EXPECT_EQ(triton->impact, VerdictImpact::dual) << triton->note;
    EXPECT_NE(triton->note.find("train.py:2 imports PaLM from a module that needs the package, and palm_pytorch/palm.py defines it too"), std::string::npos)
        << triton->note;
    EXPECT_TRUE(std::any_of(triton->related.begin(), triton->related.end(),
                            [](const RelatedLocation& rel) { return rel.location.path == "palm_pytorch/palm.py" && rel.location.line == 4; }));

    // the twin needs a CUDA-only package to load too: no way round
    d.write("palm_pytorch/palm.py", "import torch\nimport flash_attn\n\n\nclass PaLM(torch.nn.Module):\n    pass\n");
    const ScanResult bound = scan_dir(d);
    EXPECT_EQ(find(bound, "cuda-only-package-import", "palm_pytorch/triton/softmax.py")->impact, VerdictImpact::stay);

    // a second name with no twin
    d.write("palm_pytorch/palm.py", "import torch\n\n\nclass PaLM(torch.nn.Module):\n    pass\n");
    d.write("palm_pytorch/triton/__init__.py", "from palm_pytorch.triton.palm import PaLM, fused_adam\n");
    d.write("palm_pytorch/triton/palm.py", "import torch\nfrom palm_pytorch.triton.softmax import causal_softmax\n\n\nclass PaLM(torch.nn.Module):\n    pass\n\n\n"
                                   "def fused_adam(p):\n    return p\n");
    d.write("train.py", "import torch\nfrom palm_pytorch.triton import PaLM, fused_adam\n\nif __name__ == '__main__':\n    PaLM()\n");
    const ScanResult partial = scan_dir(d);
    EXPECT_EQ(find(partial, "cuda-only-package-import", "palm_pytorch/triton/softmax.py")->impact, VerdictImpact::stay);
}

// autonomousvision/occupancy_networks: im2mesh/config.py imports five methods only to fill
// `method_dict`, and the config picks one; only dmc needs CUDA. What only dmc needs is dual-track at
// most, the registry named. A name the module also uses otherwise, a dictionary of two entries, or
// keys that are no strings, keep stay-on-CUDA.
TEST(ProgramModel, AStayFindingReachedOnlyThroughARegistryEntryIsDualTrackAtMost) {
    test::TempDir d;
    d.write("im2mesh/__init__.py", "");
    d.write("im2mesh/onet.py", "import torch\n\n\ndef get_model(cfg):\n    return torch.nn.Linear(2, 2)\n");
    d.write("im2mesh/psgn.py", "import torch\n\n\ndef get_model(cfg):\n    return torch.nn.Linear(2, 2)\n");
    d.write("im2mesh/dmc/__init__.py", "from im2mesh.dmc import ops\n\n\ndef get_model(cfg):\n    return ops.curvature()\n");
    d.write("im2mesh/dmc/ops.py", "import triton\n\n\ndef curvature():\n    return None\n");
    const std::string registry = "from im2mesh import onet, psgn, dmc\n\nmethod_dict = {\n    'onet': onet,\n    'psgn': psgn,\n    'dmc': dmc,\n}\n\n\n"
                                 "def get_model(cfg):\n    return method_dict[cfg['method']].get_model(cfg)\n";
    d.write("im2mesh/config.py", registry);
    d.write("train.py", "import torch\nfrom im2mesh import config\n\nif __name__ == '__main__':\n    config.get_model({'method': 'onet'})\n");
    const auto triton = [](const ScanResult& r) { return find(r, "cuda-only-package-import", "im2mesh/dmc/ops.py"); };
    const ScanResult r = scan_dir(d);
    ASSERT_NE(triton(r), nullptr);
    EXPECT_EQ(triton(r)->reach, Reach::core);
    EXPECT_EQ(triton(r)->impact, VerdictImpact::dual) << triton(r)->note;
    EXPECT_NE(triton(r)->note.find("im2mesh/config.py:1 imports dmc only for method_dict (line 6, one of 3 entries)"), std::string::npos)
        << triton(r)->note;
    EXPECT_TRUE(std::any_of(triton(r)->related.begin(), triton(r)->related.end(),
                            [](const RelatedLocation& rel) { return rel.location.path == "im2mesh/config.py" && rel.location.line == 6; }));

    // the module also uses the name on load
    d.write("im2mesh/config.py", registry + "\nDEFAULT = dmc.get_model\n");
    EXPECT_EQ(triton(scan_dir(d))->impact, VerdictImpact::stay);
    // two entries are no registry to pick from
    d.write("im2mesh/config.py", "from im2mesh import onet, dmc\n\nmethod_dict = {'onet': onet, 'dmc': dmc}\n");
    EXPECT_EQ(triton(scan_dir(d))->impact, VerdictImpact::stay);
    // keys that are no strings
    d.write("im2mesh/config.py", "from im2mesh import onet, psgn, dmc\n\nmethod_dict = {1: onet, 2: psgn, 3: dmc}\n");
    EXPECT_EQ(triton(scan_dir(d))->impact, VerdictImpact::stay);
}

// rinongal/textual_inversion: ldm/modules/encoders/modules_bak.py, a backup copy of modules.py with a
// `__main__` block, is no entry point (tooling.backup_files): what only it holds is unreached. The
// same file under another name is an entry, and a backup that the code imports is reached as any module.
TEST(ProgramModel, ABackupCopysMainBlockIsNoEntryPoint) {
    test::TempDir d;
    d.write("main.py", "import torch\nfrom encoders import modules\n\nif __name__ == '__main__':\n    modules.Embedder()\n");
    d.write("encoders/__init__.py", "");
    d.write("encoders/modules.py", "import torch\n\n\nclass Embedder(torch.nn.Module):\n    def __init__(self, device='cpu'):\n        super().__init__()\n");
    const std::string backup = "import torch\n\n\nclass Embedder(torch.nn.Module):\n    def __init__(self, device='cuda'):\n        super().__init__()\n\n\n"
                               "if __name__ == '__main__':\n    Embedder()\n";
    d.write("encoders/modules_bak.py", backup);
    const ScanResult r = scan_dir(d);
    const Finding* bak = find(r, "cuda-default-argument", "encoders/modules_bak.py");
    ASSERT_NE(bak, nullptr);
    EXPECT_EQ(bak->reach, Reach::unreached) << bak->note;
    EXPECT_TRUE(std::none_of(r.program.entry_points.begin(), r.program.entry_points.end(),
                             [](const auto& e) { return e.path == "encoders/modules_bak.py"; }));
    // the same module under a name that says no backup: its __main__ block runs it
    std::filesystem::remove(d.path() / "encoders/modules_bak.py");
    d.write("encoders/modules_cuda.py", backup);
    const ScanResult renamed = scan_dir(d);
    ASSERT_NE(find(renamed, "cuda-default-argument", "encoders/modules_cuda.py"), nullptr);
    EXPECT_EQ(find(renamed, "cuda-default-argument", "encoders/modules_cuda.py")->reach, Reach::core);
    // a backup the run imports
    std::filesystem::remove(d.path() / "encoders/modules_cuda.py");
    d.write("encoders/modules_bak.py", backup);
    d.write("main.py", "import torch\nfrom encoders import modules_bak\n\nif __name__ == '__main__':\n    modules_bak.Embedder()\n");
    const ScanResult imported = scan_dir(d);
    ASSERT_NE(find(imported, "cuda-default-argument", "encoders/modules_bak.py"), nullptr);
    EXPECT_EQ(find(imported, "cuda-default-argument", "encoders/modules_bak.py")->reach, Reach::core);
}

TEST(ProgramModel, RepositoryConfigSetsEntriesAndTooling) {
    test::TempDir d;
    d.write("run.py", "import torch\nimport examples.demo\nimport experiments.sweep\n\nif __name__ == \"__main__\":\n    pass\n");
    d.write("examples/__init__.py", "");
    d.write("examples/demo.py", "import torch\nx = torch.ones(2).cuda()\n");
    d.write("experiments/__init__.py", "");
    d.write("experiments/sweep.py", "import torch\ny = torch.ones(2).cuda()\n");
    d.write("experiments/grid.py", "import torch\nz = torch.ones(2).cuda()\n");
    const ScanResult grid_scan = scan_dir(d);
    EXPECT_EQ(find(grid_scan, "cuda-method-call", "experiments/grid.py")->reach, Reach::unreached);
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

// fxia22/pointnet.pytorch's README: "```\ncd utils\npython train_classification.py ...\n```": the
// script is utils/train_classification.py (no __main__ block), run in the folder the block entered.
// A README's next fenced block starts at the README's folder again; a shell script keeps its folder
// (`cd ..` from scripts/); `cd $DIR` leaves the command as written.
// LLaMA-Adapter's llama_adapter_v2_multimodal7b/exps/finetune.sh runs `torch.distributed.launch ...
// main_finetune.py`, a script of llama_adapter_v2_multimodal7b/ (docs/train.md runs it from there): a
// path found neither beside the file nor at the top is looked for in the folders above the file.
TEST(ProgramModel, ACommandsScriptIsFoundInAFolderAboveTheFile) {
    test::TempDir d;
    d.write("README.md", "# adapters\n");
    d.write("v2/main_finetune.py", "import torch\n\nif __name__ == '__main__':\n    torch.nn.Linear(2, 2).cuda()\n");
    d.write("v2/exps/finetune.sh", "#!/usr/bin/bash\npython -u -m torch.distributed.launch --master_port=1112 --nproc_per_node=8 --use_env \\\n"
                                  " main_finetune.py --batch_size 4 \\\n &>> \"$OUT\"/output.log &\n");
    const ScanResult r = scan_dir(d);
    std::map<std::string, std::string> why;
    for (const auto& e : r.program.entry_points) why[e.path] = e.why;
    EXPECT_EQ(why["v2/main_finetune.py"].rfind("run by v2/exps/finetune.sh:2", 0), 0u) << why["v2/main_finetune.py"];
    const Finding* launch = find(r, "multi-gpu-launch", "v2/exps/finetune.sh");
    ASSERT_NE(launch, nullptr);
    EXPECT_NE(launch->reach, Reach::unreached) << launch->note;
    EXPECT_NE(launch->note.find("launches v2/main_finetune.py"), std::string::npos) << launch->note;
}

TEST(ProgramModel, ACommandRunsInTheFolderAnEarlierCdEntered) {
    test::TempDir d;
    d.write("README.md", "# net\n\n```\ngit clone https://example.org/net\ncd net\npip install -e .\n```\n\nTraining\n```\ncd utils\n"
                         "python train_classification.py --nepoch 5\n```\n\n```\npython eval.py\n```\n");
    d.write("utils/train_classification.py", "import torch\nnet = torch.nn.Linear(2, 2).cuda()\n");
    d.write("utils/eval.py", "import torch\n");
    d.write("eval.py", "import torch\n");
    d.write("scripts/run.sh", "#!/bin/bash\ncd ..\npython tools/fit.py\ncd $WORK && python other.py\n");
    d.write("tools/fit.py", "import torch\n");
    d.write("scripts/other.py", "import torch\n");
    const ScanResult r = scan_dir(d);
    std::map<std::string, std::string> why;
    for (const auto& e : r.program.entry_points) why[e.path] = e.why;
    EXPECT_EQ(why["utils/train_classification.py"], "run by README.md:12");
    EXPECT_EQ(why["eval.py"].rfind("run by README.md:16", 0), 0u) << why["eval.py"];
    EXPECT_EQ(why.count("utils/eval.py"), 0u);
    EXPECT_EQ(why["tools/fit.py"], "run by scripts/run.sh:3");
    EXPECT_EQ(why["scripts/other.py"], "run by scripts/run.sh:4");
    const Finding* f = find(r, "cuda-method-call", "utils/train_classification.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reach, Reach::core) << f->note;
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

// Third-party code copied into a repository: a folder under another licence than the project's (or
// named third_party), whose files only tooling or nothing reaches, is reported at info with the
// folder named. A folder under the project's own licence, a licensed Python package, a vendored
// file the training run reaches, and repositories side by side in one tree keep their weight; and
// `check` of one file says the same as the full scan.
TEST(ProgramModel, VendoredCodeTheRunDoesNotReachIsInfo) {
    const std::string mit = "MIT License\n\nCopyright (c) Lab.\n\nPermission is hereby granted, free of charge...\n";
    const std::string cuda_example = "int main() {\n  float* p;\n  cudaMalloc(&p, 4);\n  return 0;\n}\n";
    test::TempDir d;
    d.write("LICENSE", mit);
    d.write("train.py", "import torch\nimport sdk.wrapper\n\nif __name__ == \"__main__\":\n    pass\n");
    d.write("sdk/__init__.py", "");
    d.write("sdk/LICENSE.txt", "LICENSE AGREEMENT FOR THE VENDOR SDK\n");
    d.write("sdk/wrapper.py", "import torch\nx = torch.zeros(2).cuda()\n");       // reached from train.py
    d.write("csrc/sdk/LICENSE.txt", "LICENSE AGREEMENT FOR THE VENDOR SDK\n");
    d.write("csrc/sdk/examples/demo.py", "import torch\ny = torch.zeros(2).cuda()\n");  // tooling, vendored
    d.write("csrc/sdk/unused.py", "import torch\nz = torch.zeros(2).cuda()\n");         // unreached, vendored
    d.write("examples/ours/LICENSE", "  MIT License\n\n  Copyright (c) Lab.\n\n  Permission is hereby granted, free of charge...\n");
    d.write("examples/ours/run.py", "import torch\nw = torch.zeros(2).cuda()\n");       // the project's own licence, re-indented
    d.write("third_party/lib/helpers.py", "import torch\nv = torch.zeros(2).cuda()\n");   // by its folder's name
    d.write("extern/ldm/modules.py", "import torch\nu = torch.zeros(2).cuda()\n");       // threestudio's extern/
    ScanOptions o;
    o.cache_dir = d.path() / ".mpsport_cache";
    const ScanResult r = scan_dir(d, o);
    auto at = [&](const ScanResult& res, const char* path) {
        const Finding* f = find(res, "cuda-method-call", path);
        EXPECT_NE(f, nullptr) << path;
        return f ? *f : Finding{};
    };
    const Finding demo = at(r, "csrc/sdk/examples/demo.py");
    EXPECT_EQ(demo.severity, Severity::info);
    EXPECT_NE(demo.note.find("vendored in csrc/sdk/"), std::string::npos) << demo.note;
    EXPECT_EQ(at(r, "csrc/sdk/unused.py").severity, Severity::info);
    EXPECT_EQ(at(r, "third_party/lib/helpers.py").severity, Severity::info);
    EXPECT_EQ(at(r, "extern/ldm/modules.py").severity, Severity::info);
    EXPECT_EQ(at(r, "examples/ours/run.py").severity, Severity::minor) << "the project's own licence: its own example";
    EXPECT_EQ(at(r, "sdk/wrapper.py").reach, Reach::core);
    EXPECT_EQ(at(r, "sdk/wrapper.py").severity, Severity::major) << "a licensed package the run imports is not set aside";

    // check of the vendored example alone: the same weight
    ScanOptions partial = o;
    partial.partial = true;
    const ScanResult checked = test::bundled_scanner().scan(d.path(), {d.path() / "csrc/sdk/examples/demo.py"}, partial);
    EXPECT_EQ(at(checked, "csrc/sdk/examples/demo.py").severity, Severity::info);

    // the memo sees a licence change: the SDK now under the project's licence is the project's code
    EXPECT_EQ(at(scan_dir(d, o), "csrc/sdk/examples/demo.py").severity, Severity::info);
    const ScanResult memo = scan_dir(d, o);
    EXPECT_TRUE(std::any_of(memo.timings.begin(), memo.timings.end(), [](const auto& t) { return t.first == "memo"; })) << "from the memo";
    EXPECT_EQ(at(memo, "csrc/sdk/examples/demo.py").severity, Severity::info);
    d.write("csrc/sdk/LICENSE.txt", mit);
    const ScanResult relicensed = scan_dir(d, o);
    EXPECT_EQ(at(relicensed, "csrc/sdk/examples/demo.py").severity, Severity::minor);

    // two repositories side by side, no licence above them: neither is the other's vendored copy
    test::TempDir tree;
    tree.write("repo_a/LICENSE", mit);
    tree.write("repo_a/examples/demo.py", "import torch\ny = torch.zeros(2).cuda()\n");
    tree.write("repo_b/LICENSE", "Apache License\nVersion 2.0\n");
    tree.write("repo_b/examples/demo.py", "import torch\ny = torch.zeros(2).cuda()\n");
    const ScanResult side = scan_dir(tree);
    EXPECT_EQ(at(side, "repo_a/examples/demo.py").severity, Severity::minor);
    EXPECT_EQ(at(side, "repo_b/examples/demo.py").severity, Severity::minor);
}

// Shell and Slurm scripts, read with tree-sitter-bash: a CUDA setting in a branch a Mac never takes
// (the else of a Darwin test, a Linux arm of `case $(uname)`, an arm beside `cpu)` of
// `case $CU_VERSION`, behind `command -v nvidia-smi &&` or `[ -n "$CUDA_HOME" ]`, the probe itself,
// under `[ "$PLATFORM" = "cuda" ]`) is info with the test named; the unconditional one keeps its weight, and so does the branch a
// Mac takes.
TEST(ProgramModel, ShellBranchesAMacNeverTakesAreGuarded) {
    test::TempDir d;
    d.write("scripts/build.sh",
            "#!/bin/bash\n"                                          // 1
            "if [ \"$(uname)\" = \"Darwin\" ]; then\n"                // 2
            "  export TORCH_CUDA_ARCH_LIST=\"8.0\"\n"                   // 3: the Mac's branch (odd, but taken)
            "else\n"                                                  // 4
            "  export CUDA_HOME=/usr/local/cuda\n"                     // 5: platform
            "fi\n"                                                    // 6
            "case $CU_VERSION in\n"                                   // 7
            "  cu118)\n"                                              // 8
            "    export CUDA_HOME=/usr/local/cuda-11.8\n"              // 9: device-check
            "    ;;\n"                                                // 10
            "  cpu)\n"                                                // 11
            "    echo cpu\n"                                          // 12
            "    ;;\n"                                                // 13
            "esac\n"                                                  // 14
            "case \"$(uname -s)\" in\n"                                // 15
            "  Linux*) export CUDA_PATH=/usr/local/cuda ;;\n"          // 16: platform
            "esac\n"                                                  // 17
            "command -v nvidia-smi >/dev/null && nvidia-smi\n"        // 18: the probe, then its branch
            "if [ -n \"$CUDA_HOME\" ]; then\n"                          // 19
            "  nvcc --version\n"                                      // 20: device-check
            "fi\n"                                                    // 21
            "nvcc --version\n"                                        // 22: unconditional
            "export CUDA_HOME=/usr/local/cuda && pip install -e .\n"   // 23: an assignment is no test
            "if [ \"$PLATFORM\" = \"cuda\" ]; then\n"                  // 24: TRELLIS's setup.sh
            "  export CUDA_HOME=/usr/local/cuda-12.1\n"               // 25: device-check
            "fi\n"                                                    // 26
            "if [ \"$PLATFORM\" != \"cuda\" ]; then\n"                 // 27
            "  export CUDA_HOME=/opt/none\n"                          // 28: the branch a Mac takes
            "fi\n");                                                  // 29
    const ScanResult r = scan_dir(d);
    std::map<int, const Finding*> at;
    for (const auto& f : r.findings)
        if (f.location.path == "scripts/build.sh") at[f.location.line] = &f;
    const auto guard_of = [&](int line) { return at.count(line) ? at[line]->guard : GuardKind::none; };
    ASSERT_EQ(at.size(), 10u);
    EXPECT_EQ(guard_of(3), GuardKind::none) << "the branch a Mac takes";
    EXPECT_EQ(guard_of(5), GuardKind::platform);
    EXPECT_EQ(at[5]->guard_note, "[ \"$(uname)\" = \"Darwin\" ]");
    EXPECT_EQ(at[5]->severity, Severity::info);
    EXPECT_EQ(guard_of(9), GuardKind::device_check);
    EXPECT_EQ(guard_of(16), GuardKind::platform);
    EXPECT_EQ(guard_of(18), GuardKind::device_check);
    EXPECT_EQ(guard_of(20), GuardKind::device_check);
    EXPECT_EQ(guard_of(22), GuardKind::none);
    EXPECT_EQ(at[22]->severity, Severity::minor);
    EXPECT_EQ(guard_of(23), GuardKind::none);
    EXPECT_EQ(guard_of(25), GuardKind::device_check);
    EXPECT_EQ(guard_of(28), GuardKind::none);
}

// A notebook made for a hosted GPU service (Colab's metadata key, an "Open in Colab" badge) is a
// demo: a tooling entry, wherever it lies; a plain notebook beside it is a training entry. The
// reason is in the report's entry points, and it survives the cache.
TEST(ProgramModel, NotebooksMadeForColabAreDemos) {
    const auto notebook = [](const std::string& metadata, const std::string& markdown) {
        return "{\"metadata\": {" + metadata + "}, \"nbformat\": 4, \"nbformat_minor\": 5, \"cells\": ["
               "{\"cell_type\": \"markdown\", \"metadata\": {}, \"source\": [\"" + markdown + "\"]},"
               "{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": null, \"outputs\": [], "
               "\"source\": [\"!nvidia-smi\\n\", \"import torch\\n\", \"model = torch.nn.Linear(2, 2).cuda()\\n\"]}]}";
    };
    test::TempDir d;
    d.write("scripts/colab_demo.ipynb", notebook("\"colab\": {\"provenance\": []}, \"kernelspec\": {\"name\": \"python3\"}", "# Demo"));
    d.write("scripts/badge_demo.ipynb", notebook("", "<a href=\\\"https://colab.research.google.com/github/lab/repo\\\">Open In Colab</a>"));
    d.write("scripts/train.ipynb", notebook("\"kernelspec\": {\"name\": \"python3\"}", "# Train"));
    ScanOptions o;
    o.cache_dir = d.path() / ".mpsport_cache";
    for (int run = 0; run < 2; ++run) {  // cold, then from the cache
        const ScanResult r = scan_dir(d, o);
        const Finding* colab = find(r, "cuda-method-call", "scripts/colab_demo.ipynb");
        const Finding* badge = find(r, "cuda-method-call", "scripts/badge_demo.ipynb");
        const Finding* train = find(r, "cuda-method-call", "scripts/train.ipynb");
        ASSERT_TRUE(colab && badge && train) << run;
        EXPECT_EQ(colab->reach, Reach::tooling) << run;
        EXPECT_EQ(badge->reach, Reach::tooling) << run;
        EXPECT_EQ(train->reach, Reach::core) << run;
        EXPECT_EQ(train->severity, Severity::major) << run;
        EXPECT_EQ(colab->severity, Severity::minor) << run;
        bool said = false;
        for (const auto& e : r.program.entry_points)
            said = said || (e.path == "scripts/colab_demo.ipynb" && e.tooling && e.why.find("its metadata has 'colab'") != std::string::npos);
        EXPECT_TRUE(said) << run;
    }
}

// An nbdev notebook (WhisperSpeech's nbs/*.ipynb) holds the source of the package's modules in its
// `#| export` cells, generated into the package and committed beside it: those cells read as comments
// (their code is scanned in the module), and the notebook's other cells are development runs, a tooling
// entry, wherever it lies. A plain notebook keeps its weight.
TEST(ProgramModel, NbdevNotebooksAreDevelopmentRuns) {
    const auto notebook = [](const std::string& first_cell) {
        return "{\"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5, \"cells\": ["
               "{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": null, \"outputs\": [], \"source\": [" + first_cell + "]},"
               "{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": null, \"outputs\": [], "
               "\"source\": [\"import torch\\n\", \"model = torch.nn.Linear(2, 2).cuda()\\n\"]}]}";
    };
    test::TempDir d;
    d.write("dev/s2a.ipynb", notebook("\"#| export\\n\", \"import torch\\n\", \"def to_gpu(x):\\n\", \"    return x.cuda()\\n\""));
    d.write("plain.ipynb", notebook("\"import torch\\n\", \"def to_gpu(x):\\n\", \"    return x.cuda()\\n\""));
    const ScanResult r = scan_dir(d);
    std::vector<const Finding*> dev, plain;
    for (const auto& f : r.findings)
        if (f.rule_id == "cuda-method-call") (f.location.path == "dev/s2a.ipynb" ? dev : plain).push_back(&f);
    ASSERT_EQ(dev.size(), 1u) << "the exported cell's .cuda() is the module's, not the notebook's";
    EXPECT_EQ(dev[0]->reach, Reach::tooling);
    EXPECT_EQ(dev[0]->severity, Severity::minor);
    ASSERT_EQ(plain.size(), 2u);
    EXPECT_EQ(plain[1]->reach, Reach::core);
    bool said = false;
    for (const auto& e : r.program.entry_points)
        said = said || (e.path == "dev/s2a.ipynb" && e.tooling && e.why.find("nbdev notebook (cell 1 is `#| export`)") != std::string::npos);
    EXPECT_TRUE(said);
}

// Qwen2.5-VL's cookbooks/*.ipynb show what the model can do beside the web demo that is its run:
// examples (rules/program.yaml tooling.dirs), at most minor. The same notebook elsewhere is an entry.
TEST(ProgramModel, CookbookNotebooksAreExamples) {
    const std::string notebook =
        "{\"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5, \"cells\": ["
        "{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": null, \"outputs\": [], "
        "\"source\": [\"import torch\\n\", \"model = torch.nn.Linear(2, 2).cuda()\\n\"]}]}";
    test::TempDir d;
    d.write("web_demo.py", "import torch\n\nif __name__ == '__main__':\n    print(torch.nn.Linear(2, 2))\n");
    d.write("cookbooks/ocr.ipynb", notebook);
    d.write("walkthrough.ipynb", notebook);
    const ScanResult r = scan_dir(d);
    const Finding* cookbook = find(r, "cuda-method-call", "cookbooks/ocr.ipynb");
    ASSERT_NE(cookbook, nullptr);
    EXPECT_EQ(cookbook->reach, Reach::tooling) << cookbook->note;
    EXPECT_EQ(cookbook->severity, Severity::minor);
    const Finding* top = find(r, "cuda-method-call", "walkthrough.ipynb");
    ASSERT_NE(top, nullptr);
    EXPECT_EQ(top->reach, Reach::core) << top->note;
    // a notebook named for a tutorial, wherever it lies (mmagic's configs/disco_diffusion/tutorials.ipynb)
    d.write("configs/disco/tutorials.ipynb", notebook);
    const ScanResult tutorial = scan_dir(d);
    const Finding* lesson = find(tutorial, "cuda-method-call", "configs/disco/tutorials.ipynb");
    ASSERT_NE(lesson, nullptr);
    EXPECT_EQ(lesson->reach, Reach::tooling) << lesson->note;
    // a notebook named for a test is a scratch notebook, as a test module is a test (ngp_pl's test.ipynb)
    d.write("test.ipynb", notebook);
    const ScanResult scratch = scan_dir(d);
    const Finding* test = find(scratch, "cuda-method-call", "test.ipynb");
    ASSERT_NE(test, nullptr);
    EXPECT_EQ(test->reach, Reach::tooling) << test->note;
    EXPECT_EQ(test->severity, Severity::minor);
}

// A folder of checkouts (no licence at its base, licensed repositories right below it) is scanned
// as the repositories one by one would be: an import in one never resolves to a module of another,
// and a package one declares is not the other's own. (Scanning 23 public repositories side by side,
// RWKV's `from transformers import ...` resolved to LoRA's copy of transformers, whose files became core.)
TEST(ProgramModel, CheckoutsSideBySideDoNotImportEachOther) {
    test::TempDir d;
    d.write("lab_a/LICENSE", "MIT License\n");
    d.write("lab_a/setup.py", "from setuptools import setup\nsetup(name=\"flash_attn\", packages=[\"flash_attn\"])\n");
    d.write("lab_a/flash_attn/__init__.py", "import torch\n");
    d.write("lab_a/common/cuda_ops.py", "import torch\nkernel = torch.zeros(2).cuda()\n");  // nothing in lab_a imports it
    d.write("lab_b/LICENSE", "Apache License\n");
    d.write("lab_b/train.py", "import torch\nimport flash_attn\nfrom common import cuda_ops\n\nif __name__ == \"__main__\":\n    pass\n");
    const ScanResult tree = scan_dir(d);
    const Finding* in_a = find(tree, "cuda-method-call", "lab_a/common/cuda_ops.py");
    ASSERT_NE(in_a, nullptr);
    EXPECT_EQ(in_a->reach, Reach::unreached) << "lab_b's `from common import` is not lab_a's module";
    const Finding* dep = find(tree, "cuda-only-package-import", "lab_b/train.py");
    ASSERT_NE(dep, nullptr) << "flash_attn is lab_a's own package, not lab_b's";
    EXPECT_EQ(dep->subject, "flash_attn");

    // the same as lab_b scanned alone
    test::TempDir alone;
    alone.write("LICENSE", "Apache License\n");
    alone.write("train.py", "import torch\nimport flash_attn\nfrom common import cuda_ops\n\nif __name__ == \"__main__\":\n    pass\n");
    const ScanResult alone_scan = test::bundled_scanner().scan(alone.path(), {alone.path()}, {});
    const Finding* dep_alone = find(alone_scan, "cuda-only-package-import", "train.py");
    ASSERT_NE(dep_alone, nullptr);
    EXPECT_EQ(dep->severity, dep_alone->severity);
    EXPECT_EQ(dep->reach, dep_alone->reach);
}

// RAFT's shape: train.py puts core/ on sys.path (`sys.path.append('core')`) and imports `from raft
// import RAFT`; core/corr.py imports the CUDA extension alt_corr with `except ImportError: pass`, and
// calls its op in a class the run may use. The folder is a root, so core/ is reached; the op of a
// module imported only with a fallback is no more needed than the module: optional, dual at most.
TEST(ProgramModel, AFolderPutOnSysPathIsARootAndAnOpOfAnOptionalModuleIsOptional) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("alt_corr/setup.py", "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                                 "setup(name='alt_corr', ext_modules=[CUDAExtension('alt_corr', ['corr.cpp', 'corr_kernel.cu'])])\n");
    d.write("alt_corr/corr_kernel.cu", "__global__ void k(float* x) { x[0] = 1.f; }\n"
                                       "at::Tensor corr_cuda_forward(at::Tensor x) { k<<<1, 1>>>(nullptr); return x; }\n");
    d.write("alt_corr/corr.cpp", "at::Tensor corr_cuda_forward(at::Tensor x);\nat::Tensor corr_forward(at::Tensor x) { return corr_cuda_forward(x); }\n"
                                 "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"forward\", &corr_forward);\n}\n");
    d.write("core/corr.py", "import torch\ntry:\n    import alt_corr\nexcept ImportError:\n    pass\n\n\n"
                            "class AltCorr:\n    def __call__(self, x):\n        return alt_corr.forward(x)\n");
    d.write("core/raft.py", "import torch\nfrom corr import AltCorr\n\n\nclass RAFT(torch.nn.Module):\n"
                            "    def forward(self, x):\n        return AltCorr()(x.cuda())\n");
    const std::string main = "\nimport torch\nfrom raft import RAFT\n\nif __name__ == '__main__':\n    RAFT()(torch.ones(2))\n";
    auto check = [&](const std::string& train) {
        d.write("train.py", train + main);
        const ScanResult r = scan_dir(d);
        const Finding* cuda = find(r, "cuda-method-call", "core/raft.py");
        const Finding* op = nullptr;
        for (const auto& f : r.findings)
            if (f.rule_id == "cuda-only-extension-op" && f.native_op == "forward") op = &f;
        return std::make_pair(cuda ? cuda->reach : Reach::unreached, op ? std::optional<Finding>(*op) : std::nullopt);
    };
    for (const std::string train : {"import sys\nsys.path.append('core')\n",
                                    "import os\nimport sys\nsys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'core'))\n",
                                    "import sys\nfrom pathlib import Path\nsys.path.insert(0, str(Path(__file__).resolve().parent / 'core'))\n"}) {
        const auto [reach, op] = check(train);
        EXPECT_EQ(reach, Reach::core) << train;
        ASSERT_TRUE(op.has_value()) << train;
        EXPECT_EQ(op->reach, Reach::optional) << op->note;
        EXPECT_EQ(op->impact, VerdictImpact::dual) << op->note;
    }
    // without the sys.path line, nothing imports core/raft.py; a folder outside the repository adds nothing
    EXPECT_EQ(check("import sys\n").first, Reach::unreached);
    EXPECT_EQ(check("import sys\nsys.path.append('../../core')\n").first, Reach::unreached);
}

// A collection of sub-projects (OpenGVLab/InternVideo): each runs from its own folder and finds its
// own `models` there, though that folder is a package of no root and another sub-project's `models`
// comes first among the roots. The import, and a document's import, take the nearest folder in which
// the whole dotted name resolves.
TEST(ProgramModel, ASubProjectsImportsFindItsOwnModulesBeforeAnotherSubProjects) {
    test::TempDir d;
    d.write("Next/models/__init__.py", "import torch\nimport flash_attn\n");
    d.write("V1/ViCLIP/models/__init__.py", "");
    d.write("V1/ViCLIP/models/utils.py", "import torch\n\n\ndef gather(x):\n    return x\n");
    d.write("V1/ViCLIP/models/criterions.py", "from models.utils import gather\n\n\ndef get_sim(a):\n    return gather(a)\n");
    d.write("V1/ViCLIP/tasks/pretrain.py", "import torch\nfrom models.criterions import get_sim\n\nif __name__ == '__main__':\n    get_sim(torch.ones(2))\n");
    d.write("V2/multi/__init__.py", "");
    d.write("V2/multi/models/__init__.py", "");
    d.write("V2/multi/models/criterions.py", "import torch\n\n\ndef get_sim(a):\n    return a\n");
    d.write("V2/multi/GUIDE.md", "# Demo\n\n```python\nfrom models.criterions import get_sim\n```\n");
    const ScanResult r = scan_dir(d);
    const Finding* flash = find(r, "cuda-only-package-import", "Next/models/__init__.py");
    ASSERT_NE(flash, nullptr);
    EXPECT_NE(flash->reach, Reach::core) << flash->note;
    EXPECT_EQ(flash->chain, std::vector<std::string>{}) << flash->note;
    const auto& entries = r.program.entry_points;
    const auto documented = std::find_if(entries.begin(), entries.end(), [](const EntryPoint& e) { return e.why.find("V2/multi/GUIDE.md") != std::string::npos; });
    ASSERT_NE(documented, entries.end());
    EXPECT_EQ(documented->path, "V2/multi/models/criterions.py") << documented->why;
}

// Op-level reach: a CUDA-only op of an extension is as needed as the Python calls of it. The one the
// training step calls is core (stay-on-CUDA); the one only a test calls is tooling; the one nobody
// calls is optional while other ops of the module are called; a torch.ops op takes the reach of its
// calls through the dispatcher.
// Mask2Former's (and Deformable-DETR's) shape: the extension's ops are called in the forward and
// backward of a torch.autograd.Function, re-exported by its package's __init__; the layer that
// runs it calls `MSDeformAttnFunction.apply(...)` under a try/except with a pure-PyTorch twin. The
// import of the extension is required (its handler raises), but every run of its ops has another
// path beside it: dual-track, not stay-on-CUDA. Without the try, the op is core, and dual-track still
// while its caller module defines the twin.
// openfold's shape: the extension is bound by `name = importlib.import_module("ext")`, its op is
// called in an autograd Function that the module exposes as `attention_core = Fn.apply`, and the
// callers of that name choose it by an option off by default, with a PyTorch arm beside it. The call
// is linked through the bound name, and the alias takes its callers' guard: optional, not a blocker.
TEST(ProgramModel, AnExtensionBoundByImportModuleAndCalledThroughAnApplyAliasTakesItsCallersGuard) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("setup.py", "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                        "setup(name='fold', ext_modules=[CUDAExtension('attn_core_inplace_cuda', "
                        "['fold/csrc/softmax_cuda.cpp', 'fold/csrc/softmax_cuda_kernel.cu'])])\n");
    d.write("fold/csrc/softmax_cuda_kernel.cu", "__global__ void k(float* x) { x[0] = 1.f; }\n"
                                               "void softmax_cuda(at::Tensor x) { k<<<1, 1>>>(nullptr); }\n");
    d.write("fold/csrc/softmax_cuda.cpp", "void softmax_cuda(at::Tensor x);\nvoid forward_(at::Tensor x) { softmax_cuda(x); }\n"
                                         "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"forward_\", &forward_);\n}\n");
    d.write("fold/__init__.py", "");
    d.write("fold/kernel/__init__.py", "");
    d.write("fold/kernel/attention_core.py",
            "import importlib\nimport torch\n\nattn_core_inplace_cuda = importlib.import_module(\"attn_core_inplace_cuda\")\n\n\n"
            "class AttentionCoreFunction(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
            "        attn_core_inplace_cuda.forward_(x)\n        return x\n\n\nattention_core = AttentionCoreFunction.apply\n");
    d.write("fold/primitives.py", "from fold.kernel.attention_core import attention_core\n\n\n"
                                  "def attend(x, use_memory_efficient_kernel=False):\n    if use_memory_efficient_kernel:\n"
                                  "        o = attention_core(x)\n    else:\n        o = x.softmax(-1)\n    return o\n");
    d.write("train.py", "import torch\nfrom fold.primitives import attend\n\nif __name__ == \"__main__\":\n    attend(torch.ones(3))\n");
    const ScanResult r = scan_dir(d);
    const Finding* build = find(r, "cuda-extension-build", "setup.py");
    ASSERT_NE(build, nullptr);
    EXPECT_TRUE(std::any_of(build->related.begin(), build->related.end(), [](const RelatedLocation& rel) {
        return rel.label == "calls attn_core_inplace_cuda.forward_" && rel.location.path == "fold/kernel/attention_core.py" && rel.location.line == 10;
    })) << build->note;
    EXPECT_LE(build->impact, VerdictImpact::dual) << build->note;
    const Finding* op = nullptr;
    for (const auto& f : r.findings)
        if (f.rule_id == "cuda-only-extension-op" && f.native_op == "forward_") op = &f;
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->reach, Reach::optional) << op->note;
    EXPECT_LE(op->impact, VerdictImpact::dual) << op->note;
    EXPECT_NE(op->note.find("fold/primitives.py:6"), std::string::npos) << op->note;  // the guarded call of the alias
}

TEST(ProgramModel, AutogradFunctionCallsTakeTheGuardOfTheirApplySites) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("ops/setup.py", "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                            "setup(name='MSDA', ext_modules=[CUDAExtension('MSDA', ['src/vision.cpp', 'src/attn_cuda.cu'])])\n");
    d.write("ops/src/attn_cuda.cu", "__global__ void k(float* x) { x[0] = 1.f; }\n"
                                    "at::Tensor attn_cuda_forward(at::Tensor x) { k<<<1, 1>>>(nullptr); return x; }\n");
    d.write("ops/src/vision.cpp",
            "at::Tensor attn_cuda_forward(at::Tensor x);\n"
            "at::Tensor attn_forward(at::Tensor x) {\n  if (x.is_cuda()) return attn_cuda_forward(x);\n  AT_ERROR(\"Not implemented on the CPU\");\n}\n"
            "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"attn_forward\", &attn_forward);\n}\n");
    d.write("ops/__init__.py", "");
    d.write("ops/functions/__init__.py", "from .attn_func import AttnFunction\n");
    d.write("ops/functions/attn_func.py",
            "import torch\nfrom torch.autograd import Function\n\ntry:\n    import MSDA\nexcept ModuleNotFoundError:\n"
            "    msg = 'compile the op'\n    raise ModuleNotFoundError(msg)\n\n\n"
            "class AttnFunction(Function):\n    @staticmethod\n    def forward(ctx, x):\n        return MSDA.attn_forward(x)\n\n\n"
            "def attn_core_pytorch(x):\n    return x * 2\n");
    const std::string layer_guarded =
        "import torch\nfrom ..functions import AttnFunction\nfrom ..functions.attn_func import attn_core_pytorch\n\n\n"
        "class Attn(torch.nn.Module):\n    def forward(self, x):\n        try:\n            out = AttnFunction.apply(x)\n"
        "        except:\n            # CPU\n            out = attn_core_pytorch(x)\n        return out\n";
    d.write("ops/modules/__init__.py", "from .attn import Attn\n");
    d.write("ops/modules/attn.py", layer_guarded);
    d.write("train.py", "import torch\nfrom ops.modules import Attn\n\nif __name__ == \"__main__\":\n    Attn()(torch.ones(3))\n");
    auto op_finding = [](const ScanResult& r) -> const Finding* {
        for (const auto& f : r.findings)
            if (f.rule_id == "cuda-only-extension-op" && f.native_op == "attn_forward") return &f;
        return nullptr;
    };
    const ScanResult r = scan_dir(d);
    const Finding* op = op_finding(r);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->reach, Reach::optional) << op->note;
    EXPECT_LE(op->impact, VerdictImpact::dual) << op->note;
    EXPECT_NE(op->note.find("ops/modules/attn.py:9"), std::string::npos) << op->note;  // the guarded apply

    d.write("ops/modules/attn.py", "import torch\nfrom ..functions import AttnFunction\n\n\n"
                                   "class Attn(torch.nn.Module):\n    def forward(self, x):\n        return AttnFunction.apply(x)\n");
    const ScanResult unguarded = scan_dir(d);
    op = op_finding(unguarded);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->reach, Reach::core) << op->note;
    // Deformable-DETR's shape: no try, but the module that calls the kernel defines its PyTorch twin,
    // attn_core_pytorch (rules/program.yaml kernel_twin): calling it is the port, dual-track.
    EXPECT_EQ(op->impact, VerdictImpact::dual) << op->note;
    EXPECT_NE(op->note.find("defines attn_core_pytorch (line 17)"), std::string::npos) << op->note;
    // and so is the extension's build, whose every called op has that twin (Deformable-DETR's and
    // DINO's ops/setup.py were blockers that made stay-on-CUDA of dual-track repositories)
    const Finding* build = find(unguarded, "cuda-extension-build", "ops/setup.py");
    ASSERT_NE(build, nullptr);
    EXPECT_EQ(build->reach, Reach::core) << build->note;
    EXPECT_EQ(build->impact, VerdictImpact::dual) << build->note;
    EXPECT_NE(build->note.find("defines attn_core_pytorch (line 17)"), std::string::npos) << build->note;
    // A test reference (`_ref`), or a PyTorch function of another op, is no twin: stay-on-CUDA.
    for (const char* other : {"attn_ref", "norm_core_pytorch"}) {
        d.write("ops/functions/attn_func.py",
                "import torch\nfrom torch.autograd import Function\n\ntry:\n    import MSDA\nexcept ModuleNotFoundError:\n"
                "    msg = 'compile the op'\n    raise ModuleNotFoundError(msg)\n\n\n"
                "class AttnFunction(Function):\n    @staticmethod\n    def forward(ctx, x):\n        return MSDA.attn_forward(x)\n\n\n"
                "def " + std::string(other) + "(x):\n    return x * 2\n");
        const ScanResult no_twin = scan_dir(d);
        op = op_finding(no_twin);
        ASSERT_NE(op, nullptr);
        EXPECT_EQ(op->impact, VerdictImpact::stay) << other << ": " << op->note;
        build = find(no_twin, "cuda-extension-build", "ops/setup.py");
        ASSERT_NE(build, nullptr);
        EXPECT_EQ(build->impact, VerdictImpact::stay) << other << ": " << build->note;
    }
    // rosinality's StyleGAN2 ops name theirs `upfirdn2d_native`, unused beside the kernel's call
    // (yuval-alaluf/SAM's models/stylegan2/op/upfirdn2d.py; judged major, not a blocker, in a sample
    // of the thirty-sixth and thirty-seventh holdouts' reports)
    d.write("ops/functions/attn_func.py",
            "import torch\nfrom torch.autograd import Function\n\ntry:\n    import MSDA\nexcept ModuleNotFoundError:\n"
            "    msg = 'compile the op'\n    raise ModuleNotFoundError(msg)\n\n\n"
            "class AttnFunction(Function):\n    @staticmethod\n    def forward(ctx, x):\n        return MSDA.attn_forward(x)\n\n\n"
            "def attn_native(x):\n    return x * 2\n");
    const ScanResult native_twin = scan_dir(d);
    op = op_finding(native_twin);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->impact, VerdictImpact::dual) << op->note;
    EXPECT_EQ(op->severity, Severity::major) << op->note;  // routing the call to the twin is an edit
    EXPECT_NE(op->note.find("defines attn_native (line 17)"), std::string::npos) << op->note;
}

// hszhao/semseg's lib/psa/src/__init__.py: the JIT build names its sources through folder variables,
// `gpu_path = os.path.join(cwd, 'gpu')` and `os.path.join(gpu_path, 'operator.cpp')`, with `cwd` the
// file's own folder. The sources are gpu/operator.cpp and gpu/psamask_cuda.cu, not the bare names
// (which no file has): the ops link to the build, which sits under `if torch.cuda.is_available():`,
// so a Mac never builds them (info), instead of an unlinked CUDA-only op (dual-track).
TEST(ProgramModel, SourcesJoinedFromFolderVariablesLinkTheirOps) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("lib/__init__.py", "");
    d.write("lib/psa/__init__.py", "from . import src\n");
    d.write("lib/psa/src/__init__.py",
            "import os\nimport torch\nfrom torch.utils.cpp_extension import load\n\n"
            "cwd = os.path.dirname(os.path.realpath(__file__))\ngpu_path = os.path.join(cwd, 'gpu')\n\n"
            "if torch.cuda.is_available():\n"
            "    gpu = load('psamask_gpu', [os.path.join(gpu_path, 'operator.cpp'), os.path.join(gpu_path, 'psamask_cuda.cu')])\n");
    d.write("lib/psa/src/gpu/psamask_cuda.cu", "__global__ void k(float* x) { x[0] = 1.f; }\n"
                                              "void psamask_forward_cuda(at::Tensor x) { k<<<1, 1>>>(nullptr); }\n");
    d.write("lib/psa/src/gpu/operator.cpp", "void psamask_forward_cuda(at::Tensor x);\n"
                                           "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"psamask_forward\", &psamask_forward_cuda);\n}\n");
    d.write("train.py", "import torch\nimport lib.psa\n\nif __name__ == '__main__':\n    print(torch.ones(2))\n");
    const ScanResult r = scan_dir(d);
    const Finding* op = find(r, "cuda-only-extension-op", "lib/psa/src/gpu/operator.cpp");
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->impact, VerdictImpact::none) << op->note;
    EXPECT_EQ(op->severity, Severity::info) << op->note;
    EXPECT_NE(op->note.find("torch.cuda.is_available() (lib/psa/src/__init__.py:9)"), std::string::npos) << op->note;
}

// NVIDIA/BigVGAN's alias_free_activation/cuda/load.py (Megatron's fused-kernel loader): the name and
// the sources reach cpp_extension.load through the parameters of a helper nested in load(), and the
// sources are pathlib paths (`srcpath / "x.cpp"` with `srcpath = pathlib.Path(__file__).parent`). The
// helper's call names the module; its sources link the binding's op to the build, whose reach it takes
// (optional: the model imports the kernel only under `if use_cuda_kernel:`), instead of an op no build
// links (unreached, at the rule's major).
TEST(ProgramModel, ALoaderHelperNamesItsExtensionThroughItsParameters) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("kernels/__init__.py", "");
    d.write("kernels/load.py", "import pathlib\nfrom torch.utils import cpp_extension\n\n\ndef load():\n"
                               "    srcpath = pathlib.Path(__file__).parent.absolute()\n\n"
                               "    def _load_helper(name, sources, extra_cuda_flags):\n"
                               "        return cpp_extension.load(name=name, sources=sources, extra_cuda_cflags=['-O3'] + extra_cuda_flags)\n\n"
                               "    sources = [srcpath / 'act.cpp', srcpath / 'act_cuda.cu']\n"
                               "    return _load_helper('act_cuda', sources, [])\n");
    d.write("kernels/act.cpp", "#include <torch/extension.h>\nat::Tensor fwd_cuda(at::Tensor x);\n"
                               "at::Tensor fwd(at::Tensor x) { return fwd_cuda(x); }\n"
                               "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"forward\", &fwd);\n}\n");
    d.write("kernels/act_cuda.cu", "__global__ void k(float* x) { x[0] = 1.f; }\n"
                                   "at::Tensor fwd_cuda(at::Tensor x) { k<<<1, 1>>>(nullptr); return x; }\n");
    d.write("kernels/activation.py", "from kernels import load\n\nact_cuda = load.load()\n");
    d.write("model.py", "import torch\n\n\nclass Net(torch.nn.Module):\n    def __init__(self, use_cuda_kernel=False):\n"
                        "        super().__init__()\n        if use_cuda_kernel:\n            from kernels.activation import act_cuda\n");
    d.write("train.py", "import torch\nfrom model import Net\n\nif __name__ == '__main__':\n    Net()\n");
    const ScanResult r = scan_dir(d);
    const Finding* op = find(r, "cuda-only-extension-op", "kernels/act.cpp");
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->reach, Reach::optional) << op->note;
    EXPECT_EQ(op->subject, "act_cuda") << op->note;
    EXPECT_LT(op->severity, Severity::major) << op->note;
}

TEST(ProgramModel, ExtensionOpsTakeTheReachOfTheirPythonCalls) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("setup.py", "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                        "setup(name='geo', packages=['geo'], ext_modules=[CUDAExtension('geo._C', ['csrc/bind.cpp', 'csrc/ops.cu'])])\n");
    d.write("csrc/ops.cu",
            "__global__ void k(float* x) { x[0] = 1.f; }\n"
            "at::Tensor knn_cuda(at::Tensor x) { k<<<1, 1>>>(nullptr); return x; }\n"
            "at::Tensor ball_cuda(at::Tensor x) { k<<<1, 1>>>(nullptr); return x; }\n"
            "at::Tensor fps_cuda(at::Tensor x) { k<<<1, 1>>>(nullptr); return x; }\n"
            "at::Tensor dist_cuda(at::Tensor x) { k<<<1, 1>>>(nullptr); return x; }\n"
            "TORCH_LIBRARY(geo, m) { m.def(\"dist(Tensor x) -> Tensor\"); }\n"
            "TORCH_LIBRARY_IMPL(geo, CUDA, m) { m.impl(\"dist\", &dist_cuda); }\n");
    d.write("csrc/bind.cpp",
            "at::Tensor knn_cuda(at::Tensor x);\nat::Tensor ball_cuda(at::Tensor x);\nat::Tensor fps_cuda(at::Tensor x);\n"
            "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
            "  m.def(\"knn\", &knn_cuda);\n  m.def(\"ball\", &ball_cuda);\n  m.def(\"fps\", &fps_cuda);\n}\n");
    d.write("geo/__init__.py", "");
    d.write("geo/ops.py", "import torch\nfrom . import _C\n\n\ndef knn(x):\n    return _C.knn(x)\n\n\n"
                          "def ball(x):\n    return _C.ball(x)\n\n\ndef dist(x):\n    return torch.ops.geo.dist(x)\n");
    d.write("train.py", "import torch\nfrom geo.ops import knn\n\nif __name__ == \"__main__\":\n    knn(torch.ones(3))\n");
    d.write("tests/test_ball.py", "import torch\nfrom geo import _C\n\n\ndef test_ball():\n    _C.ball(torch.ones(3))\n"
                                  "    torch.ops.geo.dist(torch.ones(3))\n");
    const ScanResult r = scan_dir(d);
    auto op_finding = [&](const std::string& op) -> const Finding* {
        for (const auto& f : r.findings)
            if (f.rule_id == "cuda-only-extension-op" && f.native_op == op) return &f;
        return nullptr;
    };
    for (const char* op : {"knn", "ball", "fps", "geo::dist"}) ASSERT_NE(op_finding(op), nullptr) << op;
    const Finding* knn = op_finding("knn");
    EXPECT_EQ(knn->reach, Reach::core) << knn->note;
    EXPECT_EQ(knn->impact, VerdictImpact::stay);
    // the chain ends at the call of knn() in train.py, which the guard around it would weigh
    EXPECT_EQ(knn->chain, (std::vector<std::string>{"train.py:5", "geo/ops.py:6"}));
    ASSERT_FALSE(knn->related.empty());
    EXPECT_EQ(knn->related[0].location.path, "geo/ops.py");
    EXPECT_EQ(knn->related[0].location.line, 6);
    // geo/ops.py is core, but the run imports only its knn(): the call of ball sits in ball(), which
    // no file imports or calls, so ball takes the reach of its other call, the test's: tooling.
    EXPECT_EQ(op_finding("ball")->reach, Reach::tooling) << op_finding("ball")->note;
    // fps: no Python file names it, while other ops of geo._C are called: nothing runs it (GLIP's
    // deform_psroi_pooling_forward)
    EXPECT_EQ(op_finding("fps")->guard, GuardKind::never_called) << op_finding("fps")->note;
    EXPECT_EQ(op_finding("fps")->severity, Severity::info) << op_finding("fps")->note;
    EXPECT_EQ(op_finding("fps")->impact, VerdictImpact::none);
    const Finding* dist = op_finding("geo::dist");
    EXPECT_EQ(dist->reach, Reach::core) << dist->note;
    EXPECT_EQ(dist->related.size(), 2u);  // geo/ops.py and the test
    {
        // named, but in no call the model reads (a name looked up at run time): an op the run may use
        d.write("geo/registry.py", "from . import _C\n\nOPS = {'fps': 'fps'}\n\n\ndef run(name, x):\n    return getattr(_C, OPS[name])(x)\n");
        const ScanResult named = scan_dir(d);
        const Finding* fps = nullptr;
        for (const auto& f : named.findings)
            if (f.rule_id == "cuda-only-extension-op" && f.native_op == "fps") fps = &f;
        ASSERT_NE(fps, nullptr);
        EXPECT_EQ(fps->reach, Reach::optional) << fps->note;
        EXPECT_LE(fps->impact, VerdictImpact::dual);
        EXPECT_NE(fps->note.find("no Python call of fps"), std::string::npos) << fps->note;
        std::filesystem::remove(d.path() / "geo/registry.py");
    }

    // The package's __init__ exports ball (`from .ops import ball`): its call is as needed as the
    // package, core; a module imported whole (`from geo import ops`) leaves the call its file's reach.
    d.write("geo/__init__.py", "from .ops import ball\n");
    d.write("setup.cfg", "[metadata]\nname = geo\n");
    for (const auto& f : scan_dir(d).findings)
        if (f.rule_id == "cuda-only-extension-op" && f.native_op == "ball") {
            EXPECT_EQ(f.reach, Reach::core) << f.note;
        }
    d.write("geo/__init__.py", "");
    d.write("train.py", "import torch\nfrom geo import ops\n\nif __name__ == \"__main__\":\n    ops.knn(torch.ones(3))\n");
    for (const auto& f : scan_dir(d).findings)
        if (f.rule_id == "cuda-only-extension-op" && f.native_op == "ball") {
            EXPECT_EQ(f.reach, Reach::core) << f.note;
        }
    d.write("train.py", "import torch\nfrom geo.ops import knn\n\nif __name__ == \"__main__\":\n    knn(torch.ones(3))\n");

    // sam2's shape: the call through the extension sits in a function of a core file that the file
    // itself calls only under try/except with a fallback: the op is optional, as the import is.
    d.write("geo/ops.py", "import torch\n\n\ndef knn(x):\n    from geo import _C\n\n    return _C.knn(x)\n\n\n"
                          "def smooth(x):\n    try:\n        return knn(x)\n    except Exception:\n        return x\n");
    d.write("train.py", "import torch\nfrom geo.ops import smooth\n\nif __name__ == \"__main__\":\n    smooth(torch.ones(3))\n");
    const Finding* guarded = nullptr;
    const ScanResult sam2_like = scan_dir(d);
    for (const auto& f : sam2_like.findings)
        if (f.rule_id == "cuda-only-extension-op" && f.native_op == "knn") guarded = &f;
    ASSERT_NE(guarded, nullptr);
    EXPECT_EQ(guarded->reach, Reach::optional) << guarded->note;
    EXPECT_LE(guarded->impact, VerdictImpact::dual) << guarded->note;
    EXPECT_NE(guarded->note.find("callers of knn()"), std::string::npos) << guarded->note;
    d.write("geo/ops.py", "import torch\nfrom . import _C\n\n\ndef knn(x):\n    return _C.knn(x)\n\n\n"
                          "def ball(x):\n    return _C.ball(x)\n\n\ndef dist(x):\n    return torch.ops.geo.dist(x)\n");
    d.write("train.py", "import torch\nfrom geo.ops import knn\n\nif __name__ == \"__main__\":\n    knn(torch.ones(3))\n");

    // Without the core call, dist is called only by a test: tooling.
    d.write("geo/ops.py", "import torch\nfrom . import _C\n\n\ndef knn(x):\n    return _C.knn(x)\n");
    const ScanResult tests_only = scan_dir(d);
    int seen = 0;
    for (const auto& f : tests_only.findings) {
        if (f.rule_id != "cuda-only-extension-op" || f.native_op != "geo::dist") continue;
        EXPECT_EQ(f.reach, Reach::tooling) << f.note;
        ++seen;
    }
    EXPECT_EQ(seen, 1);
}

// The calls through an extension come from parsing its importers whole; the cache keeps them with the
// importer, so a warm scan links the same calls without parsing, and an edited importer is parsed again.
TEST(ProgramModel, CallsThroughExtensionsAreCachedWithTheirImporter) {
    test::TempDir d;
    test::TempDir cache;
    d.write("setup.py", "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                        "setup(name='geo', packages=['geo'], ext_modules=[CUDAExtension('geo._C', ['csrc/ops.cu'])])\n");
    d.write("csrc/ops.cu", "__global__ void k(float* x) { x[0] = 1.f; }\n");
    d.write("geo/__init__.py", "");
    d.write("geo/ops.py", "import torch\nfrom . import _C\n\n\ndef knn(x):\n    return _C.knn(x)\n");
    d.write("train.py", "import torch\nfrom geo.ops import knn\n\nif __name__ == \"__main__\":\n    knn(torch.ones(3))\n");
    ScanOptions o;
    o.cache_dir = cache.path();
    auto call_lines = [](const ScanResult& r) {
        std::vector<int> lines;
        for (const auto& f : r.findings)
            if (f.rule_id == "cuda-extension-build")
                for (const auto& rel : f.related)
                    if (rel.location.path == "geo/ops.py") lines.push_back(rel.location.line);
        return lines;
    };
    const ScanResult cold = scan_dir(d, o);
    ASSERT_FALSE(call_lines(cold).empty());
    const ScanResult warm = scan_dir(d, o);
    EXPECT_EQ(warm.files_cached, warm.files_scanned);
    EXPECT_EQ(call_lines(warm), call_lines(cold));
    const auto catalogue = RuleCatalogue::load(test::rules_dir());
    const ScanCache saved = ScanCache::load(cache.path(), ScanCache::key_for(catalogue, kDefaultTargetTorch, o));
    ASSERT_NE(saved.find("geo/ops.py"), nullptr);
    EXPECT_EQ(saved.find("geo/ops.py")->outcome.extension_import_lines, (std::set<int>{2}));
    ASSERT_EQ(saved.find("geo/ops.py")->outcome.extension_calls.size(), 1u);
    EXPECT_EQ(saved.find("geo/ops.py")->outcome.extension_calls[0].dotted, "_C.knn");
    d.write("geo/ops.py", "import torch\nfrom . import _C\n\n\ndef knn(x):\n    return _C.knn(x)\n\n\ndef ball(x):\n    return _C.ball(x)\n");
    const ScanResult edited = scan_dir(d, o);
    EXPECT_EQ(call_lines(edited).size(), call_lines(cold).size() + 1);
}

// The caller-guard pass parses the defining files and their importers whole; the cache keeps each file's
// answers with it, so a warm scan with one file edited parses only that file again, and an edit that adds
// an unguarded call is seen.
TEST(ProgramModel, CallerGuardsAreCachedWithEachFile) {
    test::TempDir d;
    test::TempDir cache;
    d.write("pkg/__init__.py", "");
    d.write("pkg/dist.py", "from torch.nn.parallel import DistributedDataParallel as DDP\n\n\n"
                           "def wrap(model):\n    return DDP(model, device_ids=[0])\n");
    d.write("train.py", "import os\nimport torch\nfrom pkg.dist import wrap\n\nif __name__ == '__main__':\n"
                        "    model = torch.nn.Linear(2, 2)\n    if int(os.environ.get('RANK', -1)) != -1:\n        model = wrap(model)\n");
    d.write("tools/export.py", "import torch\n\nif __name__ == '__main__':\n    print(torch.ones(1))\n");
    ScanOptions o;
    o.cache_dir = cache.path();
    auto guard = [&](const ScanResult& r) {
        const Finding* f = find(r, "distributed-data-parallel", "pkg/dist.py");
        return f ? f->guard : GuardKind::grad_unknown;
    };
    EXPECT_EQ(guard(scan_dir(d, o)), GuardKind::distributed_gate);
    const auto catalogue = RuleCatalogue::load(test::rules_dir());
    const ScanCache saved = ScanCache::load(cache.path(), ScanCache::key_for(catalogue, kDefaultTargetTorch, o));
    ASSERT_NE(saved.find("train.py"), nullptr);
    ASSERT_EQ(saved.find("train.py")->outcome.function_uses.size(), 1u);
    const FunctionUses& kept = saved.find("train.py")->outcome.function_uses.begin()->second;
    ASSERT_EQ(kept.calls.size(), 1u);
    EXPECT_EQ(kept.calls[0].line, 8);
    EXPECT_EQ(kept.calls[0].guard, GuardKind::distributed_gate);
    ASSERT_NE(saved.find("pkg/dist.py"), nullptr);
    EXPECT_EQ(saved.find("pkg/dist.py")->outcome.function_uses.size(), 1u);

    d.write("tools/export.py", "import torch\n\nif __name__ == '__main__':\n    print(torch.ones(1))\n");  // same content
    const ScanResult warm = scan_dir(d, o);
    EXPECT_EQ(warm.files_cached, warm.files_scanned);
    EXPECT_EQ(guard(warm), GuardKind::distributed_gate);
    d.write("tools/export.py", "import torch\nfrom pkg.dist import wrap\n\nif __name__ == '__main__':\n    wrap(torch.nn.Linear(2, 2))\n");
    EXPECT_EQ(guard(scan_dir(d, o)), GuardKind::none) << "an unguarded call in an edited importer";
    d.write("tools/export.py", "import torch\n\nif __name__ == '__main__':\n    print(torch.ones(1))\n");
    EXPECT_EQ(guard(scan_dir(d, o)), GuardKind::distributed_gate);
}

// detectron2's setup.py: the extension is built through a variable, CppExtension unless the machine
// has CUDA. The build is found and linked to its imports, and weighs as optional (a C++ build of the
// same module exists on a Mac); a variable that is only ever CUDAExtension keeps the full weight.
TEST(ProgramModel, ExtensionBuiltThroughAVariableIsLinkedAndOptional) {
    test::TempDir d;
    d.write("setup.py",
            "import torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension\n\n\n"
            "def get_extensions():\n"
            "    sources = ['csrc/vision.cpp']\n"
            "    extension = CppExtension\n"
            "    if torch.cuda.is_available() and CUDA_HOME is not None:\n"
            "        extension = CUDAExtension\n"
            "        sources += ['csrc/nms.cu']\n"
            "    ext_modules = [\n"
            "        extension(\n"
            "            'det._C',\n"
            "            sources,\n"
            "        )\n"
            "    ]\n"
            "    return ext_modules\n\n\n"
            "setup(name='det', packages=['det'], ext_modules=get_extensions())\n");
    d.write("det/__init__.py", "from det import _C\n");
    d.write("train.py", "import det\n\nif __name__ == '__main__':\n    det._C.nms(1)\n");
    const ScanResult r = scan_dir(d);
    const Finding* build = find(r, "cuda-extension-build", "setup.py");
    ASSERT_NE(build, nullptr);
    EXPECT_EQ(build->location.line, 13);
    EXPECT_EQ(build->subject, "det._C");
    EXPECT_EQ(build->reach, Reach::optional) << build->note;
    EXPECT_EQ(build->impact, VerdictImpact::dual) << build->note;
    EXPECT_NE(build->note.find("CUDAExtension only under a condition in setup.py"), std::string::npos) << build->note;
    EXPECT_TRUE(std::any_of(build->related.begin(), build->related.end(),
                            [](const RelatedLocation& rel) { return rel.location.path == "det/__init__.py" && rel.label == "imports det._C"; }));

    // Deformable-DETR's ops/setup.py (and DINO's and Mask2Former's copies): the same variable, but
    // the else arm raises (`raise NotImplementedError('Cuda is not available')`, or an if whose arms
    // both raise). The setup builds the CUDA extension or nothing: no C++ build exists on a Mac.
    const std::string head = "import torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension\n\n\n"
                             "def get_extensions():\n"
                             "    sources = ['csrc/vision.cpp']\n"
                             "    extension = CppExtension\n"
                             "    if torch.cuda.is_available() and CUDA_HOME is not None:\n"
                             "        extension = CUDAExtension\n"
                             "        sources += ['csrc/nms.cu']\n";
    const std::string tail = "    return [extension('det._C', sources)]\n\n\nsetup(name='det', packages=['det'], ext_modules=get_extensions())\n";
    for (const std::string& otherwise : {std::string("    else:\n        raise NotImplementedError('Cuda is not available')\n"),
                                         std::string("    else:\n        if CUDA_HOME is None:\n            raise NotImplementedError('CUDA_HOME is None')\n"
                                                     "        else:\n            raise NotImplementedError('No CUDA runtime')\n")}) {
        d.write("setup.py", head + otherwise + tail);
        const ScanResult raising = scan_dir(d);
        const Finding* b = find(raising, "cuda-extension-build", "setup.py");
        ASSERT_NE(b, nullptr);
        EXPECT_EQ(b->reach, Reach::core) << b->note;
        EXPECT_EQ(b->impact, VerdictImpact::stay) << b->note;
    }
    // torchsparse's module-level choice, `extension_type = CUDAExtension if device == "cuda" else
    // CppExtension`, in no block at all (a crash of the raise test before it looked for one)
    d.write("setup.py", "import torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CppExtension, CUDAExtension\n\n"
                        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
                        "extension_type = CUDAExtension if device == 'cuda' else CppExtension\n"
                        "setup(name='det', packages=['det'], ext_modules=[extension_type('det._C', ['csrc/vision.cpp'])])\n");
    const ScanResult module_level = scan_dir(d);
    build = find(module_level, "cuda-extension-build", "setup.py");
    ASSERT_NE(build, nullptr);
    EXPECT_EQ(build->reach, Reach::optional) << build->note;
    // an else that only warns builds the C++ extension: optional again
    d.write("setup.py", head + "    else:\n        print('no CUDA: building the CPU ops')\n" + tail);
    const ScanResult warning = scan_dir(d);
    build = find(warning, "cuda-extension-build", "setup.py");
    ASSERT_NE(build, nullptr);
    EXPECT_EQ(build->reach, Reach::optional) << build->note;

    // CUDA on every path: the extension is as required as its import.
    d.write("setup.py",
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n\n\n"
            "def get_extensions():\n"
            "    extension = CUDAExtension\n"
            "    return [extension('det._C', ['csrc/nms.cu'])]\n\n\n"
            "setup(name='det', packages=['det'], ext_modules=get_extensions())\n");
    const ScanResult required = scan_dir(d);
    const Finding* core = find(required, "cuda-extension-build", "setup.py");
    ASSERT_NE(core, nullptr);
    EXPECT_EQ(core->reach, Reach::core) << core->note;
    EXPECT_EQ(core->impact, VerdictImpact::stay) << core->note;
}

// A project copied into the repository with its own setup.py and licence (jukebox's apex/) is no
// package of the repository's: its API is no entry point. Its extension, which the run imports with a
// fallback beside it, is an optional package the repository ships: minor, no verdict impact.
TEST(ProgramModel, AVendoredProjectsExtensionWithAFallbackIsAnOptionalPackage) {
    test::TempDir d;
    d.write("LICENSE", "Noncommercial Use License\n\nCopyright (c) the lab.\n");
    d.write("apex/LICENSE", "BSD 3-Clause License\n\nCopyright (c) the vendor.\n");
    d.write("apex/setup.py",
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n\n"
            "setup(name='apex', packages=['apex'], ext_modules=[CUDAExtension('fused_adam_cuda', ['csrc/fused_adam_cuda.cu'])])\n");
    d.write("apex/apex/__init__.py", "from . import optimizers\n");
    d.write("apex/apex/optimizers/__init__.py", "from .fused_adam import FusedAdam\n");
    d.write("apex/apex/optimizers/fused_adam.py", "import fused_adam_cuda\n\n\nclass FusedAdam:\n    pass\n");
    d.write("lab/__init__.py", "");
    d.write("lab/fp16.py",
            "import importlib\n\n\ndef adam_step(p):\n    return p\n\n\n"
            "try:\n    fused_adam_cuda = importlib.import_module('fused_adam_cuda')\n    step = fused_adam_cuda.adam\n"
            "except ModuleNotFoundError:\n    step = adam_step\n");
    d.write("train.py", "import torch\nfrom lab import fp16\n\nif __name__ == '__main__':\n    fp16.step(torch.ones(2))\n");
    const ScanResult r = scan_dir(d);
    const auto& entries = r.program.entry_points;
    EXPECT_TRUE(std::none_of(entries.begin(), entries.end(), [](const EntryPoint& e) { return e.path == "apex/apex/__init__.py"; }));
    const Finding* build = find(r, "cuda-extension-build", "apex/setup.py");
    ASSERT_NE(build, nullptr);
    EXPECT_EQ(build->reach, Reach::optional) << build->note;
    EXPECT_EQ(build->impact, VerdictImpact::none) << build->note;
    EXPECT_EQ(build->severity, Severity::minor) << build->note;
    EXPECT_NE(build->note.find("fused_adam_cuda is built by apex/, a project copied into the repository"), std::string::npos) << build->note;

    // the same folder as the repository's own (one licence for all): its package is API, and that
    // imports the extension unconditionally
    d.write("apex/LICENSE", "Noncommercial Use License\n\nCopyright (c) the lab.\n");
    const ScanResult own = scan_dir(d);
    EXPECT_TRUE(std::any_of(own.program.entry_points.begin(), own.program.entry_points.end(),
                            [](const EntryPoint& e) { return e.path == "apex/apex/__init__.py"; }));
    build = find(own, "cuda-extension-build", "apex/setup.py");
    ASSERT_NE(build, nullptr);
    EXPECT_EQ(build->impact, VerdictImpact::stay) << build->note;
}

// RFdiffusion copies NVIDIA's SE(3)-Transformer into env/SE3Transformer/ (under NVIDIA's licence),
// with that project's own QM9 training script and the benchmark script that runs it. That script is
// not the repository's run: it is tooling, so RFdiffusion's own inference script (which calls no
// training method) is no side tool beside a training entry but the run itself.
TEST(ProgramModel, ACopiedProjectsOwnProgramsAreNotTheRepositorysRun) {
    test::TempDir d;
    d.write("LICENSE", "BSD License\n\nCopyright (c) the lab.\n");
    d.write("README.md", "# design\n\n```bash\npython scripts/run_inference.py\n```\n");
    d.write("env/SE3/LICENSE", "Copyright the vendor.\n\nPermission is hereby granted, free of charge, to any person\n");
    d.write("env/SE3/se3/__init__.py", "");
    d.write("env/SE3/se3/model.py", "import torch\n\n\nclass SE3(torch.nn.Module):\n    pass\n");
    d.write("env/SE3/se3/training.py",
            "import torch\nfrom se3.model import SE3\n\n\ndef train():\n    model = SE3()\n    opt = torch.optim.Adam(model.parameters())\n"
            "    loss = model(torch.ones(2)).sum()\n    loss.backward()\n    opt.step()\n\n\nif __name__ == '__main__':\n    train()\n");
    d.write("env/SE3/scripts/train.sh", "#!/bin/bash\npython -m se3.training --epochs 100\n");
    d.write("design/__init__.py", "");
    d.write("design/net.py", "import torch\n\n\nclass Net(torch.nn.Module):\n    pass\n");
    d.write("design/sampler.py", "import torch\n\n\ndef schedule():\n    return torch.linspace(0, 1, 10).to('cuda')\n");
    d.write("scripts/run_inference.py",
            "import torch\nfrom design.net import Net\nfrom design.sampler import schedule\n\n\ndef main():\n    net = Net()\n    print(net, schedule())\n\n\n"
            "if __name__ == '__main__':\n    main()\n");
    const ScanResult r = scan_dir(d);
    const auto& entries = r.program.entry_points;
    const auto entry = [&](const std::string& path) {
        const auto it = std::find_if(entries.begin(), entries.end(), [&](const EntryPoint& e) { return e.path == path; });
        return it == entries.end() ? nullptr : &*it;
    };
    const EntryPoint* training = entry("env/SE3/se3/training.py");
    ASSERT_NE(training, nullptr);
    EXPECT_TRUE(training->tooling) << training->why;
    EXPECT_NE(training->why.find("a project copied into the repository"), std::string::npos) << training->why;
    const EntryPoint* inference = entry("scripts/run_inference.py");
    ASSERT_NE(inference, nullptr);
    EXPECT_FALSE(inference->tooling) << inference->why;
    const Finding* device = find(r, "hardcoded-cuda-device", "design/sampler.py");
    ASSERT_NE(device, nullptr);
    EXPECT_EQ(device->reach, Reach::core) << device->note;

    // the repository's own README runs the copied training script: it is a program of the repository's
    d.write("README.md", "# design\n\n```bash\npython scripts/run_inference.py\ncd env/SE3 && python -m se3.training\n```\n");
    const ScanResult run = scan_dir(d);
    const auto it = std::find_if(run.program.entry_points.begin(), run.program.entry_points.end(),
                                 [](const EntryPoint& e) { return e.path == "env/SE3/se3/training.py"; });
    ASSERT_NE(it, run.program.entry_points.end());
    EXPECT_FALSE(it->tooling) << it->why;
}

// FastVideo ships its kernels as a sub-project (fastvideo-kernel/, a pyproject of its own) that its
// attention backends import with a fallback. The kernel package is a component of the repository's
// code, not an API of its own: its Triton import is optional (dual-track), not core (stay-on-CUDA),
// and a developer document that imports it does not make it an entry either.
TEST(ProgramModel, ASubProjectsPackageThatTheRepositoryImportsIsReachedThroughItsImporters) {
    test::TempDir d;
    d.write("pyproject.toml", "[project]\nname = \"vidgen\"\n");
    d.write("vidgen/__init__.py", "");
    d.write("vidgen/attention.py",
            "import torch\n\ntry:\n    from vidgen_kernel import sparse_attn\nexcept ImportError:\n    sparse_attn = None\n\n\n"
            "def attend(q, k, v):\n    if sparse_attn is not None:\n        return sparse_attn(q, k, v)\n"
            "    return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n");
    d.write("vidgen/generate.py",
            "import torch\nfrom vidgen.attention import attend\n\nif __name__ == '__main__':\n    x = torch.ones(1, 2, 4, 8)\n    print(attend(x, x, x))\n");
    d.write("kernel/pyproject.toml", "[project]\nname = \"vidgen-kernel\"\n\n[tool.setuptools.packages.find]\nwhere = [\"python\"]\n");
    d.write("kernel/python/vidgen_kernel/__init__.py", "from .sparse import sparse_attn\n");
    d.write("kernel/python/vidgen_kernel/sparse.py", "import triton\n\n\ndef sparse_attn(q, k, v):\n    return q\n");
    d.write("docs/kernels.md", "# Kernels\n\n```python\nfrom vidgen_kernel import sparse_attn\n```\n");
    d.write("README.md", "# vidgen\n\n```bash\npython vidgen/generate.py\n```\n");
    const ScanResult r = scan_dir(d);
    const auto& entries = r.program.entry_points;
    EXPECT_TRUE(std::none_of(entries.begin(), entries.end(), [](const EntryPoint& e) { return e.path.rfind("kernel/", 0) == 0 && !e.tooling; }));
    const Finding* triton = find(r, "cuda-only-package-import", "kernel/python/vidgen_kernel/sparse.py");
    ASSERT_NE(triton, nullptr);
    EXPECT_EQ(triton->reach, Reach::optional) << triton->note;
    EXPECT_EQ(triton->impact, VerdictImpact::dual) << triton->note;
    EXPECT_EQ(assess(r.findings, nullptr, test::bundled_catalogue(), r.file_lines, &r).verdict, Verdict::dual_track);

    // nothing outside the sub-project imports it: it is a library of the repository's, its package an API
    d.write("vidgen/attention.py",
            "import torch\n\n\ndef attend(q, k, v):\n    return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n");
    const ScanResult alone = scan_dir(d);
    EXPECT_TRUE(std::any_of(alone.program.entry_points.begin(), alone.program.entry_points.end(),
                            [](const EntryPoint& e) { return e.path == "kernel/python/vidgen_kernel/__init__.py"; }));
    triton = find(alone, "cuda-only-package-import", "kernel/python/vidgen_kernel/sparse.py");
    ASSERT_NE(triton, nullptr);
    EXPECT_EQ(triton->reach, Reach::core) << triton->note;
}

// SparseConvNet's setup.py chooses the build in place: `CUDAExtension(...) if torch.cuda.is_available()
// else CppExtension(...)`. A C++ build exists where CUDA is missing, as with a variable bound both
// ways: the CUDA build is optional, dual-track at most, not stay-on-CUDA.
TEST(ProgramModel, AnExtensionBuiltInOneArmOfAConditionalExpressionHasACppBuild) {
    test::TempDir d;
    const std::string cuda = "CUDAExtension('scn.SCN', ['scn/SCN/cuda.cu', 'scn/SCN/pybind.cpp'])";
    auto setup = [&](const std::string& other) {
        return "import torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension\n\n"
               "setup(name='scn', packages=['scn'], ext_modules=[\n    " +
               cuda + "\n    if torch.cuda.is_available() else\n    " + other + "])\n";
    };
    d.write("setup.py", setup("CppExtension('scn.SCN', ['scn/SCN/pybind.cpp', 'scn/SCN/cpu.cpp'])"));
    d.write("scn/__init__.py", "from .pool import pool\n");
    d.write("scn/pool.py", "import torch\nimport scn.SCN\n\n\ndef pool(x):\n    return x\n");
    d.write("train.py", "import torch\nimport scn\n\nif __name__ == '__main__':\n    scn.pool(torch.ones(2))\n");
    const ScanResult r = scan_dir(d);
    const Finding* build = find(r, "cuda-extension-build", "setup.py");
    ASSERT_NE(build, nullptr);
    EXPECT_EQ(build->reach, Reach::optional) << build->note;
    EXPECT_EQ(build->impact, VerdictImpact::dual) << build->note;
    EXPECT_NE(build->note.find("a CppExtension otherwise"), std::string::npos) << build->note;
    // no C++ build in the other arm: required
    d.write("setup.py", setup("None"));
    const ScanResult only_cuda = scan_dir(d);
    ASSERT_NE(find(only_cuda, "cuda-extension-build", "setup.py"), nullptr);
    EXPECT_EQ(find(only_cuda, "cuda-extension-build", "setup.py")->impact, VerdictImpact::stay);
}

// MinkowskiEngine's setup.py: `Extension = CUDAExtension`, then the kind is taken out of a table that
// holds both by a key chosen at run time (`SOURCE_SETS = {"cpu": [CppExtension, ...], "gpu":
// [CUDAExtension, ...]}`, `Extension = SOURCE_SETS[target][0]` with `target = "cpu" if CPU_ONLY else
// "gpu"`). The last assignment decides: a C++ build exists, and the CUDA one is optional. A table of
// CUDA builds alone keeps it required.
TEST(ProgramModel, AnExtensionKindTakenFromATableOfBothHasACppBuild) {
    test::TempDir d;
    auto setup = [&](const std::string& cpu_kind) {
        return "import torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension\n\n"
               "CPU_ONLY = not torch.cuda.is_available()\nExtension = CUDAExtension\n"
               "SOURCE_SETS = {\n    'cpu': [" + cpu_kind + ", ['src/conv_cpu.cpp'], ['pybind/me.cpp']],\n"
               "    'gpu': [CUDAExtension, ['src/conv_gpu.cu'], ['pybind/me.cu']],\n}\n"
               "target = 'cpu' if CPU_ONLY else 'gpu'\nExtension = SOURCE_SETS[target][0]\n"
               "setup(name='me', packages=['me'], ext_modules=[Extension(name='MEBackend._C', sources=SOURCE_SETS[target][1])])\n";
    };
    d.write("setup.py", setup("CppExtension"));
    d.write("me/__init__.py", "import MEBackend._C as _C\n\n\ndef conv(x):\n    return _C.conv(x)\n");
    d.write("train.py", "import torch\nimport me\n\nif __name__ == '__main__':\n    me.conv(torch.ones(2))\n");
    const ScanResult r = scan_dir(d);
    const Finding* build = find(r, "cuda-extension-build", "setup.py");
    ASSERT_NE(build, nullptr);
    EXPECT_EQ(build->reach, Reach::optional) << build->note;
    EXPECT_EQ(build->impact, VerdictImpact::dual) << build->note;
    EXPECT_NE(build->note.find("a CppExtension otherwise"), std::string::npos) << build->note;
    d.write("setup.py", setup("CUDAExtension"));
    const ScanResult only_cuda = scan_dir(d);
    ASSERT_NE(find(only_cuda, "cuda-extension-build", "setup.py"), nullptr);
    EXPECT_EQ(find(only_cuda, "cuda-extension-build", "setup.py")->impact, VerdictImpact::stay) << find(only_cuda, "cuda-extension-build", "setup.py")->note;
}

// stable-fast-3d's texture baker: built with CUDA where it is there and as C++ otherwise, and each op
// has an MPS kernel, registered in an Objective-C++ file. The Mac builds it without CUDA and runs
// those kernels: the CUDA build is info with no verdict (rules/program.yaml mps_build). One op without
// an MPS kernel keeps the build's weight (optional, dual-track).
TEST(ProgramModel, AnExtensionWhoseEveryOpHasAnMpsKernelBuildsOnTheMac) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("setup.py", "import torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CppExtension, CUDAExtension\n\n"
                        "use_cuda = torch.cuda.is_available()\nextension = CUDAExtension if use_cuda else CppExtension\n"
                        "sources = ['baker/csrc/baker.cpp'] + (['baker/csrc/baker_kernel.cu'] if use_cuda else ['baker/csrc/baker_mps.mm'])\n"
                        "setup(name='baker', packages=['baker'], ext_modules=[extension(name='baker._C', sources=sources)])\n");
    auto ops = [&](bool both_mps) {
        d.write("baker/csrc/baker.cpp", std::string("#include <torch/extension.h>\n"
                                                    "at::Tensor rasterize_cuda(const at::Tensor& uv);\nat::Tensor rasterize_cpu(const at::Tensor& uv);\n"
                                                    "at::Tensor interpolate_cuda(const at::Tensor& a);\nat::Tensor interpolate_cpu(const at::Tensor& a);\n"
                                                    "TORCH_LIBRARY(baker, m) {\n  m.def(\"rasterize(Tensor uv) -> Tensor\");\n  m.def(\"interpolate(Tensor a) -> Tensor\");\n}\n"
                                                    "TORCH_LIBRARY_IMPL(baker, CUDA, m) {\n  m.impl(\"rasterize\", rasterize_cuda);\n  m.impl(\"interpolate\", interpolate_cuda);\n}\n") +
                                            (both_mps ? "" : "TORCH_LIBRARY_IMPL(baker, CPU, m) {\n  m.impl(\"interpolate\", interpolate_cpu);\n}\n"));
        d.write("baker/csrc/baker_mps.mm", std::string("#include <torch/extension.h>\nat::Tensor rasterize_mps(const at::Tensor& uv);\n"
                                                       "at::Tensor interpolate_mps(const at::Tensor& a);\n"
                                                       "TORCH_LIBRARY_IMPL(baker, MPS, m) {\n  m.impl(\"rasterize\", rasterize_mps);\n") +
                                               (both_mps ? "  m.impl(\"interpolate\", interpolate_mps);\n" : "") + "}\n");
    };
    d.write("baker/__init__.py", "import torch\nfrom . import _C\n\n\ndef bake(uv):\n    return torch.ops.baker.interpolate(torch.ops.baker.rasterize(uv))\n");
    d.write("run.py", "import torch\nimport baker\n\nif __name__ == '__main__':\n    baker.bake(torch.ones(2))\n");
    ops(true);
    const ScanResult r = scan_dir(d);
    const Finding* build = find(r, "cuda-extension-build", "setup.py");
    ASSERT_NE(build, nullptr);
    EXPECT_EQ(build->impact, VerdictImpact::none) << build->note;
    EXPECT_EQ(build->severity, Severity::info) << build->note;
    EXPECT_NE(build->note.find("every op of baker._C has an MPS kernel (2)"), std::string::npos) << build->note;
    ops(false);
    const ScanResult one_without = scan_dir(d);
    build = find(one_without, "cuda-extension-build", "setup.py");
    ASSERT_NE(build, nullptr);
    EXPECT_EQ(build->impact, VerdictImpact::dual) << build->note;
}

// torchsparse's shape: the extension kind is a conditional expression, its sources a glob, and two
// setup scripts build the same module. The build is found (optional: a C++ build exists), the kernels
// belong to it, and each op weighs by its Python calls: one called only on CUDA tensors is optional,
// one called on every path keeps the run on CUDA.
TEST(ProgramModel, AnExtensionKindChosenByAConditionalExpressionIsLinked) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    const std::string setup_py =
        "import glob\nimport os\nimport torch\nfrom setuptools import setup\n"
        "from torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension\n\n"
        "device = 'cuda' if torch.cuda.is_available() and CUDA_HOME is not None else 'cpu'\n"
        "sources = [os.path.join('sp', 'backend', f'pybind_{device}.cu')]\n"
        "for path in glob.glob(os.path.join('sp', 'backend', '**', '*')):\n"
        "    if path.endswith('_cuda.cu') and device == 'cuda':\n"
        "        sources.append(path)\n"
        "extension_type = CUDAExtension if device == 'cuda' else CppExtension\n"
        "setup(name='sp', packages=['sp'], ext_modules=[extension_type('sp.backend', sources)])\n";
    d.write("setup.py", setup_py);
    d.write("cython_setup.py", setup_py);
    d.write("sp/backend/pybind_cuda.cu",
            "at::Tensor hash_cuda(at::Tensor x);\nat::Tensor hash_cpu(at::Tensor x);\nat::Tensor reorder_cuda(at::Tensor x);\n"
            "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
            "  m.def(\"hash_cuda\", &hash_cuda);\n  m.def(\"hash_cpu\", &hash_cpu);\n  m.def(\"reorder_cuda\", &reorder_cuda);\n}\n");
    d.write("sp/backend/hash_cuda.cu", "__global__ void hash_kernel(int* x) { x[0] = 1; }\n"
                                       "at::Tensor hash_cuda(at::Tensor x) { hash_kernel<<<1, 1>>>(nullptr); return x; }\n"
                                       "at::Tensor reorder_cuda(at::Tensor x) { hash_kernel<<<1, 1>>>(nullptr); return x; }\n");
    d.write("sp/backend/hash_cpu.cpp", "at::Tensor hash_cpu(at::Tensor x) { return x; }\n");
    d.write("sp/__init__.py", "import sp.backend\nfrom sp.ops import hash, reorder\n");
    d.write("sp/ops.py",
            "import sp.backend\n\n\ndef hash(x):\n    if x.device.type == 'cuda':\n        return sp.backend.hash_cuda(x)\n"
            "    return sp.backend.hash_cpu(x.cpu()).to(x.device)\n\n\ndef reorder(x):\n    return sp.backend.reorder_cuda(x)\n");
    d.write("train.py", "import torch\nimport sp\n\nif __name__ == '__main__':\n    sp.reorder(sp.hash(torch.ones(3)))\n");
    const ScanResult r = scan_dir(d);
    for (const char* script : {"setup.py", "cython_setup.py"}) {
        const Finding* build = find(r, "cuda-extension-build", script);
        ASSERT_NE(build, nullptr) << script;
        EXPECT_EQ(build->subject, "sp.backend");
        EXPECT_EQ(build->reach, Reach::optional) << build->note;
        EXPECT_EQ(build->impact, VerdictImpact::dual) << build->note;
        EXPECT_EQ(build->severity, Severity::minor) << "an extension the run can do without (reach_weights_for.extension)";
    }
    const Finding* kernel = find(r, "cuda-kernel-source", "sp/backend/hash_cuda.cu");
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->subject, "sp.backend") << kernel->note;
    // the build and the ops carry the extension's weight; its kernels are info (reach_weights_for.kernel)
    EXPECT_EQ(kernel->severity, Severity::info) << kernel->note;
    EXPECT_EQ(kernel->impact, VerdictImpact::none) << kernel->note;
    auto op_finding = [&](const std::string& op) -> const Finding* {
        for (const auto& f : r.findings)
            if (f.rule_id == "cuda-only-extension-op" && f.native_op == op) return &f;
        return nullptr;
    };
    ASSERT_NE(op_finding("hash_cuda"), nullptr);
    ASSERT_NE(op_finding("reorder_cuda"), nullptr);
    EXPECT_EQ(op_finding("hash_cuda")->reach, Reach::optional) << op_finding("hash_cuda")->note;
    EXPECT_LE(op_finding("hash_cuda")->impact, VerdictImpact::dual);
    EXPECT_EQ(op_finding("reorder_cuda")->reach, Reach::core) << op_finding("reorder_cuda")->note;
    EXPECT_EQ(op_finding("reorder_cuda")->impact, VerdictImpact::stay);
}

// The other two ways setup.py makes a CUDA build conditional: a conditional expression at the
// setup() call, and a helper that returns [] early without CUDA. Either makes the extension (and its
// kernels) optional, dual-track at most.
TEST(ProgramModel, ACudaBuildUnderAConditionAtSetupOrAnEarlyReturnIsOptional) {
    const std::vector<std::string> setups = {
        "import torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\n"
        "setup(\n    name='lab',\n    ext_modules=[CUDAExtension('lab_ops', ['csrc/ops.cu'])] if torch.cuda.is_available() else [],\n"
        "    cmdclass={'build_ext': BuildExtension},\n)\n",
        "import torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension, CUDA_HOME\n\n\n"
        "def get_extensions():\n    if not torch.cuda.is_available() or CUDA_HOME is None:\n        return []\n"
        "    return [CUDAExtension('lab_ops', ['csrc/ops.cu'])]\n\n\n"
        "setup(name='lab', ext_modules=get_extensions(), cmdclass={'build_ext': BuildExtension})\n"};
    for (const auto& setup_py : setups) {
        test::TempDir d;
        d.write("setup.py", setup_py);
        d.write("csrc/ops.cu", "__global__ void k(float* x) { x[0] = 1; }\n");
        const ScanResult r = scan_dir(d);
        const Finding* build = find(r, "cuda-extension-build", "setup.py");
        ASSERT_NE(build, nullptr) << setup_py;
        EXPECT_EQ(build->reach, Reach::optional) << build->note;
        EXPECT_EQ(build->impact, VerdictImpact::dual) << build->note;
        EXPECT_NE(build->note.find("built only under a condition in setup.py"), std::string::npos) << build->note;
        const Finding* kernel = find(r, "cuda-kernel-source", "csrc/ops.cu");
        ASSERT_NE(kernel, nullptr);
        EXPECT_EQ(kernel->reach, Reach::optional) << kernel->note;
    }
}

// An MPS op prediction in test code is info (rules/program.yaml reach_weights_for), the same call in
// the training step keeps its rule's weight.
TEST(ProgramModel, OpPredictionsInTestsAreInfo) {
    test::TempDir d;
    d.write("train.py", "import torch\n\n\ndef step(x):\n    return torch.linalg.eig(x)\n\n\n"
                        "if __name__ == \"__main__\":\n    step(torch.ones(2, 2))\n");
    d.write("tests/test_step.py", "import torch\n\n\ndef test_eig():\n    torch.linalg.eig(torch.ones(2, 2))\n");
    const ScanResult r = scan_dir(d);
    const Finding* core = find(r, "mps-op-fallback", "train.py");
    const Finding* tooling = find(r, "mps-op-fallback", "tests/test_step.py");
    ASSERT_NE(core, nullptr);
    ASSERT_NE(tooling, nullptr);
    EXPECT_EQ(core->reach, Reach::core);
    EXPECT_EQ(core->severity, core->rule_severity);
    EXPECT_EQ(tooling->reach, Reach::tooling);
    EXPECT_EQ(tooling->severity, Severity::info) << tooling->note;
    EXPECT_NE(tooling->note.find("tooling op-support"), std::string::npos) << tooling->note;
}

// F.grid_sample under PyTorch 2.6.0: grid_sampler_2d has an MPS kernel, grid_sampler_2d_backward none. The
// fallback happens only where gradients flow through the call: a module's forward, a loss, code that calls
// .backward(), or what they call; not under torch.no_grad(), in an inference function, or where every call
// of the function (in this file or in the files that import it) runs without gradients.
TEST(OpSupport, ABackwardOnlyFallbackWeighsByWhetherGradientsFlow) {
    test::TempDir d;
    d.write("train.py", R"(import torch
import torch.nn.functional as F
from torch import nn
from pkg.resample import resample, warp


class Head(nn.Module):
    def forward(self, x, grid):
        return F.grid_sample(x, grid)

    @torch.no_grad()
    def predict(self, x, grid):
        return F.grid_sample(x, grid)

    def _inference_one_image(self, x, grid):
        return F.grid_sample(x, grid)

    def heads(self, x, grid):
        if not self.training:
            return F.grid_sample(x, grid)
        return x


def paste(x, grid):
    with torch.no_grad():
        return F.grid_sample(x, grid)


def loss_fn(x, grid, target):
    return (warp(x, grid) - target).abs().mean()


def step(x, grid):
    with torch.inference_mode():
        return resample(x, grid)


if __name__ == "__main__":
    step(torch.ones(1), torch.ones(1))
)");
    d.write("pkg/__init__.py", "");
    d.write("pkg/resample.py", R"(import torch.nn.functional as F


def resample(x, grid):
    return F.grid_sample(x, grid)


def warp(x, grid):
    return F.grid_sample(x, grid)


def helper(x, grid):
    return F.grid_sample(x, grid)


from torch import nn


def make_norm(c):
    return nn.GroupNorm(2, c)


class Net(nn.Module):
    def embed(self, x, grid):
        def sample(t):
            return F.grid_sample(t, grid)
        return sample(x)

    def forward(self, x, grid):
        return self.embed(x, grid)
)");
    const Scanner scanner(test::bundled_catalogue(), "2.6.0");
    const ScanResult r = scanner.scan(d.path(), {d.path()}, {});
    std::map<std::pair<std::string, int>, const Finding*> at;
    for (const auto& f : r.findings)
        if (f.rule_id == "mps-op-fallback-fixed-upstream") at[{f.location.path, f.location.line}] = &f;
    auto finding_at = [&](const std::string& path, int line) -> const Finding* {
        auto it = at.find({path, line});
        return it == at.end() ? nullptr : it->second;
    };
    auto guard_at = [&](const std::string& path, int line) {
        auto it = at.find({path, line});
        return it == at.end() ? std::string("no finding") : std::string(to_string(it->second->guard));
    };
    ASSERT_NE(finding_at("train.py", 9), nullptr);
    const Finding& forward = *finding_at("train.py", 9);
    EXPECT_EQ(guard_at("train.py", 9), "none") << "a module's forward trains";
    EXPECT_EQ(forward.severity, forward.rule_severity);
    EXPECT_NE(forward.message.find("grid_sampler_2d_backward in its backward pass only"), std::string::npos) << forward.message;
    EXPECT_NE(forward.fix.find("the backward pass (loss.backward()) raises 'NotImplementedError"), std::string::npos) << forward.fix;
    EXPECT_NE(forward.fix.find("gradients flow here (in forward())"), std::string::npos) << forward.fix;
    EXPECT_EQ(guard_at("train.py", 13), "no-grad") << "@torch.no_grad()";
    EXPECT_EQ(guard_at("train.py", 16), "no-grad") << "an inference function by its name";
    EXPECT_EQ(guard_at("train.py", 20), "no-grad") << "the not-self.training branch";
    EXPECT_EQ(guard_at("train.py", 26), "no-grad") << "with torch.no_grad()";
    EXPECT_EQ(finding_at("train.py", 26)->severity, Severity::info);
    EXPECT_EQ(finding_at("train.py", 26)->impact, VerdictImpact::none);
    EXPECT_EQ(guard_at("pkg/resample.py", 5), "no-grad") << "its only use (train.py) runs under torch.inference_mode()";
    EXPECT_NE(finding_at("pkg/resample.py", 5)->guard_note.find("train.py:"), std::string::npos) << finding_at("pkg/resample.py", 5)->guard_note;
    EXPECT_EQ(guard_at("pkg/resample.py", 9), "none") << "called from loss_fn: gradients flow";
    EXPECT_EQ(guard_at("pkg/resample.py", 13), "grad-unknown") << "nothing calls helper()";
    EXPECT_EQ(finding_at("pkg/resample.py", 13)->severity, Severity::minor) << "nothing says: the rule's weight";
    EXPECT_EQ(guard_at("pkg/resample.py", 20), "none") << "a layer (native_group_norm_backward) runs in its model's forward";
    EXPECT_EQ(guard_at("pkg/resample.py", 26), "none") << "a nested function called by a method that forward() calls";
}

// The same across files through an object: a backward-only fallback in a method of a module-level class
// is decided by the calls of that method by name (`warper.resample(x)` under torch.no_grad()) in the
// files that write the name.
TEST(OpSupport, ABackwardOnlyFallbackInAMethodWeighsByItsCallsThroughObjects) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/warp.py", R"(import torch.nn.functional as F


class Warper:
    def resample(self, x, grid):
        return F.grid_sample(x, grid)

    def blend(self, x, grid):
        return F.grid_sample(x, grid)

    def spare(self, x, grid):
        return F.grid_sample(x, grid)
)");
    d.write("train.py", R"(import torch
from pkg.warp import Warper


def loss_fn(w, x, grid, target):
    return (w.blend(x, grid) - target).abs().mean()


def run_batch(w, x, grid):
    with torch.no_grad():
        return w.resample(x, grid)


if __name__ == "__main__":
    w = Warper()
    run_batch(w, torch.ones(1), torch.ones(1))
)");
    const Scanner scanner(test::bundled_catalogue(), "2.6.0");
    auto guard_at = [&](const ScanResult& r, int line) {
        for (const auto& f : r.findings)
            if (f.rule_id == "mps-op-fallback-fixed-upstream" && f.location.path == "pkg/warp.py" && f.location.line == line) return f;
        return Finding{};
    };
    const ScanResult r = scanner.scan(d.path(), {d.path()}, {});
    const Finding resample = guard_at(r, 6);
    EXPECT_EQ(resample.guard, GuardKind::no_grad) << resample.guard_note;
    EXPECT_NE(resample.guard_note.find("train.py:11"), std::string::npos) << resample.guard_note;
    EXPECT_EQ(resample.severity, Severity::info);
    EXPECT_EQ(guard_at(r, 9).guard, GuardKind::none) << "called in loss_fn: gradients flow";
    EXPECT_EQ(guard_at(r, 9).rule_id, "mps-op-fallback-fixed-upstream");
    EXPECT_EQ(guard_at(r, 12).guard, GuardKind::grad_unknown) << "nothing calls spare()";
    EXPECT_EQ(guard_at(r, 12).severity, Severity::minor);
    // a notebook writes the name: its calls are not read, so nothing decides
    d.write("demo.ipynb", R"({"cells": [{"cell_type": "code", "metadata": {}, "source": ["w.resample(x, grid)\n"], "outputs": [], "execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})");
    EXPECT_EQ(guard_at(scanner.scan(d.path(), {d.path()}, {}), 6).guard, GuardKind::grad_unknown);
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

// stylegan2's op/ folder, copied into many repositories: a JIT build at import, its ops called in an
// autograd Function that the wrapper applies only off the CPU, a pure-PyTorch twin on the CPU. MPS
// takes the non-CPU branch too, so the op is no CUDA-only path, but the twin is beside it: the build
// weighs dual-track at most, with the calls as related locations.
TEST(ProgramModel, JitBuildWhoseOpsHaveACpuTwinIsDualAtMost) {
    test::TempDir d;
    d.write("op/__init__.py", "from .up import up\n");
    d.write("op/up.cpp", "#include <torch/extension.h>\ntorch::Tensor up_cuda(torch::Tensor x);\n"
                         "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"up\", &up_cuda); }\n");
    d.write("op/up_kernel.cu", "__global__ void up_kernel(float* out, const float* in, int n) {\n  int i = threadIdx.x;\n  if (i < n) out[i] = in[i / 2];\n}\n");
    d.write("op/up.py",
            "import os\nfrom torch.autograd import Function\nfrom torch.utils.cpp_extension import load\n\n"
            "up_op = load(\n    \"up\",\n    sources=[os.path.join(os.path.dirname(__file__), \"up.cpp\"), \"up_kernel.cu\"],\n)\n\n\n"
            "class UpFn(Function):\n    @staticmethod\n    def forward(ctx, x):\n        return up_op.up(x)\n\n\n"
            "def up(x):\n    if x.device.type == \"cpu\":\n        return x.repeat_interleave(2, -1)\n    else:\n        return UpFn.apply(x)\n");
    d.write("train.py", "import torch\nfrom op import up\n\nif __name__ == \"__main__\":\n    up(torch.ones(3))\n");
    const ScanResult r = scan_dir(d);
    const Finding* build = nullptr;
    for (const auto& f : r.findings)
        if (f.rule_id == "cuda-extension-build" && f.location.path == "op/up.py") build = &f;
    ASSERT_NE(build, nullptr);
    EXPECT_EQ(build->reach, Reach::optional) << build->note;
    EXPECT_EQ(build->impact, VerdictImpact::dual) << build->note;
    EXPECT_NE(build->note.find("only the build at import needs CUDA"), std::string::npos) << build->note;
    EXPECT_NE(build->note.find("callers of UpFn()"), std::string::npos) << build->note;
    bool call_related = false;
    for (const auto& rel : build->related) call_related = call_related || (rel.location.path == "op/up.py" && rel.location.line == 14);
    EXPECT_TRUE(call_related) << "the call up_op.up(x) is a related location";
    // The kernels it compiles are as optional as the build.
    const Finding* kernel = find(r, "cuda-kernel-source", "op/up_kernel.cu");
    if (cuda::ClangEngine::available()) {
        ASSERT_NE(kernel, nullptr);
        EXPECT_EQ(kernel->reach, Reach::optional) << kernel->note;
        EXPECT_EQ(kernel->severity, Severity::minor) << kernel->note;
        // MPS takes the non-CPU branch too: the op is no extension a Mac run can do without (judged
        // major for rosinality's fused_bias_act), whatever the category weights of optional reach
        const Finding* op = find(r, "cuda-only-extension-op", "op/up.cpp");
        ASSERT_NE(op, nullptr);
        EXPECT_EQ(op->guard, GuardKind::non_cpu_branch) << op->note;
        EXPECT_EQ(op->severity, Severity::major) << op->note;
    }
    // Without the CPU twin the op is called on every device: the build is required.
    d.write("op/up.py",
            "import os\nfrom torch.autograd import Function\nfrom torch.utils.cpp_extension import load\n\n"
            "up_op = load(\n    \"up\",\n    sources=[os.path.join(os.path.dirname(__file__), \"up.cpp\"), \"up_kernel.cu\"],\n)\n\n\n"
            "class UpFn(Function):\n    @staticmethod\n    def forward(ctx, x):\n        return up_op.up(x)\n\n\n"
            "def up(x):\n    return UpFn.apply(x)\n");
    for (const auto& f : scan_dir(d).findings) {
        if (f.rule_id == "cuda-extension-build" && f.location.path == "op/up.py") {
            EXPECT_EQ(f.reach, Reach::core) << f.note;
            EXPECT_EQ(f.impact, VerdictImpact::stay) << f.note;
        }
        if (f.rule_id == "cuda-kernel-source") {
            EXPECT_EQ(f.severity, Severity::major) << f.note;
        }
    }
}

TEST(ProgramModel, ConftestThatSkipsWithoutCudaMakesItsTestsSkipped) {
    // gsplat's shape: tests/geometry/conftest.py de-collects every test without CUDA through a helper
    // of the repository; tests/ops/conftest.py skips each test in an autouse fixture.
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("tests/__init__.py", "");
    d.write("tests/_collect.py",
            "ALL = [\"**/test_*.py\"]\n\n\ndef cuda_ignore():\n    import torch\n\n"
            "    if not torch.cuda.is_available():\n        return list(ALL)\n    return []\n");
    d.write("tests/geometry/conftest.py", "from tests._collect import cuda_ignore\n\ncollect_ignore_glob = cuda_ignore()\n");
    d.write("tests/geometry/unit/test_pose.py", "import torch\n\n\ndef test_pose():\n    x = torch.ones(2).cuda()\n");
    d.write("tests/geometry/helpers.py", "import torch\n\n\ndef make():\n    return torch.ones(2).cuda()\n");
    d.write("tests/ops/conftest.py",
            "import pytest\nimport torch\n\n\n@pytest.fixture(autouse=True)\ndef need_gpu():\n"
            "    if not torch.cuda.is_available():\n        pytest.skip(\"CUDA only\")\n    yield\n");
    d.write("tests/ops/test_add.py", "import torch\n\n\ndef test_add():\n    x = torch.ones(2).cuda()\n");
    d.write("tests/other/test_mul.py", "import torch\n\n\ndef test_mul():\n    x = torch.ones(2).cuda()\n");
    d.write("tests/other/conftest.py", "collect_ignore = [\"setup.py\"]\ncollect_ignore_glob = []\n");
    const ScanResult r = scan_dir(d);
    const Finding* pose = find(r, "cuda-method-call", "tests/geometry/unit/test_pose.py");
    ASSERT_NE(pose, nullptr);
    EXPECT_EQ(pose->guard, GuardKind::test_skip);
    EXPECT_EQ(pose->severity, Severity::info) << pose->note;
    EXPECT_NE(pose->guard_note.find("tests/geometry/conftest.py:3"), std::string::npos) << pose->guard_note;
    EXPECT_NE(pose->guard_note.find("tests/_collect.py:8"), std::string::npos) << pose->guard_note;
    // The glob names test files in subfolders only, as pytest reads it: a helper beside the conftest is collected.
    const Finding* helper = find(r, "cuda-method-call", "tests/geometry/helpers.py");
    ASSERT_NE(helper, nullptr);
    EXPECT_EQ(helper->guard, GuardKind::none) << helper->guard_note;
    const Finding* add = find(r, "cuda-method-call", "tests/ops/test_add.py");
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(add->guard, GuardKind::test_skip);
    EXPECT_NE(add->guard_note.find("autouse fixture need_gpu()"), std::string::npos) << add->guard_note;
    // A conftest that ignores files on every host says nothing about CUDA.
    const Finding* mul = find(r, "cuda-method-call", "tests/other/test_mul.py");
    ASSERT_NE(mul, nullptr);
    EXPECT_EQ(mul->guard, GuardKind::none) << mul->guard_note;
    EXPECT_NE(mul->severity, Severity::info);

    // A helper that returns the list on every host is no CUDA skip.
    d.write("tests/_collect.py", "ALL = [\"**/test_*.py\"]\n\n\ndef cuda_ignore():\n    return list(ALL)\n");
    const ScanResult pose_scan = scan_dir(d);
    EXPECT_EQ(find(pose_scan, "cuda-method-call", "tests/geometry/unit/test_pose.py")->guard, GuardKind::none);
    // collect_ignore_glob set under the check itself, with the files named.
    d.write("tests/geometry/conftest.py",
            "import torch\n\ncollect_ignore_glob = []\nif not torch.cuda.is_available():\n    collect_ignore_glob += [\"unit/*\"]\n");
    const ScanResult literal = scan_dir(d);
    EXPECT_EQ(find(literal, "cuda-method-call", "tests/geometry/unit/test_pose.py")->guard, GuardKind::test_skip);
    EXPECT_EQ(find(literal, "cuda-method-call", "tests/geometry/helpers.py")->guard, GuardKind::none);
    // A helper defined in the conftest.py itself.
    d.write("tests/geometry/conftest.py",
            "import torch\n\n\ndef ignored():\n    if not torch.cuda.is_available():\n        return [\"unit/*\"]\n    return []\n\n\n"
            "collect_ignore_glob = ignored()\n");
    const ScanResult local = scan_dir(d);
    EXPECT_EQ(find(local, "cuda-method-call", "tests/geometry/unit/test_pose.py")->guard, GuardKind::test_skip);
    EXPECT_EQ(find(local, "cuda-method-call", "tests/geometry/helpers.py")->guard, GuardKind::none);
}

TEST(ProgramModel, ASkipOnAHelpersAnswerIsATestSkipWhereTheHelperAnswersNoWithoutCuda) {
    // nanotron's shape: tests/helpers/utils.py's available_gpus() returns 0 without CUDA, and a test
    // skips under `available_gpus() < 4`, running its body through a function it passes on.
    test::TempDir d;
    d.write("tests/helpers/__init__.py", "");
    d.write("tests/helpers/utils.py",
            "import torch\n\n\ndef available_gpus():\n    if not torch.cuda.is_available():\n        return 0\n"
            "    return torch.cuda.device_count()\n\n\ndef gpu_name():\n    if not torch.cuda.is_available():\n        return \"none\"\n"
            "    return torch.cuda.get_device_name()\n");
    d.write("tests/test_pp.py",
            "import pytest\nimport torch\n\nfrom helpers.utils import available_gpus, gpu_name\n\n\n"
            "@pytest.mark.skipif(available_gpus() < 4, reason=\"needs 4 gpus\")\n@pytest.mark.parametrize(\"n\", [1, 2])\n"
            "def test_diamond(n):\n    run(n)(_test_diamond)()\n\n\n"
            "def _test_diamond():\n    x = torch.zeros(2, device=\"cuda\")\n\n\n"
            "class TestTp:\n    @pytest.mark.skipif(available_gpus() < 2, reason=\"needs 2 gpus\")\n    def test_tp(self):\n"
            "        y = torch.ones(2).cuda()\n\n\n"
            "@pytest.mark.skipif(gpu_name() == \"A100\", reason=\"not on A100\")\ndef test_name():\n    z = torch.ones(2).cuda()\n");
    const ScanResult r = scan_dir(d);
    // a function the skipped test passes on runs no more than the test
    const Finding* diamond = find(r, "hardcoded-cuda-device", "tests/test_pp.py");
    ASSERT_NE(diamond, nullptr);
    EXPECT_EQ(diamond->guard, GuardKind::test_skip) << diamond->guard_note;
    EXPECT_EQ(diamond->severity, Severity::info) << diamond->note;
    EXPECT_NE(diamond->guard_note.find("tests/helpers/utils.py:6"), std::string::npos) << diamond->guard_note;
    int skipped = 0, running = 0;
    for (const auto& f : r.findings) {
        if (f.rule_id != "cuda-method-call" || f.location.path != "tests/test_pp.py") continue;
        // a method of a class, in the test itself
        if (f.location.line == 20) {
            EXPECT_EQ(f.guard, GuardKind::test_skip) << f.guard_note;
            EXPECT_NE(f.guard_note.find("tests/test_pp.py:18: @pytest.mark.skipif(available_gpus() < 2"), std::string::npos) << f.guard_note;
            ++skipped;
        }
        // gpu_name() answers a string without CUDA: the test runs on a Mac
        if (f.location.line == 25) {
            EXPECT_EQ(f.guard, GuardKind::none) << f.guard_note;
            EXPECT_NE(f.severity, Severity::info);
            ++running;
        }
    }
    EXPECT_EQ(skipped, 1);
    EXPECT_EQ(running, 1);

    // A helper that answers the same with CUDA or without says nothing of a Mac.
    d.write("tests/helpers/utils.py", "import torch\n\n\ndef available_gpus():\n    return 8\n");
    const ScanResult again = scan_dir(d);
    const Finding* always = find(again, "hardcoded-cuda-device", "tests/test_pp.py");
    ASSERT_NE(always, nullptr);
    EXPECT_EQ(always->guard, GuardKind::none) << always->guard_note;
}

TEST(ProgramModel, ASkipDecoratorImportedUnderANameOfItsOwnIsATestSkip) {
    // fairscale's shape: fair_dev/testing/testing.py binds skip_if_single_gpu to a pytest.mark.skipif
    // on the CUDA device count; the tests import it by name, or the module, and decorate with it.
    test::TempDir d;
    d.write("lab/__init__.py", "");
    d.write("lab/testing.py",
            "import pytest\nimport torch\n\nskip_if_single_gpu = pytest.mark.skipif(\n"
            "    not torch.cuda.is_available() or torch.cuda.device_count() < 2, reason=\"multiple GPUs required\"\n)\n"
            "skip_old_python = pytest.mark.skipif(sys.version_info < (3, 9), reason=\"3.9\")\n"
            "slow = pytest.mark.slow\n");
    d.write("tests/test_fsdp.py",
            "import torch\n\nfrom lab.testing import skip_if_single_gpu, skip_old_python, slow\nfrom lab import testing\n\n\n"
            "@skip_if_single_gpu\nclass TestConsolidated:\n    def test_a(self):\n        a = torch.ones(2).cuda()\n\n\n"
            "@testing.skip_if_single_gpu\ndef test_b():\n    b = torch.ones(2).cuda()\n\n\n"
            "@skip_old_python\n@slow\ndef test_c():\n    c = torch.ones(2).cuda()\n");
    const ScanResult r = scan_dir(d);
    int skipped = 0, running = 0;
    for (const auto& f : r.findings) {
        if (f.rule_id != "cuda-method-call" || f.location.path != "tests/test_fsdp.py") continue;
        if (f.location.line == 10 || f.location.line == 15) {
            EXPECT_EQ(f.guard, GuardKind::test_skip) << f.location.line << ": " << f.guard_note;
            EXPECT_EQ(f.severity, Severity::info) << f.location.line;
            EXPECT_NE(f.guard_note.find("(lab/testing.py:4)"), std::string::npos) << f.guard_note;
            ++skipped;
        }
        // a skip on the Python version, and a mark that skips nothing, say nothing of a Mac
        if (f.location.line == 21) {
            EXPECT_EQ(f.guard, GuardKind::none) << f.guard_note;
            EXPECT_EQ(f.severity, Severity::minor);
            ++running;
        }
    }
    EXPECT_EQ(skipped, 2);
    EXPECT_EQ(running, 1);
}

TEST(ProgramModel, ACallUnderAnOptionOffByDefaultGuardsItsFunctionInALargeScript) {
    // PyTorch-GAN's cluster_gan: module-level options, `wass_metric = args.wass_flag`, and the one call
    // of calc_gradient_penalty() under `if wass_metric:` in a script past the size from which the
    // callers' pass parses only the statements that can answer (8 KiB).
    const std::string pad = test::python_padding(12000);
    const std::string script =
        "import argparse\nimport torch\n\nparser = argparse.ArgumentParser()\n"
        "parser.add_argument(\"-n\", \"--n_epochs\", dest=\"n_epochs\", default=200, type=int)\n"
        "parser.add_argument(\"-w\", \"--wass_flag\", dest=\"wass_flag\", action=\"store_true\")\n"
        "args = parser.parse_args()\n\n\n" + pad +
        "def calc_gradient_penalty(real):\n    alpha = torch.rand(real.size(0), 1).cuda()\n    return alpha\n\n\n"
        "wass_metric = args.wass_flag\n"
        "for epoch in range(args.n_epochs):\n    if wass_metric:\n        penalty = calc_gradient_penalty(torch.ones(2))\n";
    test::TempDir d;
    d.write("clustergan.py", script);
    const ScanResult r = scan_dir(d);
    const Finding* penalty = find(r, "cuda-method-call", "clustergan.py");
    ASSERT_NE(penalty, nullptr);
    EXPECT_EQ(penalty->guard, GuardKind::off_by_default) << penalty->guard_note;
    EXPECT_EQ(penalty->severity, Severity::minor);
    // a command of the repository that passes the option turns the branch on
    d.write("run.sh", "python clustergan.py --wass_flag\n");
    const ScanResult on = scan_dir(d);
    const Finding* turned = find(on, "cuda-method-call", "clustergan.py");
    ASSERT_NE(turned, nullptr);
    EXPECT_EQ(turned->guard, GuardKind::none) << turned->guard_note;
    EXPECT_EQ(turned->severity, Severity::major);
}

TEST(ProgramModel, NamespacePackagesAreFollowed) {
    // RWKV-v2-RNN/train.py: `from src.model import GPT` with no src/__init__.py (a namespace package)
    test::TempDir d;
    d.write("v2/train.py", "import torch\nfrom src.model import GPT\n\nif __name__ == \"__main__\":\n    GPT()\n");
    d.write("v2/src/model.py", "import triton\n\n\nclass GPT:\n    pass\n");
    d.write("scripts/run_model.py", "from ldm.models.plms import Sampler\n\nif __name__ == \"__main__\":\n    Sampler()\n");
    d.write("ldm/models/plms.py", "import torch\n\n\nclass Sampler:\n    def __init__(self):\n        self.x = torch.ones(2).cuda()\n");
    const ScanResult r = scan_dir(d);
    const Finding* model = find(r, "cuda-only-package-import", "v2/src/model.py");
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(model->reach, Reach::core) << model->note;
    EXPECT_EQ(model->chain, (std::vector<std::string>{"v2/train.py:2", "v2/src/model.py:1"}));
    const Finding* plms = find(r, "cuda-method-call", "ldm/models/plms.py");
    ASSERT_NE(plms, nullptr);
    EXPECT_EQ(plms->reach, Reach::core) << plms->note;
}


// A function handed to a call runs where that call runs: vq-vae-2's distributed_worker, passed to
// mp.spawn only under `if world_size > 1:`, is behind the distributed gate; handed to an unguarded
// call it keeps its weight.
TEST(ProgramModel, AFunctionPassedToAGuardedCallTakesItsGuard) {
    test::TempDir d;
    d.write("launch.py", "import torch\nimport torch.multiprocessing as mp\n\n\n"
                         "def worker(rank, fn):\n    torch.cuda.set_device(rank)\n    fn()\n\n\n"
                         "def launch(fn, world_size):\n    if world_size > 1:\n        mp.spawn(worker, nprocs=world_size, args=(fn,))\n"
                         "    else:\n        fn()\n");
    d.write("train.py", "from launch import launch\n\n\ndef main():\n    pass\n\n\nif __name__ == '__main__':\n    launch(main, 1)\n");
    ScanResult r = scan_dir(d);
    const Finding* gated = find(r, "torch-cuda-device-management", "launch.py");
    ASSERT_NE(gated, nullptr);
    EXPECT_EQ(gated->guard, GuardKind::distributed_gate) << gated->guard_note;
    EXPECT_EQ(gated->severity, Severity::info);

    d.write("launch.py", "import torch\nimport torch.multiprocessing as mp\n\n\n"
                         "def worker(rank, fn):\n    torch.cuda.set_device(rank)\n    fn()\n\n\n"
                         "def launch(fn, world_size):\n    mp.spawn(worker, nprocs=world_size, args=(fn,))\n");
    r = scan_dir(d);
    const Finding* plain = find(r, "torch-cuda-device-management", "launch.py");
    ASSERT_NE(plain, nullptr);
    EXPECT_EQ(plain->guard, GuardKind::none) << plain->guard_note;
}

// The .cuda() in `bound` is info, its note saying `why`; the one in `portable` keeps tooling's minor.
void expect_cuda_bound(const ScanResult& r, const char* bound_path, const char* portable_path, const std::string& why) {
    const Finding* bound = find(r, "cuda-method-call", bound_path);
    const Finding* portable = find(r, "cuda-method-call", portable_path);
    ASSERT_NE(bound, nullptr) << bound_path;
    ASSERT_NE(portable, nullptr) << portable_path;
    EXPECT_EQ(bound->severity, Severity::info) << bound->note;
    EXPECT_NE(bound->note.find(why), std::string::npos) << bound->note;
    EXPECT_EQ(portable->severity, Severity::minor) << portable->note;
}

// A test that cannot be imported without CUDA (it imports, on load, a module of the repository that
// imports Triton on load) has nothing to port: its .cuda() is info, with the chain in the note; a test
// that imports Triton only under try/except keeps tooling's minor.
TEST(ProgramModel, ATestThatNeedsCudaToLoadIsInfo) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/kernels.py", "import triton\n\n\ndef add(x):\n    return x\n");
    d.write("train.py", "import torch\n\nif __name__ == '__main__':\n    torch.ones(2).sum()\n");
    d.write("tests/test_kernels.py", "import torch\nfrom pkg.kernels import add\n\n\ndef test_add():\n    add(torch.ones(2).cuda())\n");
    d.write("tests/test_portable.py", "import torch\ntry:\n    import triton\nexcept ImportError:\n    triton = None\n\n\n"
                                      "def test_ones():\n    torch.ones(2).cuda()\n");
    expect_cuda_bound(scan_dir(d), "tests/test_kernels.py", "tests/test_portable.py",
                      "imports pkg/kernels.py, which needs triton (pkg/kernels.py:1) to load");
}

// A helper that only such a test imports (boltz's tests/profiling.py, used by nothing but
// tests/test_kernels.py, which imports triton) runs nowhere a Mac can reach: its .cuda() is info too.
// A helper that a portable test imports as well keeps tooling's minor.
TEST(ProgramModel, AHelperOnlyACudaBoundTestImportsIsInfo) {
    test::TempDir d;
    d.write("train.py", "import torch\n\nif __name__ == '__main__':\n    torch.ones(2).sum()\n");
    d.write("tests/test_kernels.py", "import torch\nimport triton\nfrom profiling import clear_memory\n\n\n"
                                     "def test_speed():\n    clear_memory(torch.ones(2))\n");
    d.write("tests/profiling.py", "import torch\n\n\ndef clear_memory(x):\n    return x.cuda()\n");
    d.write("tests/helpers.py", "import torch\n\n\ndef on_gpu(x):\n    return x.cuda()\n");
    d.write("tests/test_ops.py", "import torch\nimport triton\nfrom helpers import on_gpu\n\n\ndef test_one():\n    on_gpu(torch.ones(2))\n");
    d.write("tests/test_plain.py", "import torch\nfrom helpers import on_gpu\n\n\ndef test_two():\n    on_gpu(torch.ones(2))\n");
    expect_cuda_bound(scan_dir(d), "tests/profiling.py", "tests/helpers.py",
                      "is imported only by tests/test_kernels.py, which needs triton (tests/test_kernels.py:2) to load");
}

// vjepa2's app/scaffold.py runs `importlib.import_module(f"app.{app}.train")`: the run imports one of
// the modules the pattern names, whichever its config picks; each is reached, through the scaffold.
// A module the pattern does not name (app/vjepa/eval.py) stays unreached.
TEST(ProgramModel, AnImportModuleOfAnFStringReachesTheModulesItsPatternNames) {
    test::TempDir d;
    d.write("app/main.py", "from app.scaffold import main as app_main\n\nif __name__ == '__main__':\n    app_main('vjepa', {})\n");
    d.write("app/scaffold.py", "import importlib\n\n\ndef main(app, args):\n    return importlib.import_module(f\"app.{app}.train\").main(args=args)\n");
    const std::string body = "import torch\n\n\ndef main(args):\n    torch.ones(2).cuda()\n";
    d.write("app/vjepa/train.py", body);
    d.write("app/droid/train.py", body);
    d.write("app/vjepa/eval.py", body);
    const ScanResult r = scan_dir(d);
    for (const char* path : {"app/vjepa/train.py", "app/droid/train.py"}) {
        const Finding* f = find(r, "cuda-method-call", path);
        ASSERT_NE(f, nullptr) << path;
        EXPECT_EQ(f->reach, Reach::core) << path << " " << f->note;
        ASSERT_EQ(f->chain.size(), 3u) << path;
        EXPECT_EQ(f->chain[1], "app/scaffold.py:5");
    }
    const Finding* other = find(r, "cuda-method-call", "app/vjepa/eval.py");
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(other->reach, Reach::unreached) << other->note;
}

// A test whose file name says it checks CUDA itself (BigVGAN's tests/test_cuda_vs_torch_model.py) has
// nothing a Mac runs: info. One named for the GPU in general keeps tooling's minor, and so does a
// training script named for CUDA (it is the run, not a test).
TEST(ProgramModel, ATestNamedForCudaIsInfo) {
    test::TempDir d;
    d.write("train.py", "import torch\n\nif __name__ == '__main__':\n    torch.ones(2).sum()\n");
    d.write("tests/test_cuda_vs_torch_model.py", "import torch\n\n\ndef test_same():\n    torch.ones(2).cuda()\n");
    d.write("tests/test_gpu.py", "import torch\n\n\ndef test_ones():\n    torch.ones(2).cuda()\n");
    d.write("train_cuda.py", "import torch\n\nif __name__ == '__main__':\n    torch.ones(2).cuda()\n");
    const ScanResult r = scan_dir(d);
    expect_cuda_bound(r, "tests/test_cuda_vs_torch_model.py", "tests/test_gpu.py", "its file name says `cuda`");
    const Finding* run = find(r, "cuda-method-call", "train_cuda.py");
    ASSERT_NE(run, nullptr);
    EXPECT_EQ(run->severity, Severity::major) << run->note;
}

// A side folder named for CUDA itself (CosyVoice's runtime/triton_trtllm/, a Triton Inference Server
// deployment on TensorRT engines): what of it is tooling or reached by nothing is info. Code the run
// reaches in such a folder keeps its weight.
TEST(ProgramModel, ASideFolderNamedForCudaIsInfo) {
    test::TempDir d;
    d.write("tts/__init__.py", "");
    d.write("tts/model.py", "import torch\n\n\ndef speak(x):\n    return torch.ones(2).to('cuda')\n");
    d.write("tts/triton_ops/__init__.py", "");
    d.write("tts/triton_ops/fused.py", "import torch\n\n\ndef fused(x):\n    return x.cuda()\n");
    d.write("tts/cli.py", "from tts.model import speak\nfrom tts.triton_ops.fused import fused\n\nif __name__ == '__main__':\n    fused(speak(1))\n");
    d.write("runtime/triton_trtllm/model_repo/token2wav/1/model.py", "import torch\n\n\ndef execute(x):\n    return x.to('cuda')\n");
    d.write("runtime/triton_trtllm/scripts/bench.py", "import torch\n\n\ndef test_speed():\n    torch.ones(2).cuda()\n");
    d.write("runtime/python/model.py", "import torch\n\n\ndef execute(x):\n    return x.to('cuda')\n");
    const ScanResult r = scan_dir(d);
    const Finding* unreached = find(r, "hardcoded-cuda-device", "runtime/triton_trtllm/model_repo/token2wav/1/model.py");
    ASSERT_NE(unreached, nullptr);
    EXPECT_EQ(unreached->reach, Reach::unreached) << unreached->note;
    EXPECT_EQ(unreached->severity, Severity::info) << unreached->note;
    EXPECT_NE(unreached->note.find("its folder runtime/triton_trtllm/ says `triton`"), std::string::npos) << unreached->note;
    const Finding* other = find(r, "hardcoded-cuda-device", "runtime/python/model.py");
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(other->reach, Reach::unreached) << other->note;
    EXPECT_NE(other->severity, Severity::info) << other->note;
    const Finding* reached = find(r, "cuda-method-call", "tts/triton_ops/fused.py");
    ASSERT_NE(reached, nullptr);
    EXPECT_EQ(reached->reach, Reach::core) << reached->note;
    EXPECT_EQ(reached->severity, Severity::major) << reached->note;

    // A program of its own there, beside the main one (CosyVoice's token2wav_dit.py, the Triton
    // server's model script, judged info in the sample of seed 20261209): info as well.
    d.write("pyproject.toml", "[project]\nname = \"tts\"\n\n[project.scripts]\ntts = \"tts.cli:main\"\n");
    d.write("runtime/triton_trtllm/README.md", "# Triton server\n\n    python runtime/triton_trtllm/serve.py\n");
    d.write("runtime/triton_trtllm/serve.py", "import torch\n\nif __name__ == '__main__':\n    torch.ones(2).cuda()\n");
    const ScanResult with_server = scan_dir(d);
    const Finding* server = find(with_server, "cuda-method-call", "runtime/triton_trtllm/serve.py");
    ASSERT_NE(server, nullptr);
    EXPECT_EQ(server->reach, Reach::optional) << server->note;
    EXPECT_NE(server->note.find("a program of its own in runtime/triton_trtllm/"), std::string::npos) << server->note;
    EXPECT_EQ(server->severity, Severity::info) << server->note;
    EXPECT_EQ(server->impact, VerdictImpact::none) << server->note;
}

// An example of multi-GPU training itself (lightly's examples/pytorch_lightning_distributed/, the DDP
// twins of its single-device examples): a Mac has one GPU and runs the twins, so its findings are info.
// The single-device example keeps tooling's minor.
TEST(ProgramModel, AnExampleFolderNamedForDistributedTrainingIsInfo) {
    test::TempDir d;
    d.write("lightly/__init__.py", "import torch\n");
    d.write("setup.py", "from setuptools import setup\nsetup(name='lightly', packages=['lightly'])\n");
    const std::string example = "import pytorch_lightning as pl\nimport torch\n\nif __name__ == '__main__':\n"
                                "    trainer = pl.Trainer(max_epochs=10, devices=DEVICES, accelerator='gpu', strategy='ddp')\n"
                                "    torch.ones(2).cuda()\n";
    d.write("examples/pytorch_lightning_distributed/simclr.py", example);
    d.write("examples/pytorch_lightning/simclr.py", example);
    const ScanResult r = scan_dir(d);
    const Finding* ddp = find(r, "lightning-ddp-strategy", "examples/pytorch_lightning_distributed/simclr.py");
    ASSERT_NE(ddp, nullptr);
    EXPECT_EQ(ddp->reach, Reach::tooling) << ddp->note;
    EXPECT_EQ(ddp->severity, Severity::info) << ddp->note;
    EXPECT_NE(ddp->note.find("its folder examples/pytorch_lightning_distributed/ says `distributed`"), std::string::npos) << ddp->note;
    const Finding* single = find(r, "cuda-method-call", "examples/pytorch_lightning/simclr.py");
    ASSERT_NE(single, nullptr);
    EXPECT_EQ(single->severity, Severity::minor) << single->note;
}

// The same for a compiled module of the repository's own that only builds with CUDA: a test of
// flash-attention's fused_dense_lib cannot be imported on a Mac. A test of an extension that also
// has a C++ build (CppExtension unless CUDA is there) keeps tooling's minor.
TEST(ProgramModel, ATestOfACudaOnlyExtensionIsInfo) {
    test::TempDir d;
    d.write("setup.py", "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension, CppExtension\n"
                        "import torch\n\next = CppExtension\nif torch.cuda.is_available():\n    ext = CUDAExtension\n\n"
                        "setup(name='pkg', ext_modules=[\n    CUDAExtension('fused_lib', ['csrc/fused.cu']),\n"
                        "    ext('portable_lib', ['csrc/portable.cpp']),\n])\n");
    d.write("pkg/__init__.py", "");
    d.write("pkg/fused.py", "import fused_lib\n\n\ndef linear(x):\n    return fused_lib.linear(x)\n");
    d.write("pkg/portable.py", "import portable_lib\n\n\ndef norm(x):\n    return portable_lib.norm(x)\n");
    d.write("train.py", "import torch\n\nif __name__ == '__main__':\n    torch.ones(2).sum()\n");
    d.write("tests/test_fused.py", "import torch\nfrom pkg.fused import linear\n\n\ndef test_linear():\n    linear(torch.ones(2).cuda())\n");
    d.write("tests/test_portable.py", "import torch\nfrom pkg.portable import norm\n\n\ndef test_norm():\n    norm(torch.ones(2).cuda())\n");
    expect_cuda_bound(scan_dir(d), "tests/test_fused.py", "tests/test_portable.py",
                      "imports pkg/fused.py, which needs the CUDA extension fused_lib (pkg/fused.py:1) to load");
}

// NVIDIA/BigVGAN's alias_free_activation/cuda/activation1d.py calls `load.load()` at module level,
// and load() JIT-builds a CUDA-only extension: importing activation1d builds it, so a test that imports
// activation1d cannot load on a Mac (its .cuda() is info, the chain in its note). A test that calls
// load.load() only in its `if __name__ == "__main__":` block still imports, and keeps tooling's minor.
TEST(ProgramModel, ATestOfAModuleThatBuildsACudaExtensionOnImportIsInfo) {
    test::TempDir d;
    d.write("kernels/__init__.py", "");
    d.write("kernels/load.py", "import pathlib\nfrom torch.utils import cpp_extension\n\n\ndef load():\n"
                               "    srcpath = pathlib.Path(__file__).parent.absolute()\n\n"
                               "    def _load_helper(name, sources):\n"
                               "        return cpp_extension.load(name=name, sources=sources, extra_cuda_cflags=['-O3'])\n\n"
                               "    return _load_helper('act_cuda', [srcpath / 'act.cpp', srcpath / 'act_cuda.cu'])\n");
    d.write("kernels/activation.py", "from kernels import load\n\nact_cuda = load.load()\n");
    d.write("train.py", "import torch\n\nif __name__ == '__main__':\n    torch.ones(2).sum()\n");
    d.write("tests/test_fused.py", "import torch\nfrom kernels import activation\n\n\ndef test_fused():\n    torch.ones(2).cuda()\n");
    d.write("tests/test_portable.py", "import torch\n\n\ndef test_plain():\n    torch.ones(2).cuda()\n\n\n"
                                      "if __name__ == '__main__':\n    from kernels import load\n    load.load()\n    test_plain()\n");
    expect_cuda_bound(scan_dir(d), "tests/test_fused.py", "tests/test_portable.py",
                      "imports kernels/activation.py, which needs the CUDA extension act_cuda (kernels/load.py:9), which its call of "
                      "kernels.load.load() at kernels/activation.py:3 builds");
}

// A package that does not even install on macOS (packages: imports_on_mac: false), though the
// repository could do without it (tensorrt's weight is dual): a test importing it cannot load on a Mac
// either, and neither can a program of its own beside the training run (HunyuanDiT's TensorRT-LLM
// runner, mllm/trtllm/run.py). Their .cuda() calls are info; the same call in a program beside the run
// with no such import keeps its weight, and so does the training run's own, though it imports tensorrt:
// once the import is replaced, that call is an edit. The test's import itself is info too (the Mac
// leaves the file out); the side program's keeps its weight (that program needs the package).
TEST(ProgramModel, FilesBesideTheRunThatCannotLoadOnAMacAreInfo) {
    test::TempDir d;
    d.write("README.md", "# demo\n\nTrain with `python train.py`. Serving: see [serve](serve/) and [export](export/).\n");
    d.write("train.py", "import torch\nimport tensorrt\n\n\ndef main():\n    model = torch.nn.Linear(2, 2).cuda()\n    "
                        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n    model(torch.ones(2)).sum().backward()\n    opt.step()\n    "
                        "return tensorrt.Builder\n\n\nif __name__ == '__main__':\n    main()\n");
    d.write("serve/README.md", "# serving\n\n`python serve/run.py`\n");
    d.write("serve/run.py", "import torch\nimport tensorrt_llm\n\n\ndef main():\n    model = torch.nn.Linear(2, 2).cuda()\n    "
                            "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n    model(torch.ones(2)).sum().backward()\n    opt.step()\n    "
                            "return tensorrt_llm.LLM\n\n\nif __name__ == '__main__':\n    main()\n");
    d.write("export/README.md", "# export\n\n`python export/run.py`\n");
    d.write("export/run.py", "import torch\n\n\ndef main():\n    model = torch.nn.Linear(2, 2).cuda()\n    "
                             "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n    model(torch.ones(2)).sum().backward()\n    opt.step()\n\n\n"
                             "if __name__ == '__main__':\n    main()\n");
    d.write("tests/test_engine.py", "import torch\nimport tensorrt\n\n\ndef test_engine():\n    torch.ones(2).cuda()\n");
    const ScanResult r = scan_dir(d);
    const Finding* runner = find(r, "cuda-method-call", "serve/run.py");
    ASSERT_NE(runner, nullptr);
    EXPECT_EQ(runner->severity, Severity::info) << runner->note;
    EXPECT_NE(runner->note.find("it imports tensorrt_llm (serve/run.py:2)"), std::string::npos) << runner->note;
    const Finding* test = find(r, "cuda-method-call", "tests/test_engine.py");
    ASSERT_NE(test, nullptr);
    EXPECT_EQ(test->severity, Severity::info) << test->note;
    const Finding* other = find(r, "cuda-method-call", "export/run.py");
    ASSERT_NE(other, nullptr);
    EXPECT_GT(other->severity, Severity::info) << other->note;
    const Finding* run = find(r, "cuda-method-call", "train.py");
    ASSERT_NE(run, nullptr);
    EXPECT_GT(run->severity, Severity::info) << run->note;
    const Finding* import = find(r, "cuda-only-package-import", "serve/run.py");
    ASSERT_NE(import, nullptr);
    EXPECT_EQ(import->subject, "tensorrt_llm");
    EXPECT_GT(import->severity, Severity::info) << import->note;
    // in the test, the import only says the Mac leaves the file out
    const Finding* test_import = find(r, "cuda-only-package-import", "tests/test_engine.py");
    ASSERT_NE(test_import, nullptr);
    EXPECT_EQ(test_import->severity, Severity::info) << test_import->note;
    EXPECT_NE(test_import->note.find("tensorrt does not install on macOS"), std::string::npos) << test_import->note;
}

// Cog (Replicate) builds a Linux container and runs the predictor its cog.yaml names (VoiceCraft's
// predict.py; min-dalle's replicate/cog.yaml naming replicate/predictor.py beside it): its CUDA devices
// are the container's, info. A script the cog.yaml does not name keeps its weight, and a cog.yaml that
// does not parse names nothing and stops nothing.
TEST(ProgramModel, TheCogPredictorRunsInALinuxContainer) {
    test::TempDir d;
    const std::string predictor = "import torch\nfrom cog import BasePredictor\n\n\nclass Predictor(BasePredictor):\n"
                                  "    def setup(self):\n        self.model = torch.nn.Linear(2, 2).to('cuda:0')\n";
    d.write("cog.yaml", "build:\n  gpu: true\n  python_version: \"3.10\"\npredict: \"predict.py:Predictor\"\n");
    d.write("predict.py", predictor);
    d.write("replicate/cog.yaml", "build:\n  gpu: true\npredict: \"predictor.py:Predictor\"\n");
    d.write("replicate/predictor.py", predictor);
    d.write("broken/cog.yaml", "build: [gpu: true\npredict: \"other.py:Predictor\"\n");
    d.write("broken/other.py", predictor);
    d.write("demo.py", predictor + "\n\nif __name__ == '__main__':\n    Predictor().setup()\n");
    const ScanResult r = scan_dir(d);
    for (const char* path : {"predict.py", "replicate/predictor.py"}) {
        const Finding* f = find(r, "hardcoded-cuda-device", path);
        ASSERT_NE(f, nullptr) << path;
        EXPECT_EQ(f->severity, Severity::info) << path << ": " << f->note;
        EXPECT_NE(f->note.find("Cog runs it in a Linux container"), std::string::npos) << f->note;
    }
    for (const char* path : {"broken/other.py", "demo.py"}) {
        const Finding* f = find(r, "hardcoded-cuda-device", path);
        ASSERT_NE(f, nullptr) << path;
        EXPECT_EQ(f->note.find("Cog"), std::string::npos) << path << ": " << f->note;
    }
    const Finding* demo = find(r, "hardcoded-cuda-device", "demo.py");
    EXPECT_GT(demo->severity, Severity::info) << demo->note;
    // The malformed one is named among the skipped files, with the line YAML stopped at.
    const auto skipped = std::find_if(r.skipped.begin(), r.skipped.end(), [](const SkippedFile& s) { return s.path == "broken/cog.yaml"; });
    ASSERT_NE(skipped, r.skipped.end());
    EXPECT_NE(skipped->reason.find("broken/cog.yaml:"), std::string::npos) << skipped->reason;
    EXPECT_NE(skipped->reason.find("invalid YAML"), std::string::npos) << skipped->reason;
}

// KwaiVGI/LivePortrait: the cropper imports the animal-mode landmark runner only where the run picks
// that mode by name (`if self.image_type == "animal_face":`), and the runner's module needs a
// CUDA-only package on load. The module is optional through one arm of a choice: choosing the other
// (human) mode is the edit, no reason to keep a Linux GPU. Imported unconditionally, it is the run's.
TEST(ProgramModel, AModuleImportedOnlyForOneNamedModeIsNoVerdict) {
    test::TempDir d;
    d.write("src/__init__.py", "");
    d.write("src/animal_runner.py", "import flash_attn\n\n\nclass Runner:\n    pass\n");
    const std::string cropper_head = "import torch\n\n\nclass Cropper:\n    def __init__(self, image_type='human_face'):\n"
                                     "        self.image_type = image_type\n";
    d.write("src/cropper.py", cropper_head + "        if self.image_type == 'animal_face':\n            from src.animal_runner import Runner\n"
                                              "            self.runner = Runner()\n");
    d.write("inference.py", "from src.cropper import Cropper\n\nif __name__ == '__main__':\n    Cropper()\n");
    const ScanResult r = scan_dir(d);
    const Finding* fa = find(r, "cuda-only-package-import", "src/animal_runner.py");
    ASSERT_NE(fa, nullptr);
    EXPECT_EQ(fa->reach, Reach::optional) << fa->note;
    EXPECT_EQ(fa->impact, VerdictImpact::none) << fa->note;
    EXPECT_LE(fa->severity, Severity::minor) << fa->note;
    d.write("src/cropper.py", cropper_head + "        from src.animal_runner import Runner\n        self.runner = Runner()\n");
    const ScanResult always = scan_dir(d);
    EXPECT_EQ(find(always, "cuda-only-package-import", "src/animal_runner.py")->impact, VerdictImpact::stay);
}

// MzeroMiko/VMamba's analyze/ folder: scripts that measure a trained model (effective receptive field,
// throughput), run by the README as `python analyze/erf.py`, one of which imports mamba_ssm. They are
// not the training run: tooling, like benchmarks (guards.tooling.dirs). The training script is core.
TEST(ProgramModel, AnalysisScriptsAreTooling) {
    test::TempDir d;
    d.write("models/__init__.py", "");
    d.write("models/vmamba.py", "import torch\n\n\nclass VSSM(torch.nn.Module):\n    pass\n");
    d.write("main.py", "import torch\nfrom models.vmamba import VSSM\n\nif __name__ == '__main__':\n    VSSM().to('cuda')\n");
    d.write("analyze/erf.py", "import mamba_ssm\nfrom models.vmamba import VSSM\n\nif __name__ == '__main__':\n    print(VSSM(), mamba_ssm)\n");
    d.write("README.md", "```bash\npython main.py\npython analyze/erf.py\n```\n");
    const ScanResult r = scan_dir(d);
    const Finding* mamba = find(r, "cuda-only-package-import", "analyze/erf.py");
    ASSERT_NE(mamba, nullptr);
    EXPECT_EQ(mamba->reach, Reach::tooling) << mamba->note;
    EXPECT_EQ(mamba->impact, VerdictImpact::none) << mamba->note;
    EXPECT_EQ(assess(r.findings, nullptr, test::bundled_catalogue(), r.file_lines, &r).verdict, Verdict::migrate);
}

// A library that no script runs: its public subpackages are its API as much as the package is.
// nvdiffrast's own __init__.py imports nothing; users write `import nvdiffrast.torch as dr`, and only
// its sample programs (samples/, tooling) do so here. The subpackage's required CUDA-only extension
// is a core blocker, and the library stays on CUDA; a private subpackage is no API.
TEST(ProgramModel, ALibrarysPublicSubpackagesAreItsApi) {
    test::TempDir d;
    d.write("setup.py", "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n\n"
                        "setup(name='rastlib', packages=['rastlib', 'rastlib.torch'],\n"
                        "      ext_modules=[CUDAExtension('_rastlib_c', ['csrc/rasterize.cu'])])\n");
    d.write("csrc/rasterize.cu", "__global__ void rasterize_kernel(float* out) { out[threadIdx.x] = 0.f; }\n");
    d.write("rastlib/__init__.py", "__version__ = '1.0'\n");
    d.write("rastlib/torch/__init__.py", "from .ops import rasterize\n");
    d.write("rastlib/torch/ops.py", "import _rastlib_c\n\n\ndef rasterize(x):\n    return _rastlib_c.rasterize(x)\n");
    d.write("rastlib/_internal/__init__.py", "import triton\n");
    d.write("samples/torch/cube.py", "import torch\nimport rastlib.torch as dr\n\nif __name__ == '__main__':\n    dr.rasterize(torch.ones(2).cuda())\n");
    const ScanResult r = scan_dir(d);
    std::map<std::string, std::string> entries;
    for (const auto& e : r.program.entry_points) entries[e.path] = e.tooling ? "tooling" : e.why;
    EXPECT_EQ(entries["rastlib/torch/__init__.py"], "package API (a public subpackage of rastlib)");
    EXPECT_EQ(entries["samples/torch/cube.py"], "tooling");
    EXPECT_EQ(entries.count("rastlib/_internal/__init__.py"), 0u);
    bool core_blocker = false;
    for (const auto& f : r.findings)
        core_blocker = core_blocker || (f.reach == Reach::core && f.severity == Severity::blocker && f.impact == VerdictImpact::stay);
    EXPECT_TRUE(core_blocker);
    const Finding* internal = find(r, "cuda-only-package-import", "rastlib/_internal/__init__.py");
    ASSERT_NE(internal, nullptr);
    EXPECT_EQ(internal->reach, Reach::unreached);
}

// A repository of modules that no script runs and no manifest declares (PointTransformerV3: model.py
// beside a serialization/ package, which users copy or import): the top-level module is API as the
// package is, so its required CUDA-only package is a core blocker. A private module is no API.
TEST(ProgramModel, ATopLevelModuleBesideAPackageIsApiWhereNothingRuns) {
    test::TempDir d;
    d.write("model.py", "import torch\nimport spconv.pytorch as spconv\nfrom serialization import encode\n\n\n"
                        "class Net(torch.nn.Module):\n    def forward(self, x):\n        return encode(x)\n");
    d.write("serialization/__init__.py", "from .default import encode\n");
    d.write("serialization/default.py", "def encode(x):\n    return x\n");
    d.write("_scratch.py", "import triton\n");
    const ScanResult r = scan_dir(d);
    std::map<std::string, std::string> entries;
    for (const auto& e : r.program.entry_points) entries[e.path] = e.tooling ? "tooling" : e.why;
    EXPECT_EQ(entries["model.py"], "package API (no script or console entry point found)");
    EXPECT_EQ(entries.count("_scratch.py"), 0u);
    const Finding* spconv = find(r, "cuda-only-package-import", "model.py");
    ASSERT_NE(spconv, nullptr);
    EXPECT_EQ(spconv->reach, Reach::core) << spconv->note;
    EXPECT_EQ(spconv->impact, VerdictImpact::stay) << spconv->note;
    EXPECT_EQ(assess(r.findings, nullptr, test::bundled_catalogue(), r.file_lines, &r).verdict, Verdict::stay_on_cuda);
}

// RWKV's src/model.py JIT-loads "cuda/wkv_op.cpp" and "cuda/wkv_cuda.cu", paths relative to the folder
// train.py runs from, one above src/: they are linked there (the kernels are core, as the run needs
// them), while a kernel file nothing loads stays unreached.
TEST(ProgramModel, SourcesRelativeToTheFolderTheRunStartsInAreLinked) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("RWKV-v4/cuda/wkv_op.cpp", "#include <torch/extension.h>\nvoid cuda_forward(float* y);\n"
                                       "void forward(torch::Tensor y) { cuda_forward(y.data_ptr<float>()); }\n"
                                       "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"forward\", &forward); }\n");
    d.write("RWKV-v4/cuda/wkv_cuda.cu", "__global__ void wkv_kernel(float* y) { y[threadIdx.x] = 0.f; }\n"
                                        "void cuda_forward(float* y) { wkv_kernel<<<1, 32>>>(y); }\n");
    d.write("RWKV-v4/cuda/unused_cuda.cu", "__global__ void unused_kernel(float* y) { y[threadIdx.x] = 1.f; }\n");
    d.write("RWKV-v4/src/model.py", "import torch\nfrom torch.utils.cpp_extension import load\n\n"
                                    "wkv_cuda = load(name='wkv', sources=['cuda/wkv_op.cpp', 'cuda/wkv_cuda.cu'])\n\n\n"
                                    "def wkv(y):\n    return wkv_cuda.forward(y)\n");
    d.write("RWKV-v4/train.py", "import torch\nfrom src.model import wkv\n\nif __name__ == '__main__':\n    wkv(torch.ones(2))\n");
    const ScanResult r = scan_dir(d);
    const Finding* kernel = find(r, "cuda-kernel-source", "RWKV-v4/cuda/wkv_cuda.cu");
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->subject, "wkv") << kernel->note;
    EXPECT_EQ(kernel->reach, Reach::core) << kernel->note;
    const Finding* unused = find(r, "cuda-kernel-source", "RWKV-v4/cuda/unused_cuda.cu");
    ASSERT_NE(unused, nullptr);
    EXPECT_EQ(unused->reach, Reach::unreached);
}

// A header no extension lists belongs with the listed sources beside it: flash-attention's
// csrc/flash_attn/src/philox.cuh goes with the flash_fwd_*.cu of that folder, not with the extension
// whose sources are computed (its ROCm build), which owns only what nothing else claims. C++/CUDA
// that only tests build is info (reach_weights_by_file_kind); a Python test keeps tooling's minor.
TEST(ProgramModel, AHeaderGoesWithTheSourcesBesideIt) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("setup.py", "import glob\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n\n"
                        "IS_ROCM = False\next = []\nif IS_ROCM:\n"
                        "    ext.append(CUDAExtension(name='attn_cuda', sources=glob.glob('csrc/rocm/*.cu')))\n"
                        "else:\n    ext.append(CUDAExtension(name='attn_cuda', sources=['csrc/attn/attn_api.cpp', 'csrc/attn/src/fwd.cu']))\n"
                        "setup(name='attn', packages=['attn'], ext_modules=ext)\n");
    d.write("csrc/attn/src/helpers.cuh", "__device__ float scale(float x) { return x * 0.5f; }\n");
    d.write("csrc/attn/src/fwd.cu", "#include \"helpers.cuh\"\n__global__ void fwd_kernel(float* o) { o[threadIdx.x] = scale(1.f); }\n"
                                    "void fwd(float* o) { fwd_kernel<<<1, 32>>>(o); }\n");
    d.write("csrc/attn/attn_api.cpp", "#include <torch/extension.h>\nvoid fwd(float* o);\n"
                                      "torch::Tensor attend(torch::Tensor x) { fwd(x.data_ptr<float>()); return x; }\n"
                                      "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"attend\", &attend); }\n");
    d.write("attn/__init__.py", "import attn_cuda\n\n\ndef attend(x):\n    return attn_cuda.attend(x)\n");
    d.write("tests/cuda_helpers/probe.cu", "__global__ void probe_kernel(float* o) { o[threadIdx.x] = 1.f; }\n");
    d.write("tests/test_attn.py", "import torch\nimport attn\n\n\ndef test_attend():\n    attn.attend(torch.ones(2).cuda())\n");
    const ScanResult r = scan_dir(d);
    const Finding* helper = find(r, "cuda-device-function", "csrc/attn/src/helpers.cuh");
    ASSERT_NE(helper, nullptr);
    EXPECT_EQ(helper->subject, "attn_cuda") << helper->note;
    EXPECT_EQ(helper->reach, Reach::core) << helper->note;
    const Finding* probe = find(r, "cuda-kernel-source", "tests/cuda_helpers/probe.cu");
    ASSERT_NE(probe, nullptr);
    EXPECT_EQ(probe->reach, Reach::tooling);
    EXPECT_EQ(probe->severity, Severity::info) << probe->note;
}

// torch-ngp's and stable-dreamfusion's encoders: each folder has its own setup.py, whose sources are a
// comprehension that joins a folder to each file (`os.path.join(_src_path, 'src', f) for f in [...]`).
// The sources are linked to the extension through that folder; and a package declared by a setup.py
// inside its own folder is a component of the application that main.py runs, not a library whose
// API is an entry point.
TEST(ProgramModel, SourcesJoinedToAFolderInAComprehensionAreLinked) {
    test::TempDir d;
    d.write("encoder/setup.py", "import os\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n\n"
                                "_src_path = os.path.dirname(os.path.abspath(__file__))\n\n"
                                "setup(name='encoder', ext_modules=[CUDAExtension(name='_encoder',\n"
                                "    sources=[os.path.join(_src_path, 'src', f) for f in ['encoder.cu', 'bindings.cpp']])])\n");
    d.write("encoder/src/encoder.cu", "__global__ void encode_kernel(float* out) { out[threadIdx.x] = 0.f; }\n");
    d.write("encoder/src/bindings.cpp", "#include <torch/extension.h>\ntorch::Tensor encode_cuda(torch::Tensor x);\n"
                                        "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"encode\", &encode_cuda); }\n");
    d.write("encoder/__init__.py", "from .enc import encode\n");
    d.write("encoder/enc.py", "import _encoder as _backend\n\n\ndef encode(x):\n    return _backend.encode(x)\n");
    d.write("unused/setup.py", "from setuptools import setup\nsetup(name='unused')\n");
    d.write("unused/__init__.py", "import triton\n");
    d.write("main.py", "import torch\nfrom encoder import encode\n\nif __name__ == '__main__':\n    encode(torch.ones(2))\n");
    const ScanResult r = scan_dir(d);
    const Finding* kernel = find(r, "cuda-kernel-source", "encoder/src/encoder.cu");
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->subject, "_encoder") << kernel->note;
    EXPECT_EQ(kernel->reach, Reach::core) << kernel->note;
    const Finding* op = find(r, "cuda-only-extension-op", "encoder/src/bindings.cpp");
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->reach, Reach::core) << op->note;
    EXPECT_EQ(op->impact, VerdictImpact::stay) << op->note;
    for (const auto& e : r.program.entry_points) {
        EXPECT_NE(e.path, "encoder/__init__.py") << e.why;
        EXPECT_NE(e.path, "unused/__init__.py") << e.why;
    }
    const Finding* unused = find(r, "cuda-only-package-import", "unused/__init__.py");
    ASSERT_NE(unused, nullptr);
    EXPECT_EQ(unused->reach, Reach::unreached);

    // Their import falls back to a just-in-time build of the very same .cu files: no fallback at all,
    // the op stays required (torch-ngp's gridencoder, judged a blocker).
    d.write("encoder/backend.py", "import os\nfrom torch.utils.cpp_extension import load\n\n"
                                  "_src_path = os.path.dirname(os.path.abspath(__file__))\n"
                                  "_backend = load(name='_encoder_jit', sources=[os.path.join(_src_path, 'src', f) for f in ['encoder.cu', 'bindings.cpp']])\n");
    d.write("encoder/enc.py", "try:\n    import _encoder as _backend\nexcept ImportError:\n    from .backend import _backend\n\n\n"
                              "def encode(x):\n    return _backend.encode(x)\n");
    const ScanResult jit = scan_dir(d);
    const Finding* required = find(jit, "cuda-extension-build", "encoder/setup.py");
    ASSERT_NE(required, nullptr);
    EXPECT_EQ(required->reach, Reach::core) << required->note;
    EXPECT_EQ(required->impact, VerdictImpact::stay) << required->note;
    // a fallback to something else keeps the extension optional
    d.write("encoder/backend.py", "def _encode(x):\n    return x\n\n\nclass _backend:\n    encode = staticmethod(_encode)\n");
    const ScanResult real_fallback = scan_dir(d);
    const Finding* optional = find(real_fallback, "cuda-extension-build", "encoder/setup.py");
    ASSERT_NE(optional, nullptr);
    EXPECT_EQ(optional->reach, Reach::optional) << optional->note;
}

// C++/CUDA that no extension of the Python side names, built by CMake, while the package imports a
// compiled module of its own (gsplat's `from gsplat import csrc as _C`): which ops the run calls is
// not known, so its kernels are dual-track at most, but nothing shows the run can do without them:
// they keep minor, not the info of an optional extension's kernels.
TEST(ProgramModel, KernelsLinkedOnlyByAnOwnCompiledModuleKeepTheirWeight) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("CMakeLists.txt", "project(geo LANGUAGES CXX CUDA)\nadd_library(geo_C MODULE csrc/raster.cu)\n");
    d.write("csrc/raster.cu", "__global__ void raster_kernel(float* out) { out[threadIdx.x] = 0.f; }\n");
    d.write("geo/__init__.py", "from geo import _C\n\n\ndef raster(x):\n    return _C.raster(x)\n");
    d.write("train.py", "import torch\nimport geo\n\nif __name__ == '__main__':\n    geo.raster(torch.ones(2))\n");
    const ScanResult r = scan_dir(d);
    const Finding* kernel = find(r, "cuda-kernel-source", "csrc/raster.cu");
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->reach, Reach::optional) << kernel->note;
    EXPECT_EQ(kernel->guard, GuardKind::none);
    EXPECT_EQ(kernel->severity, Severity::minor) << kernel->note;
    EXPECT_EQ(kernel->impact, VerdictImpact::dual) << kernel->note;
}

// safari's `from src.dataloaders.datasets.sc import _SpeechCommands` names a class its module file
// defines (a CapWords name, PEP 8), not a compiled module of its own, and wenet's `_isAllAlpha` a
// function (camelCase): CUDA sources that no extension names stay unlinked (unreached), where `_C`
// would link them.
TEST(ProgramModel, AnUnderscoredClassNameIsNoCompiledModule) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("CMakeLists.txt", "project(fft LANGUAGES CXX CUDA)\nadd_library(fft_C MODULE csrc/fft.cu)\n");
    d.write("csrc/fft.cu", "__global__ void fft_kernel(float* out) { out[threadIdx.x] = 0.f; }\n");
    d.write("src/data/__init__.py", "");
    d.write("src/data/base.py", "import torch\n");
    d.write("src/data/sc.py", "from src.data import base\n\n\nclass _SpeechCommands:\n    pass\n");
    auto kernel_reach = [&](const std::string& name) {
        d.write("train.py", "import torch\nfrom src.data.sc import " + name + "\n\nif __name__ == '__main__':\n    " + name + "()\n");
        const ScanResult r = scan_dir(d);
        const Finding* kernel = find(r, "cuda-kernel-source", "csrc/fft.cu");
        return kernel ? kernel->reach : Reach::core;
    };
    EXPECT_EQ(kernel_reach("_SpeechCommands"), Reach::unreached);
    EXPECT_EQ(kernel_reach("_C"), Reach::optional);
    // nor is a camelCase name, a function's (wenet's `from wenet.models.paraformer.search import _isAllAlpha`)
    EXPECT_EQ(kernel_reach("_isAllAlpha"), Reach::unreached);
}

// A package for scale or speed imported straight in a function that the run calls only in one branch
// of each caller (litgpt's instantiate_bnb_optimizer(), under `if isinstance(precision,
// BitsandbytesPrecision):`) is imported on demand: info, one arm of a choice. A test's unconditional
// call says nothing about the run; one unconditional call from the run keeps the package's weight.
TEST(ProgramModel, AScaleOrSpeedPackageImportedByAFunctionCalledOnlyInBranchesIsInfo) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/utils.py", "import torch\n\n\ndef paged_adam(params):\n    import bitsandbytes as bnb\n    return bnb.optim.PagedAdamW(params)\n");
    d.write("train.py", "import torch\nfrom pkg.utils import paged_adam\n\n\ndef main(quantize):\n    model = torch.nn.Linear(2, 2)\n"
                        "    if quantize == 'bnb':\n        opt = paged_adam(model.parameters())\n    else:\n"
                        "        opt = torch.optim.AdamW(model.parameters())\n    return opt\n\n\nif __name__ == '__main__':\n    main(None)\n");
    d.write("tests/test_utils.py", "import torch\nfrom pkg.utils import paged_adam\n\n\ndef test_paged():\n"
                                  "    paged_adam(torch.nn.Linear(2, 2).parameters())\n");
    const ScanResult r = scan_dir(d);
    const Finding* bnb = find(r, "cuda-only-package-import", "pkg/utils.py");
    ASSERT_NE(bnb, nullptr);
    EXPECT_EQ(bnb->severity, Severity::info) << bnb->note;
    EXPECT_EQ(bnb->impact, VerdictImpact::none) << bnb->note;
    EXPECT_EQ(bnb->guard, GuardKind::alternative_branch) << bnb->guard_note;
    EXPECT_NE(bnb->guard_note.find("train.py:8 in `if quantize == 'bnb':`"), std::string::npos) << bnb->guard_note;
    // called unconditionally by the run: the package's own weight (major, dual-track)
    d.write("train.py", "import torch\nfrom pkg.utils import paged_adam\n\n\ndef main():\n    model = torch.nn.Linear(2, 2)\n"
                        "    return paged_adam(model.parameters())\n\n\nif __name__ == '__main__':\n    main()\n");
    const ScanResult always = scan_dir(d);
    bnb = find(always, "cuda-only-package-import", "pkg/utils.py");
    ASSERT_NE(bnb, nullptr);
    EXPECT_EQ(bnb->severity, Severity::major) << bnb->note;
    EXPECT_EQ(bnb->impact, VerdictImpact::dual) << bnb->note;
    // FastChat's load_exllama_model(): an ImportError handler that exits makes the package required
    // where the function runs (a blocker), and the function runs only under the run's option.
    d.write("pkg/utils.py", "import sys\n\n\ndef paged_adam(params):\n    try:\n        import exllamav2\n"
                            "    except ImportError:\n        sys.exit(-1)\n    return exllamav2.ExLlamaV2(params)\n");
    const ScanResult required = scan_dir(d);
    bnb = find(required, "cuda-only-package-import", "pkg/utils.py");
    ASSERT_NE(bnb, nullptr);
    EXPECT_EQ(bnb->impact, VerdictImpact::stay) << bnb->note;
    d.write("train.py", "import torch\nfrom pkg.utils import paged_adam\n\n\ndef main(quantize):\n    model = torch.nn.Linear(2, 2)\n"
                        "    if quantize == 'bnb':\n        return paged_adam(model.parameters())\n\n\nif __name__ == '__main__':\n    main(None)\n");
    const ScanResult on_demand = scan_dir(d);
    bnb = find(on_demand, "cuda-only-package-import", "pkg/utils.py");
    ASSERT_NE(bnb, nullptr);
    EXPECT_EQ(bnb->impact, VerdictImpact::none) << bnb->note;
    EXPECT_EQ(bnb->guard, GuardKind::alternative_branch) << bnb->guard_note;
    // FastChat's get_generate_stream_function(): the function is chosen, not called, in one branch
    // (`elif is_exllama: return generate_stream_exllama`); chosen so everywhere, it is on demand too.
    d.write("train.py", "import torch\nfrom pkg.utils import paged_adam\n\n\ndef pick(kind):\n    if kind == 'exllama':\n"
                        "        return paged_adam\n    elif kind == 'adam':\n        fn = torch.optim.AdamW\n    else:\n        fn = None\n    return fn\n\n\n"
                        "if __name__ == '__main__':\n    pick(None)\n");
    const ScanResult chosen = scan_dir(d);
    bnb = find(chosen, "cuda-only-package-import", "pkg/utils.py");
    ASSERT_NE(bnb, nullptr);
    EXPECT_EQ(bnb->impact, VerdictImpact::none) << bnb->note;
    EXPECT_EQ(bnb->guard, GuardKind::alternative_branch) << bnb->guard_note;
    EXPECT_NE(bnb->guard_note.find("train.py:7 in `if kind == 'exllama':`"), std::string::npos) << bnb->guard_note;
    // chosen outside any branch, the function is the run's: the exiting handler keeps it required
    d.write("train.py", "import torch\nfrom pkg.utils import paged_adam\n\n\ndef pick(kind):\n    fn = paged_adam\n    return fn\n\n\n"
                        "if __name__ == '__main__':\n    pick(None)\n");
    const ScanResult always_chosen = scan_dir(d);
    bnb = find(always_chosen, "cuda-only-package-import", "pkg/utils.py");
    ASSERT_NE(bnb, nullptr);
    EXPECT_EQ(bnb->impact, VerdictImpact::stay) << bnb->note;
}

// pyg's to_cugraph(): a function of the package's API imports cudf (a package with a CPU replacement),
// and only the tests call it. The training run never does: the package is on demand, info. Called by
// the run (`pkg.to_frame(...)`, through the package that re-exports it), it keeps the package's weight.
TEST(ProgramModel, AScaleOrSpeedPackageImportedByAnApiFunctionTheRunNeverCallsIsInfo) {
    test::TempDir d;
    d.write("pkg/__init__.py", "from .convert import to_frame\n");
    d.write("pkg/convert.py", "import torch\n\n\ndef to_frame(x):\n    import cudf\n    return cudf.DataFrame(x.cpu().numpy())\n");
    d.write("train.py", "import torch\nimport pkg\n\n\ndef main():\n    return torch.nn.Linear(2, 2)\n\n\nif __name__ == '__main__':\n    main()\n");
    d.write("tests/test_convert.py", "import torch\nfrom pkg import to_frame\n\n\ndef test_frame():\n    to_frame(torch.zeros(2))\n");
    const ScanResult r = scan_dir(d);
    const Finding* cudf = find(r, "cuda-only-package-import", "pkg/convert.py");
    ASSERT_NE(cudf, nullptr);
    EXPECT_EQ(cudf->impact, VerdictImpact::none) << cudf->note;
    EXPECT_EQ(cudf->severity, Severity::info) << cudf->note;
    EXPECT_NE(cudf->guard_note.find("no file of the run calls to_frame(); only tests/test_convert.py:6"), std::string::npos) << cudf->guard_note;
    EXPECT_EQ(assess(r.findings, nullptr, test::bundled_catalogue(), r.file_lines, &r).verdict, Verdict::migrate);
    // A class that only the tests build: a config may build it by name (PickScore's DeepSpeedAccelerator,
    // a Hydra `_target_`), which no parse of calls sees. It keeps the package's weight.
    d.write("pkg/convert.py", "import torch\n\n\nclass Frame:\n    def __init__(self, x):\n        import cudf\n        self.df = cudf.DataFrame(x)\n");
    d.write("pkg/__init__.py", "from .convert import Frame\n");
    d.write("tests/test_convert.py", "import torch\nfrom pkg import Frame\n\n\ndef test_frame():\n    Frame(torch.zeros(2))\n");
    const ScanResult built = scan_dir(d);
    cudf = find(built, "cuda-only-package-import", "pkg/convert.py");
    ASSERT_NE(cudf, nullptr);
    EXPECT_EQ(cudf->impact, VerdictImpact::dual) << cudf->note;
    d.write("pkg/__init__.py", "from .convert import to_frame\n");
    d.write("pkg/convert.py", "import torch\n\n\ndef to_frame(x):\n    import cudf\n    return cudf.DataFrame(x.cpu().numpy())\n");
    // the run calls it: the package's own weight (major, dual-track)
    d.write("train.py", "import torch\nimport pkg\n\n\ndef main():\n    return pkg.to_frame(torch.zeros(2))\n\n\nif __name__ == '__main__':\n    main()\n");
    d.write("tests/test_convert.py", "import torch\nfrom pkg import to_frame\n\n\ndef test_frame():\n    to_frame(torch.zeros(2))\n");
    const ScanResult called = scan_dir(d);
    cudf = find(called, "cuda-only-package-import", "pkg/convert.py");
    ASSERT_NE(cudf, nullptr);
    EXPECT_EQ(cudf->impact, VerdictImpact::dual) << cudf->note;
    EXPECT_EQ(cudf->severity, Severity::major) << cudf->note;
}

// accelerate's convert_model(): Transformer Engine imported in a function the run calls only in one
// arm of a choice (`if self.fp8_backend == FP8BackendType.TE:` beside the AO arm). Its benchmarks call
// it unguarded; they say nothing of when the training run does, which decides.
TEST(ProgramModel, TheRunsCallsDecideAGuardOverUnguardedBenchmarkCalls) {
    test::TempDir d;
    d.write("pkg/__init__.py", "from .accelerator import Accelerator\nfrom .te import convert_model\n");
    d.write("pkg/te.py", "def convert_model(model):\n    import transformer_engine.pytorch as te\n    return te.Linear(2, 2)\n");
    d.write("pkg/accelerator.py", "from enum import Enum\nfrom .te import convert_model\n\n\nclass Backend(Enum):\n    TE = 1\n    AO = 2\n\n\n"
                                  "class Accelerator:\n    def __init__(self, backend=None):\n        self.backend = backend\n\n"
                                  "    def prepare(self, model):\n        if self.backend == Backend.TE:\n            model = convert_model(model)\n"
                                  "        elif self.backend == Backend.AO:\n            model = model.float()\n        return model\n");
    d.write("train.py", "import torch\nfrom pkg import Accelerator\n\nif __name__ == '__main__':\n    Accelerator().prepare(torch.nn.Linear(2, 2))\n");
    d.write("benchmarks/fp8_te.py", "import torch\nfrom pkg import convert_model\n\nif __name__ == '__main__':\n    convert_model(torch.nn.Linear(2, 2))\n");
    const ScanResult r = scan_dir(d);
    const Finding* te = find(r, "cuda-only-package-import", "pkg/te.py");
    ASSERT_NE(te, nullptr);
    EXPECT_EQ(te->guard, GuardKind::alternative_branch) << te->guard_note;
    EXPECT_NE(te->impact, VerdictImpact::stay) << te->note;
    // the run calling it unguarded too: required
    d.write("train.py", "import torch\nfrom pkg import Accelerator, convert_model\n\nif __name__ == '__main__':\n"
                        "    Accelerator().prepare(convert_model(torch.nn.Linear(2, 2)))\n");
    const ScanResult required = scan_dir(d);
    te = find(required, "cuda-only-package-import", "pkg/te.py");
    ASSERT_NE(te, nullptr);
    EXPECT_EQ(te->impact, VerdictImpact::stay) << te->note;
}

// instant-ngp: CMake builds the Python module pyngp (`add_library(pyngp SHARED src/python_api.cu)`,
// then `pybind11_extension(pyngp)`), which the training script imports. The module is linked by its
// target's name, as a setup.py extension is: required by the run, a CUDA module is stay-on-CUDA; one
// of C++ sources alone (linking no target with .cu sources) builds on a Mac and is info.
TEST(ProgramModel, APythonModuleThatCMakeBuildsIsLinkedToItsImporters) {
    test::TempDir d;
    d.write("CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\nproject(ngp LANGUAGES CXX CUDA)\n"
                              "set(NGP_SOURCES src/testbed.cu src/common.cu)\nadd_library(ngp STATIC ${NGP_SOURCES})\n"
                              "if (Python_FOUND)\n  add_library(pyngp SHARED src/python_api.cpp)\n"
                              "  target_link_libraries(pyngp PRIVATE ngp PUBLIC pybind11::module)\n  pybind11_extension(pyngp)\nendif()\n"
                              "# pybind11_add_module(old src/old.cpp)\npybind11_add_module(cpuops src/cpu_ops.cpp)\n");
    d.write("src/python_api.cpp", "#include <pybind11/pybind11.h>\nPYBIND11_MODULE(pyngp, m) {}\n");
    d.write("src/cpu_ops.cpp", "#include <pybind11/pybind11.h>\nPYBIND11_MODULE(cpuops, m) {}\n");
    d.write("scripts/run.py", "import pyngp as ngp\nimport cpuops\n\n\nif __name__ == '__main__':\n    testbed = ngp.Testbed()\n    cpuops.run()\n");
    const ScanResult r = scan_dir(d);
    std::vector<const Finding*> modules;
    for (const auto& f : r.findings)
        if (f.rule_id == "cmake-python-module") modules.push_back(&f);
    ASSERT_EQ(modules.size(), 2u);
    const Finding* cuda = modules[0]->location.line == 8 ? modules[0] : modules[1];
    const Finding* cpp = cuda == modules[0] ? modules[1] : modules[0];
    EXPECT_EQ(cuda->location.line, 8);
    EXPECT_EQ(cuda->subject, "pyngp");
    EXPECT_EQ(cuda->reach, Reach::core) << cuda->note;
    EXPECT_EQ(cuda->impact, VerdictImpact::stay) << cuda->note;
    ASSERT_FALSE(cuda->chain.empty());
    EXPECT_EQ(cuda->chain.front(), "scripts/run.py:1");
    EXPECT_EQ(cpp->location.line, 11);
    EXPECT_EQ(cpp->severity, Severity::info) << cpp->note;
    EXPECT_NE(cpp->note.find("cpuops has no .cu source"), std::string::npos) << cpp->note;
    EXPECT_EQ(assess(r.findings, nullptr, test::bundled_catalogue(), r.file_lines, &r).verdict, Verdict::stay_on_cuda);
    // nothing imports it: as for a setup.py extension, a module imported from nowhere we can see is
    // taken as needed, and the note says so
    d.write("scripts/run.py", "import cpuops\n\n\nif __name__ == '__main__':\n    cpuops.run()\n");
    const ScanResult unused = scan_dir(d);
    const Finding* alone = nullptr;
    for (const auto& f : unused.findings)
        if (f.rule_id == "cmake-python-module" && f.location.line == 8) alone = &f;
    ASSERT_NE(alone, nullptr);
    EXPECT_EQ(alone->impact, VerdictImpact::stay) << alone->note;
    EXPECT_TRUE(alone->related.empty());
}

// yolov5's DetectMultiBackend: `pt, jit, engine = self._model_type(w)` unpacks the kinds of weights
// from one call, and `if pt: ... elif engine: <TensorRT, torch.device("cuda:0")>` picks one arm per
// kind. The TensorRT arm is one way of loading the model; the PyTorch arm binds the same `model`
// without CUDA (a comment that names `.cuda()` writes no CUDA), and both calling `torch.<something>`
// does not make them the same job: the arm is an alternative, at most dual-track. A flag parameter off
// by default (`elif dnn:`, `dnn=False`) is one more kind among them.
TEST(ProgramModel, AnArmOfKindsUnpackedFromOneCallIsAnAlternative) {
    test::TempDir d;
    d.write("train.py", "import torch\nfrom pkg.backend import MultiBackend\n\nif __name__ == '__main__':\n    MultiBackend('m.pt')\n");
    d.write("pkg/__init__.py", "");
    const std::string head = "import torch\n\n\nclass MultiBackend(torch.nn.Module):\n"
                             "    def __init__(self, weights='m.pt', device=torch.device('cpu'), dnn=False):\n        super().__init__()\n";
    const std::string arms = "        if pt:  # PyTorch: .to(), .cpu(), .cuda() work on it\n"
                             "            model = torch.load(weights, map_location=device)\n"
                             "        elif jit:\n            model = torch.jit.load(weights, map_location=device)\n"
                             "        elif dnn:  # a flag parameter off by default, among the kinds\n            net = open(weights).read()\n"
                             "        elif engine:  # TensorRT\n            import tensorrt as trt\n"
                             "            if device.type == 'cpu':\n                device = torch.device('cuda:0')\n"
                             "            model = trt.Runtime(trt.Logger()).deserialize_cuda_engine(open(weights, 'rb').read())\n"
                             "        self.model = model\n        self.device = device\n\n"
                             "    @staticmethod\n    def _model_type(p):\n"
                             "        return p.endswith('.pt'), p.endswith('.torchscript'), p.endswith('.engine')\n";
    d.write("pkg/backend.py", head + "        pt, jit, engine = self._model_type(weights)\n" + arms);
    const ScanResult r = scan_dir(d);
    const Finding* trt = find(r, "cuda-only-package-import", "pkg/backend.py");
    ASSERT_NE(trt, nullptr);
    EXPECT_EQ(trt->guard, GuardKind::alternative_branch) << trt->guard_note;
    EXPECT_NE(trt->guard_note.find("the arm `pt` binds model without CUDA"), std::string::npos) << trt->guard_note;
    EXPECT_NE(trt->impact, VerdictImpact::stay) << trt->note;
    // The arm's CUDA device comes after its `import tensorrt`, which a Mac never gets past: info
    // (yolov3's, judged so in the sample of 2026-12-07), whatever the arm's own guard.
    const Finding* dev = find(r, "hardcoded-cuda-device", "pkg/backend.py");
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(dev->guard, GuardKind::device_check) << dev->guard_note;
    EXPECT_EQ(dev->severity, Severity::info) << dev->note;
    EXPECT_NE(dev->guard_note.find("after `import tensorrt as trt`"), std::string::npos) << dev->guard_note;
    // the same flags, each bound from a call of its own: flags of the run, no kinds of one choice
    d.write("pkg/backend.py", head + "        pt = weights.endswith('.pt')\n        jit = weights.endswith('.torchscript')\n"
                                     "        engine = weights.endswith('.engine')\n" + arms);
    const ScanResult flags = scan_dir(d);
    dev = find(flags, "hardcoded-cuda-device", "pkg/backend.py");
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(dev->guard, GuardKind::device_check) << "past the import, under flags of the run too: " << dev->guard_note;
    EXPECT_EQ(dev->guard_note.find("the arm `pt`"), std::string::npos) << "flags of the run are no kinds of one choice: " << dev->guard_note;
}

// PixArt-alpha's MPT attention: flash_attn_fn() imports flash_attn (its handler raises: required
// where it runs), and MultiheadAttention only chooses it, `if self.attn_impl == 'flash': self.attn_fn =
// flash_attn_fn`, beside a `torch` arm. The function runs only where that arm was taken: one arm of a
// choice, the Mac selects the other (train.py passes 'torch'): minor, no verdict impact. Chosen outside
// any branch, or also called unguarded, the import is the run's again.
TEST(ProgramModel, AStayImportInAFunctionChosenInOneArmIsOptional) {
    test::TempDir d;
    d.write("train.py", "from pkg.attention import Attention\n\nif __name__ == '__main__':\n    Attention('torch')\n");
    d.write("pkg/__init__.py", "");
    const std::string fns = "import torch\n\n\ndef flash_attn_fn(q, k, v):\n    try:\n        from flash_attn import flash_attn_interface\n"
                            "    except ImportError:\n        raise RuntimeError('install flash-attn')\n"
                            "    return flash_attn_interface.flash_attn_unpadded_func(q, k, v)\n\n\n"
                            "def torch_attn_fn(q, k, v):\n    return torch.softmax(q @ k.transpose(-1, -2), -1) @ v\n\n\n";
    d.write("pkg/attention.py", fns + "class Attention(torch.nn.Module):\n    def __init__(self, attn_impl='flash'):\n        super().__init__()\n"
                                      "        if attn_impl == 'flash':\n            self.attn_fn = flash_attn_fn\n"
                                      "        elif attn_impl == 'torch':\n            self.attn_fn = torch_attn_fn\n"
                                      "        else:\n            raise ValueError(attn_impl)\n");
    const ScanResult r = scan_dir(d);
    const Finding* f = find(r, "cuda-only-package-import", "pkg/attention.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->guard, GuardKind::alternative_branch) << f->guard_note;
    EXPECT_EQ(f->impact, VerdictImpact::none) << f->note;
    EXPECT_EQ(f->severity, Severity::minor) << f->note;
    EXPECT_NE(f->guard_note.find("chosen, not called, in `if attn_impl == 'flash':`"), std::string::npos) << f->guard_note;
    EXPECT_TRUE(std::none_of(r.findings.begin(), r.findings.end(), [](const Finding& x) { return x.impact == VerdictImpact::stay; }));

    // also called outside any branch: the run needs it
    d.write("pkg/attention.py", fns + "class Attention(torch.nn.Module):\n    def __init__(self, attn_impl='flash'):\n        super().__init__()\n"
                                      "        if attn_impl == 'flash':\n            self.attn_fn = flash_attn_fn\n"
                                      "        else:\n            self.attn_fn = torch_attn_fn\n\n"
                                      "    def forward(self, q, k, v):\n        return flash_attn_fn(q, k, v)\n");
    const ScanResult called = scan_dir(d);
    f = find(called, "cuda-only-package-import", "pkg/attention.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->impact, VerdictImpact::stay) << f->note;

    // chosen with no choice around it
    d.write("pkg/attention.py", fns + "class Attention(torch.nn.Module):\n    def __init__(self, attn_impl='flash'):\n        super().__init__()\n"
                                      "        self.attn_fn = flash_attn_fn\n");
    const ScanResult always = scan_dir(d);
    f = find(always, "cuda-only-package-import", "pkg/attention.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->impact, VerdictImpact::stay) << f->note;
}

// monodepth2: options.py declares `--predictive_mask` store_true, and trainer.py, which declares no
// option of its own, reads it as `self.opt.predictive_mask`: the branch is off by default there too,
// with the declaration as a related location. Not an option another file declares on, one the
// reading file declares itself, nor a YAML config's `cfg.X`; and a command passing the flag turns it on.
TEST(ProgramModel, AnOptionAnotherFileDeclaresOffByDefaultGuardsItsReads) {
    test::TempDir d;
    d.write("options.py", "import argparse\n\n\nclass MonodepthOptions:\n    def __init__(self):\n        self.parser = argparse.ArgumentParser()\n"
                          "        self.parser.add_argument('--predictive_mask', action='store_true')\n"
                          "        self.parser.add_argument('--use_stereo', action='store_true')\n"
                          "        self.parser.add_argument('--pose_cnn', default=True)\n\n    def parse(self):\n        return self.parser.parse_args()\n");
    d.write("stereo.py", "import argparse\np = argparse.ArgumentParser()\np.add_argument('--use_stereo', action='store_false')\n");
    d.write("train.py", "from options import MonodepthOptions\nfrom trainer import Trainer\n\nif __name__ == '__main__':\n    Trainer(MonodepthOptions().parse()).train()\n");
    d.write("trainer.py", "import torch\n\n\nclass Trainer:\n    def __init__(self, options):\n        self.opt = options\n\n"
                          "    def train(self):\n        if self.opt.v1_multiscale:\n            pass\n        elif self.opt.predictive_mask:\n"
                          "            w = torch.ones(3).cuda()\n        if self.opt.use_stereo:\n            torch.cuda.synchronize()\n"
                          "        if self.opt.pose_cnn:\n            torch.cuda.synchronize()\n        if cfg.predictive_mask:\n            torch.cuda.synchronize()\n");
    const ScanResult off = scan_dir(d);
    const Finding* mask = find(off, "cuda-method-call", "trainer.py");
    ASSERT_NE(mask, nullptr);
    EXPECT_EQ(mask->guard, GuardKind::off_by_default) << mask->guard_note;
    EXPECT_EQ(mask->guard_note, "off by default: --predictive_mask");
    EXPECT_LT(mask->severity, Severity::major) << mask->note;
    EXPECT_TRUE(std::any_of(mask->related.begin(), mask->related.end(), [](const RelatedLocation& r) {
        return r.location.path == "options.py" && r.location.line == 7 && r.label.find("--predictive_mask") != std::string::npos;
    }));
    for (const Finding& f : off.findings) {
        if (f.location.path == "trainer.py" && f.location.line > 12) {
            EXPECT_EQ(f.guard, GuardKind::none) << f.rule_id << " " << f.location.line << ": declared on elsewhere, or a config's value";
        }
    }
    EXPECT_GE(std::count_if(off.findings.begin(), off.findings.end(), [](const Finding& f) { return f.location.path == "trainer.py" && f.location.line > 12; }), 3);

    // the guard of the one `.cuda()` of trainer.py, nullopt where none is found
    const auto mask_guard = [&] {
        const ScanResult r = scan_dir(d);
        const Finding* f = find(r, "cuda-method-call", "trainer.py");
        return f ? std::optional<GuardKind>(f->guard) : std::nullopt;
    };
    // the reading file's own declaration decides
    d.write("trainer.py", "import argparse\nimport torch\nparser = argparse.ArgumentParser()\nparser.add_argument('--predictive_mask', default=True)\n"
                          "opt = parser.parse_args()\nif opt.predictive_mask:\n    w = torch.ones(3).cuda()\n");
    EXPECT_EQ(mask_guard(), GuardKind::none);

    // a command of the repository that passes the flag turns it on
    d.write("trainer.py", "import torch\n\n\ndef train(opt):\n    if opt.predictive_mask:\n        w = torch.ones(3).cuda()\n");
    EXPECT_EQ(mask_guard(), GuardKind::off_by_default);
    d.write("trainer.py", "import torch\n\n\ndef train(opt):\n    return torch.ones(3).cuda() if opt.predictive_mask else None\n");
    EXPECT_EQ(mask_guard(), GuardKind::off_by_default) << "the value the option picks, on the finding's own line";
    d.write("README.md", "# Training\n\n```\npython train.py --predictive_mask\n```\n");
    EXPECT_EQ(mask_guard(), GuardKind::none);
}

// An option off by default that a command of the repository turns on is no option: the README's
// `python train.py --benchmark` runs that branch as documented, and the finding keeps its weight,
// with the command as a related location. A flag that only begins the same (`--benchmark_dir`) does not.
TEST(ProgramModel, AnOptionThatACommandOfTheRepositoryTurnsOnIsNoOption) {
    test::TempDir d;
    d.write("train.py", "import argparse\nimport torch\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n"
                        "    parser.add_argument('--benchmark', action='store_true')\n    args = parser.parse_args()\n"
                        "    if args.benchmark:\n        torch.cuda.synchronize()\n\n\nif __name__ == '__main__':\n    main()\n");
    d.write("README.md", "# Training\n\n```\npython train.py --benchmark_dir out\n```\n");
    const ScanResult off = scan_dir(d);
    const Finding* f = find(off, "torch-cuda-synchronize", "train.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->guard, GuardKind::off_by_default) << f->guard_note;
    EXPECT_EQ(f->severity, Severity::minor) << f->note;

    d.write("README.md", "# Training\n\n```\npython train.py --no-benchmark\n```\n");  // another flag
    const ScanResult other_flag = scan_dir(d);
    f = find(other_flag, "torch-cuda-synchronize", "train.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->guard, GuardKind::off_by_default) << f->guard_note;

    d.write("README.md", "# Training\n\n```\npython train.py --benchmark\n```\n");
    const ScanResult on = scan_dir(d);
    f = find(on, "torch-cuda-synchronize", "train.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->guard, GuardKind::none) << f->guard_note;
    EXPECT_EQ(f->severity, Severity::major) << f->note;
    EXPECT_TRUE(std::any_of(f->related.begin(), f->related.end(), [](const RelatedLocation& r) {
        return r.location.path == "README.md" && r.location.line == 4 && r.label.find("--benchmark") != std::string::npos;
    }));

    // a short option alone: `-p` passed, not `--no-p`'s tail
    d.write("train.py", "import argparse\nimport torch\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n"
                        "    parser.add_argument('-p', action='store_true')\n    args = parser.parse_args()\n"
                        "    if args.p:\n        torch.cuda.synchronize()\n\n\nif __name__ == '__main__':\n    main()\n");
    d.write("README.md", "# Training\n\n```\npython train.py --no-p\n```\n");
    const ScanResult short_off = scan_dir(d);
    f = find(short_off, "torch-cuda-synchronize", "train.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->guard, GuardKind::off_by_default) << f->guard_note;
    d.write("scripts/run.sh", "#!/bin/sh\npython train.py -p\n");
    const ScanResult short_on = scan_dir(d);
    f = find(short_on, "torch-cuda-synchronize", "train.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->guard, GuardKind::none) << f->guard_note;
}

// Infinity's FlexAttn hard-codes device='cuda', and is built only under a model parameter off by
// default (`use_flex_attn=False`), through its callers; scripts/train.sh passes `--use_flex_attn=True`,
// which the training script hands to that parameter by name: the run as documented takes it.
TEST(ProgramModel, AParameterOffByDefaultThatACommandPassesByNameIsNoOption) {
    test::TempDir d;
    d.write("models/attn.py", "import torch\n\n\nclass FlexAttn:\n    def __init__(self):\n        self.mask = torch.zeros(4, device='cuda')\n");
    d.write("models/model.py", "from models.attn import FlexAttn\n\n\nclass Net:\n    def __init__(self, use_flex_attn=False):\n"
                               "        self.attn = None\n        if use_flex_attn:\n            self.attn = FlexAttn()\n");
    d.write("train.py", "import argparse\nfrom models.model import Net\n\nif __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
                        "    p.add_argument('--use_flex_attn', type=int, default=0)\n    a = p.parse_args()\n    Net(use_flex_attn=a.use_flex_attn)\n");
    d.write("scripts/train.sh", "#!/bin/sh\npython train.py --use_flex_attn_v2=1\n");
    const ScanResult off = scan_dir(d);
    const Finding* f = find(off, "hardcoded-cuda-device", "models/attn.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->guard, GuardKind::off_by_default) << f->guard_note;
    EXPECT_EQ(f->severity, Severity::minor) << f->note;
    d.write("scripts/train.sh", "#!/bin/sh\npython train.py \\\n  --use_flex_attn=True\n");
    const ScanResult on = scan_dir(d);
    f = find(on, "hardcoded-cuda-device", "models/attn.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->guard, GuardKind::none) << f->guard_note;
    EXPECT_EQ(f->severity, Severity::major) << f->note;
    EXPECT_TRUE(std::any_of(f->related.begin(), f->related.end(), [](const RelatedLocation& r) {
        return r.location.path == "scripts/train.sh" && r.location.line == 3 && r.label.find("--use_flex_attn") != std::string::npos;
    }));
}

// An environment switch that is off unless set (`if os.getenv("PROFILE") == "1":`, or a name bound
// from one) guards like an option off by default; a command that sets `PROFILE=1` turns it on, one
// that sets `PROFILE=0` does not. A switch whose default is its value (`getenv("X", "1") == "1"`) is on.
TEST(ProgramModel, AnEnvironmentSwitchThatIsOffUnlessSetIsOffByDefault) {
    test::TempDir d;
    auto guard_with = [&](const std::string& condition, const std::string& readme) {
        d.write("train.py", "import os\nimport torch\n\nPROFILE = os.getenv('PROFILE')\n\n\ndef main():\n    if " + condition +
                                ":\n        torch.cuda.synchronize()\n\n\nif __name__ == '__main__':\n    main()\n");
        d.write("README.md", "# Training\n\n```\n" + readme + "\n```\n");
        const ScanResult r = scan_dir(d);
        const Finding* f = find(r, "torch-cuda-synchronize", "train.py");
        EXPECT_NE(f, nullptr) << condition;
        return f ? std::make_pair(f->guard, f->guard_note) : std::make_pair(GuardKind::none, std::string());
    };
    auto [guard, note] = guard_with("os.getenv('PROFILE') == '1'", "python train.py");
    EXPECT_EQ(guard, GuardKind::off_by_default) << note;
    EXPECT_EQ(note, "off by default: $PROFILE");
    std::tie(guard, note) = guard_with("PROFILE", "python train.py");
    EXPECT_EQ(guard, GuardKind::off_by_default) << note;
    std::tie(guard, note) = guard_with("os.environ.get('PROFILE')", "PROFILE=0 python train.py");
    EXPECT_EQ(guard, GuardKind::off_by_default) << note;
    std::tie(guard, note) = guard_with("os.environ.get('PROFILE')", "PROFILE=1 python train.py");
    EXPECT_EQ(guard, GuardKind::none) << note;
    std::tie(guard, note) = guard_with("os.getenv('PROFILE', '1') == '1'", "python train.py");
    EXPECT_EQ(guard, GuardKind::none) << note;
    // Around an import with a fallback, the switch decides while it is off; a command that sets it
    // leaves the fallback, not nothing.
    auto import_with = [&](const std::string& readme) {
        d.write("train.py", "import os\n\nif os.environ.get('FAST_ATTN') == '1':\n    try:\n        import xformers\n"
                            "    except ImportError:\n        xformers = None\n\nif __name__ == '__main__':\n    print(xformers)\n");
        d.write("README.md", "# Training\n\n```\n" + readme + "\n```\n");
        const ScanResult r = scan_dir(d);
        const Finding* f = find(r, "cuda-only-package-import", "train.py");
        EXPECT_NE(f, nullptr) << readme;
        return f ? std::make_pair(f->guard, f->guard_note) : std::make_pair(GuardKind::none, std::string());
    };
    std::tie(guard, note) = import_with("python train.py");
    EXPECT_EQ(guard, GuardKind::off_by_default) << note;
    EXPECT_EQ(note, "off by default: $FAST_ATTN; inside it: try/except with a fallback");
    std::tie(guard, note) = import_with("FAST_ATTN=1 python train.py");
    EXPECT_EQ(guard, GuardKind::import_fallback) << note;
    EXPECT_EQ(note, "try/except with a fallback");
}

// flux's cli.py: `if not trt: <PyTorch models> else: from flux.trt.trt_manager import TRTManager`
// ("lazy import to make install optional"). A module a function imports in one arm of an if is
// optional (alternative-branch), and a package for scale or speed it imports is info, as an import in
// one branch is. Imported at the top of the function, the module is core again; an import in an
// except clause is the fallback, not an option.
TEST(ProgramModel, AModuleImportedInOneArmOfAnIfIsOnDemand) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/trt/__init__.py", "");
    d.write("pkg/trt/manager.py", "import tensorrt as trt\nimport torch\n\n\nclass TRTManager:\n"
                                  "    def __init__(self):\n        self.stream = torch.cuda.Stream()\n");
    auto scan_with = [&](const std::string& body) {
        d.write("cli.py", "import torch\n\n\ndef main(trt=False):\n" + body +
                              "    return model\n\n\nif __name__ == '__main__':\n    main()\n");
        return scan_dir(d);
    };
    const ScanResult r = scan_with("    if not trt:\n        model = torch.nn.Linear(2, 2)\n    else:\n"
                                   "        from pkg.trt.manager import TRTManager\n        model = TRTManager()\n");
    const Finding* package = find(r, "cuda-only-package-import", "pkg/trt/manager.py");
    ASSERT_NE(package, nullptr);
    EXPECT_EQ(package->reach, Reach::optional) << package->note;
    EXPECT_EQ(package->severity, Severity::info) << package->note;
    EXPECT_EQ(package->impact, VerdictImpact::none) << package->note;
    EXPECT_NE(package->note.find("imported on demand in one branch (else:)"), std::string::npos) << package->note;
    const Finding* stream = find(r, "torch-cuda-stream-event", "pkg/trt/manager.py");
    ASSERT_NE(stream, nullptr);
    EXPECT_EQ(stream->reach, Reach::optional) << stream->note;

    const ScanResult top = scan_with("    from pkg.trt.manager import TRTManager\n    model = TRTManager()\n");
    package = find(top, "cuda-only-package-import", "pkg/trt/manager.py");
    ASSERT_NE(package, nullptr);
    EXPECT_EQ(package->reach, Reach::core) << package->note;
    EXPECT_EQ(package->impact, VerdictImpact::dual) << package->note;

    const ScanResult fallback = scan_with("    try:\n        import fastpkg\n        model = fastpkg.Model()\n    except ImportError:\n"
                                          "        from pkg.trt.manager import TRTManager\n        model = TRTManager()\n");
    package = find(fallback, "cuda-only-package-import", "pkg/trt/manager.py");
    ASSERT_NE(package, nullptr);
    EXPECT_EQ(package->reach, Reach::core) << package->note;
}

// kohya's library/sdxl_original_control_net.py: a module the run imports, with a test at its foot. The
// __main__ block runs only when the module itself is run: a self-test, tooling. A command that runs the
// module makes it the run's again.
TEST(ProgramModel, TheMainBlockOfAModuleTheRunImportsIsASelfTest) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/model.py", "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x.cuda()\n\n\n"
                            "if __name__ == '__main__':\n    x = torch.randn(2).cuda()\n    print(Net()(x))\n");
    d.write("train.py", "import torch\nfrom pkg.model import Net\n\nif __name__ == '__main__':\n    Net()(torch.ones(2))\n");
    const ScanResult r = scan_dir(d);
    const auto found = by_line(r, "cuda-method-call", "pkg/model.py");
    ASSERT_TRUE(found.count(6) && found.count(10)) << found.size();
    EXPECT_EQ(found.at(6)->reach, Reach::core) << found.at(6)->note;
    EXPECT_EQ(found.at(10)->reach, Reach::tooling) << found.at(10)->note;
    EXPECT_EQ(found.at(10)->severity, Severity::minor) << found.at(10)->note;
    EXPECT_NE(found.at(10)->note.find("of a module that train.py:2 imports, and no command runs: a self-test"), std::string::npos) << found.at(10)->note;
    d.write("scripts/check.sh", "#!/bin/bash\npython pkg/model.py\n");
    const ScanResult run = scan_dir(d);
    const auto again = by_line(run, "cuda-method-call", "pkg/model.py");
    ASSERT_TRUE(again.count(10));
    EXPECT_EQ(again.at(10)->reach, Reach::core) << again.at(10)->note;
}

// InternVL's internvl/patch/llama2_flash_attn_monkey_patch.py: a package module the code imports (under
// a try here), with a test in its __main__ block. That block does not make the module a program of
// its own, whose module-level flash_attn import would be core: the import is as optional as the
// module's import. A module named as a program (dinov2/train/train.py, which its launcher imports)
// stays one.
TEST(ProgramModel, AnImportedPackageModuleWithAMainBlockIsNoProgramUnlessNamedAsOne) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/patch/__init__.py", "");
    const std::string patch = "import torch\nfrom flash_attn import flash_attn_func\n\n\ndef replace():\n    return flash_attn_func\n\n\n"
                              "if __name__ == '__main__':\n    replace()\n";
    d.write("pkg/patch/flash_patch.py", patch);
    d.write("train.py", "import torch\n\ntry:\n    from pkg.patch.flash_patch import replace\nexcept ImportError:\n    replace = None\n\n"
                        "if __name__ == '__main__':\n    print(torch.ones(2), replace)\n");
    const ScanResult r = scan_dir(d);
    const Finding* import = find(r, "cuda-only-package-import", "pkg/patch/flash_patch.py");
    ASSERT_NE(import, nullptr);
    EXPECT_EQ(import->reach, Reach::optional) << import->note;
    EXPECT_LT(import->impact, VerdictImpact::stay) << import->note;
    const auto entry = std::find_if(r.program.entry_points.begin(), r.program.entry_points.end(),
                                    [](const auto& e) { return e.path == "pkg/patch/flash_patch.py"; });
    ASSERT_NE(entry, r.program.entry_points.end());
    EXPECT_TRUE(entry->tooling) << entry->why;
    // named as a program, and imported by its launcher: still a program of its own
    std::filesystem::remove(d.path() / "pkg/patch/flash_patch.py");
    d.write("pkg/patch/train.py", patch);
    d.write("train.py", "import torch\n\ntry:\n    from pkg.patch.train import replace\nexcept ImportError:\n    replace = None\n\n"
                        "if __name__ == '__main__':\n    print(torch.ones(2), replace)\n");
    const ScanResult program = scan_dir(d);
    const Finding* own = find(program, "cuda-only-package-import", "pkg/patch/train.py");
    ASSERT_NE(own, nullptr);
    EXPECT_EQ(own->reach, Reach::core) << own->note;
}

// GPT-SoVITS's export_torch_script.py: test(), whose one call is commented out, beside the word `test`
// in files that never import the module (webui.py's loop variable and keyword argument) and in prose
// ("run the test"). Neither is a use: it is never called. A file that imports the module and calls it, a script
// that calls it, and a config that names it by its module keep it called.
TEST(ProgramModel, ACommonWordInFilesThatCannotReachTheFunctionIsNoUse) {
    test::TempDir d;
    d.write("export.py", "import torch\n\n\nclass Model(torch.nn.Module):\n    pass\n\n\ndef test():\n    return torch.ones(2).to('cuda')\n");
    d.write("stream.py", "from export import Model\n");
    d.write("train.py", "import torch\nfrom stream import Model\n\nif __name__ == '__main__':\n    Model()(torch.ones(2)).sum().backward()\n");
    d.write("webui.py", "import torch\n\n\ndef run(test=True):\n    for test in [0, 1]:\n        print(test)\n\n\n"
                        "if __name__ == '__main__':\n    run()\n");
    d.write("README.md", "Run the test before you train.\n");
    const auto guard = [](const ScanResult& r) {
        const Finding* f = find(r, "hardcoded-cuda-device", "export.py");
        return f ? f->guard : GuardKind::platform;  // platform: not found
    };
    EXPECT_EQ(guard(scan_dir(d)), GuardKind::never_called);
    d.write("tools.sh", "python -c 'import export; export.test()'\n");
    EXPECT_EQ(guard(scan_dir(d)), GuardKind::none) << "a script that calls it";
    d.write("tools.sh", "echo\n");
    d.write("check.py", "import stream\nfrom export import test\n\nif __name__ == '__main__':\n    test()\n");
    EXPECT_EQ(guard(scan_dir(d)), GuardKind::none) << "a file that imports and calls it";
    d.write("check.py", "import os\n");
    d.write("webui.py", "from export import *\n\n\nif __name__ == '__main__':\n    test()\n");
    EXPECT_EQ(guard(scan_dir(d)), GuardKind::none) << "a star import";
}

// NVIDIA/flownet2-pytorch has an __init__.py at its root. The self-test check climbs the packages
// above a module with a __main__ block, and at the root it climbed forever (the scan never ended, at
// bb196ef). It stops at the root: the module is a package module like any other.
TEST(ProgramModel, ARootInitDoesNotStopTheScan) {
    test::TempDir d;
    d.write("__init__.py", "");
    d.write("networks/__init__.py", "");
    d.write("networks/resample.py", "import torch\n\nif __name__ == '__main__':\n    print(torch.ones(2).cuda())\n");
    d.write("main.py", "import torch\n\nif __name__ == '__main__':\n    model = torch.nn.Linear(2, 2).cuda()\n");
    const ScanResult r = scan_dir(d);
    const Finding* run = find(r, "cuda-method-call", "main.py");
    ASSERT_NE(run, nullptr);
    EXPECT_EQ(run->reach, Reach::core) << run->note;
    EXPECT_NE(find(r, "cuda-method-call", "networks/resample.py"), nullptr);
}

// A module-level function of the training run that no file calls or names is dead code (sam2's
// init_distributed_data_parallel_model): info. One that a config names (`_target_`), one its module
// exports in __all__ and one that train.py calls keep their weight.
TEST(ProgramModel, AFunctionNothingCallsOrNamesIsNeverCalled) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/dist.py", "import torch\n\n__all__ = ['exported']\n\n\ndef unused(i):\n    torch.cuda.set_device(i)\n\n\n"
                           "def configured(i):\n    torch.cuda.set_device(i)\n\n\ndef exported(i):\n    torch.cuda.set_device(i)\n\n\n"
                           "def used(i):\n    torch.cuda.set_device(i)\n");
    d.write("configs/run.yaml", "setup:\n  _target_: pkg.dist.configured\n");
    d.write("train.py", "from pkg.dist import used\n\nif __name__ == '__main__':\n    used(0)\n");
    const ScanResult r = scan_dir(d);
    const auto found = by_line(r, "torch-cuda-device-management", "pkg/dist.py");
    ASSERT_TRUE(found.count(7) && found.count(11) && found.count(15) && found.count(19)) << found.size();
    EXPECT_EQ(found.at(7)->guard, GuardKind::never_called) << found.at(7)->guard_note;
    EXPECT_EQ(found.at(7)->severity, Severity::info);
    EXPECT_NE(found.at(7)->guard_note.find("unused() is called nowhere"), std::string::npos) << found.at(7)->guard_note;
    for (int line : {11, 15, 19}) {
        EXPECT_EQ(found.at(line)->guard, GuardKind::none) << line << ": " << found.at(line)->guard_note;
        EXPECT_EQ(found.at(line)->severity, Severity::major) << line;  // the rule's own weight
    }
    // RAFT's create_kitti_submission(): its one call is commented out. A Python comment is no use; a
    // string that holds a `#` before the call is no comment.
    d.write("train.py", "from pkg.dist import used, unused\n\nif __name__ == '__main__':\n    used(0)\n    # configured(0)\n"
                        "    print('#'); unused(0)\n");
    d.write("configs/run.yaml", "setup: {}\n");
    const ScanResult commented = scan_dir(d);
    const auto after = by_line(commented, "torch-cuda-device-management", "pkg/dist.py");
    ASSERT_TRUE(after.count(7) && after.count(11)) << after.size();
    EXPECT_EQ(after.at(11)->guard, GuardKind::never_called) << after.at(11)->guard_note;
    EXPECT_EQ(after.at(7)->guard, GuardKind::none) << after.at(7)->guard_note;
    // A library with no script or command: its functions are its API, which its users call.
    test::TempDir library;
    library.write("pkg/__init__.py", "from .dist import used\n");
    library.write("pkg/dist.py", "import torch\n\n\ndef used(i):\n    torch.cuda.set_device(i)\n\n\ndef api(i):\n    torch.cuda.set_device(i)\n");
    auto expect_api = [&] {
        const ScanResult lib = scan_dir(library);
        const auto api = by_line(lib, "torch-cuda-device-management", "pkg/dist.py");
        ASSERT_TRUE(api.count(9)) << api.size();
        EXPECT_EQ(api.at(9)->guard, GuardKind::none) << api.at(9)->guard_note;
    };
    expect_api();
    // the same where setup.py declares the package: its API is an entry, still no script
    library.write("setup.py", "from setuptools import setup\n\nsetup(name='pkg', packages=['pkg'])\n");
    expect_api();
}

// Oscar's run_vqa.py and run_gqa.py each define their own load_and_cache_examples(); run_vqa.py's calls
// of it are commented out. Another script's function of the same name, called there, is no call of
// this one (the twenty-eighth holdout's judged sample: two float64 findings in dead code). A script
// that imports the module, and one that names the function without defining its own, still count.
TEST(ProgramModel, AnotherScriptsFunctionOfTheSameNameIsNoCallOfIt) {
    test::TempDir d;
    const std::string defines = "import torch\n\n\ndef load_cache(i):\n    torch.cuda.set_device(i)\n\n\n";
    d.write("run_vqa.py", defines + "if __name__ == '__main__':\n    # load_cache(0)\n    pass\n");
    d.write("run_gqa.py", defines + "if __name__ == '__main__':\n    load_cache(0)\n");
    auto vqa = [&] {
        const ScanResult r = scan_dir(d);
        const auto found = by_line(r, "torch-cuda-device-management", "run_vqa.py");
        EXPECT_EQ(found.count(5), 1u);
        return found.count(5) ? found.at(5)->guard : GuardKind::default_arm;
    };
    EXPECT_EQ(vqa(), GuardKind::never_called);
    // run_gqa.py imports run_vqa (and so may call its function)
    d.write("run_gqa.py", "import run_vqa\n" + defines + "if __name__ == '__main__':\n    load_cache(0)\n");
    EXPECT_EQ(vqa(), GuardKind::none);
    // a script that names the function without a definition of its own
    d.write("run_gqa.py", "from helpers import *\n\nif __name__ == '__main__':\n    load_cache(0)\n");
    EXPECT_EQ(vqa(), GuardKind::none);
}

// A module-level class that no file builds is dead code, and so are its methods: ProPainter's
// CUDAPrefetcher (written only in its class line), smplx's Timer (its package's __init__.py only
// re-exports it; its own body names it in `super(Timer, self)`). A class that train.py builds, one
// imported under another name, and one a decorator may register keep their weight.
TEST(ProgramModel, AClassNoFileBuildsIsNeverCalled) {
    test::TempDir d;
    d.write("pkg/__init__.py", "from .timer import Timer, Used\nfrom .timer import Renamed as Other\n");
    d.write("pkg/timer.py", "import torch\n\n\nclass Timer(object):\n    def __init__(self):\n        super(Timer, self).__init__()\n\n"
                            "    def __exit__(self, *a):\n        torch.cuda.synchronize()\n\n\n"
                            "class Used:\n    def sync(self):\n        torch.cuda.synchronize()\n\n\n"
                            "class Renamed:\n    def sync(self):\n        torch.cuda.synchronize()\n\n\n"
                            "@REGISTRY.register('prefetch')\nclass Registered:\n    def sync(self):\n        torch.cuda.synchronize()\n\n\n"
                            "class CUDAPrefetcher():\n    def preload(self):\n        torch.cuda.synchronize()\n");
    d.write("train.py", "from pkg import Used, Other\n\nif __name__ == '__main__':\n    Used().sync()\n    Other().sync()\n");
    const ScanResult r = scan_dir(d);
    const auto found = by_line(r, "torch-cuda-synchronize", "pkg/timer.py");
    ASSERT_TRUE(found.count(9) && found.count(14) && found.count(19) && found.count(25) && found.count(30)) << found.size();
    for (int line : {9, 30}) {
        EXPECT_EQ(found.at(line)->guard, GuardKind::never_called) << line << ": " << found.at(line)->guard_note;
        EXPECT_EQ(found.at(line)->severity, Severity::info) << line;
    }
    EXPECT_NE(found.at(9)->guard_note.find("class Timer is built nowhere"), std::string::npos) << found.at(9)->guard_note;
    for (int line : {14, 19, 25}) EXPECT_EQ(found.at(line)->guard, GuardKind::none) << line << ": " << found.at(line)->guard_note;
}

// A method that no Python file of the repository writes, as `.name` or "name", outside comments, is
// called nowhere, whoever builds its class: flownet2-pytorch's init_deconv_bilinear, whose every call
// is commented out (judged info in the sample of 2026-12-08). A method train.py calls, one only a
// string names (getattr), one a notebook names (its calls are not read), one torch calls by its
// name (reset_parameters, implicit_methods), and one of a class whose base comes from a package (which
// may call it: gpt-neox's lm-eval adapter) keep their weight; a base of the same file calls nothing
// by itself.
TEST(ProgramModel, AMethodNoFileNamesIsNeverCalled) {
    test::TempDir d;
    d.write("models.py", "import torch\n\n\nclass Net(torch.nn.Module):\n"
                         "    def __init__(self):\n        super().__init__()\n        # self.init_deconv(self)\n\n"
                         "    def init_deconv(self):\n        torch.cuda.synchronize()\n\n"
                         "    def to_gpu(self):\n        torch.cuda.synchronize()\n\n"
                         "    def by_string(self):\n        torch.cuda.synchronize()\n\n"
                         "    def in_notebook(self):\n        torch.cuda.synchronize()\n\n"
                         "    def reset_parameters(self):\n        torch.cuda.synchronize()\n\n\n"
                         "class Adapter(lm_eval.base.BaseLM):\n    def _loglikelihood_tokens(self):\n        torch.cuda.synchronize()\n\n\n"
                         "class Small(Net):\n    def unused(self):\n        torch.cuda.synchronize()\n");
    d.write("train.py", "from models import Net, Adapter, Small\n\nif __name__ == '__main__':\n    net = Net()\n    net.to_gpu()\n"
                        "    getattr(net, 'by_string')()\n    net.backward = None\n    Adapter()\n    Small()\n");
    d.write("explore.ipynb", R"({"cells": [{"cell_type": "code", "source": ["net.in_notebook()\n"], "metadata": {}, "outputs": [], "execution_count": null}],
 "metadata": {}, "nbformat": 4, "nbformat_minor": 5})");
    const ScanResult r = scan_dir(d);
    const auto found = by_line(r, "torch-cuda-synchronize", "models.py");
    ASSERT_TRUE(found.count(10) && found.count(13) && found.count(16) && found.count(19) && found.count(22) && found.count(27) && found.count(32))
        << found.size();
    for (int line : {10, 32}) {
        EXPECT_EQ(found.at(line)->guard, GuardKind::never_called) << line << ": " << found.at(line)->guard_note;
        EXPECT_EQ(found.at(line)->severity, Severity::info) << line;
    }
    EXPECT_NE(found.at(10)->guard_note.find("init_deconv() is called nowhere"), std::string::npos) << found.at(10)->guard_note;
    for (int line : {13, 16, 19, 22, 27}) EXPECT_NE(found.at(line)->guard, GuardKind::never_called) << line << ": " << found.at(line)->guard_note;
}

// A field of a dataclass or an attrs class is a constructor parameter: its CUDA default that every
// construction passes by keyword never applies (glide-text2im's CLIP encoders); one that a
// construction leaves out keeps its weight, and so does a plain class's attribute.
TEST(ProgramModel, AFieldDefaultThatEveryConstructionPassesIsInfo) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/encoders.py", "import attr\nimport torch\nfrom dataclasses import dataclass\n\n\n"
                               "@attr.s(eq=False)\nclass Encoder:\n    width: int = attr.ib()\n"
                               "    device: torch.device = attr.ib(default=torch.device(\"cuda\"))\n\n\n"
                               "@dataclass\nclass Decoder:\n    device: torch.device = torch.device(\"cuda\")\n");
    d.write("train.py", "import torch\nfrom pkg.encoders import Encoder, Decoder\n\nif __name__ == '__main__':\n"
                        "    dev = torch.device('cpu')\n    e = Encoder(width=2, device=dev)\n    f = Encoder(3, device=dev)\n    g = Decoder()\n");
    // Line 9, passed by every construction, is info; line 14, left out by one, keeps its weight.
    auto expect_defaults = [&](Reach reach) {
        const ScanResult r = scan_dir(d);
        const auto found = by_line(r, "hardcoded-cuda-device", "pkg/encoders.py");
        ASSERT_TRUE(found.count(9) && found.count(14)) << found.size();
        EXPECT_EQ(found.at(9)->reach, reach);
        EXPECT_EQ(found.at(9)->guard, GuardKind::default_unused) << found.at(9)->guard_note;
        EXPECT_EQ(found.at(9)->severity, Severity::info);
        EXPECT_EQ(found.at(14)->guard, GuardKind::none) << found.at(14)->guard_note;
    };
    expect_defaults(Reach::core);

    // The same where no entry point reaches the package (glide's CLIP, which only its notebooks use):
    // the caller-guard pass reads files of every reach.
    d.write("train.py", "import torch\n\nif __name__ == '__main__':\n    print(torch.ones(1))\n");
    d.write("pkg/build.py", "import torch\nfrom pkg.encoders import Encoder, Decoder\n\n\ndef build(dev):\n"
                            "    return Encoder(width=2, device=dev), Decoder()\n");
    expect_defaults(Reach::unreached);
}

// glide-text2im's `AttentionResblock(self.n_state, self.n_resblocks, self.attn_fn, self.device)`: a
// field passed by its place among the fields. Where a base class may bring fields of its own, or a
// field before it is init=False, places are counted only as the constructor sees them.
TEST(ProgramModel, AFieldDefaultPassedByPositionIsInfo) {
    test::TempDir d;
    d.write("blocks.py", "import attr\nimport torch\nimport torch.nn as nn\nfrom base import Base\n\n"
                         "@attr.s(eq=False)\nclass Resblock(nn.Module):\n    n_state: int = attr.ib()\n    cache: dict = attr.ib(init=False)\n"
                         "    device: torch.device = attr.ib(default=torch.device(\"cuda\"))\n\n\n"
                         "@attr.s(eq=False)\nclass Derived(Base):\n    scale: float = attr.ib()\n"
                         "    device: torch.device = attr.ib(default=torch.device(\"cuda\"))\n\n\n"
                         "@attr.s(eq=False)\nclass Short(nn.Module):\n    n_state: int = attr.ib()\n"
                         "    device: torch.device = attr.ib(default=torch.device(\"cuda\"))\n");
    d.write("base.py", "import attr\n\n\n@attr.s\nclass Base:\n    width: int = attr.ib()\n");
    d.write("train.py", "import torch\nfrom blocks import Resblock, Derived, Short\n\nif __name__ == '__main__':\n"
                        "    dev = torch.device('cpu')\n    a = Resblock(4, dev)\n    b = Derived(4, 2.0, dev)\n    c = Short(4)\n");
    const ScanResult r = scan_dir(d);
    const auto found = by_line(r, "hardcoded-cuda-device", "blocks.py");
    ASSERT_TRUE(found.count(10) && found.count(16) && found.count(22)) << found.size();
    EXPECT_EQ(found.at(10)->guard, GuardKind::default_unused) << "place 1: the init=False field is no parameter";
    EXPECT_EQ(found.at(10)->severity, Severity::info);
    EXPECT_EQ(found.at(16)->guard, GuardKind::none) << "a base with fields: the places are not known";
    EXPECT_EQ(found.at(22)->guard, GuardKind::none) << "Short(4) leaves the device out";
}

// CRAFT-pytorch: an inference-only release whose README runs `python test.py --trained_model=...` and
// nothing else. test.py is tooling by its name, but it is the only script the commands run
// (tooling.sole_run_files): the run, whose .cuda() keeps its weight. The model module it imports is
// the run's, and the shape check in that module's __main__ block a self-test. Beside a documented
// `python train.py`, test.py is tooling again.
TEST(ProgramModel, ATestScriptThatIsTheOnlyDocumentedCommandIsTheRun) {
    test::TempDir d;
    d.write("README.md", "# Text detector\n\n## Test\n\n```\npython test.py --trained_model=craft.pth --test_folder=images/\n```\n");
    d.write("craft.py", "import torch\n\n\nclass CRAFT(torch.nn.Module):\n    def forward(self, x):\n        return x\n\n\n"
                        "if __name__ == '__main__':\n    model = CRAFT().cuda()\n    print(model(torch.randn(1, 3, 8, 8)).shape)\n");
    d.write("test.py", "import argparse\nimport torch\nfrom craft import CRAFT\n\nparser = argparse.ArgumentParser()\n"
                       "parser.add_argument('--trained_model')\nargs = parser.parse_args()\n\n"
                       "if __name__ == '__main__':\n    net = CRAFT()\n    net.load_state_dict(torch.load(args.trained_model))\n    net = net.cuda()\n");
    const ScanResult r = scan_dir(d);
    const Finding* run = find(r, "cuda-method-call", "test.py");
    ASSERT_NE(run, nullptr);
    EXPECT_EQ(run->reach, Reach::core) << run->note;
    EXPECT_EQ(run->severity, Severity::major) << run->note;
    const Finding* smoke = find(r, "cuda-method-call", "craft.py");
    ASSERT_NE(smoke, nullptr);
    EXPECT_EQ(smoke->reach, Reach::tooling) << smoke->note;
    EXPECT_LE(smoke->severity, Severity::minor) << smoke->note;
    EXPECT_NE(smoke->note.find("a self-test"), std::string::npos) << smoke->note;
    // a documented training script beside it: test.py evaluates, and is tooling again
    d.write("README.md", "# Text detector\n\n```\npython train.py --data images/\npython test.py --trained_model=craft.pth\n```\n");
    d.write("train.py", "import torch\nfrom craft import CRAFT\n\nif __name__ == '__main__':\n    loss = CRAFT()(torch.ones(2, requires_grad=True)).sum()\n"
                        "    loss.backward()\n");
    const ScanResult beside = scan_dir(d);
    run = find(beside, "cuda-method-call", "test.py");
    ASSERT_NE(run, nullptr);
    EXPECT_EQ(run->reach, Reach::tooling) << run->note;
    EXPECT_LE(run->severity, Severity::minor) << run->note;
}

// An inference-only release (Janus): a package API, a chat CLI and scripts that load the model and
// generate at module level, with no `__main__` block, and no training code anywhere. Its generation
// scripts are its run: entries (module_level_scripts), core, not sampling tooling. A module some file
// imports is no script, whatever it calls at module level; nor is a file that only sets itself up
// (sys.path.append). Where an entry trains, a generation script beside it stays tooling.
TEST(ProgramModel, AScriptWithNoMainBlockIsAnEntryOfAnInferenceRelease) {
    test::TempDir d;
    d.write("pyproject.toml", "[project]\nname = \"janus\"\nversion = \"1.0\"\n");
    d.write("janus/__init__.py", "from .model import Model\n");
    d.write("janus/model.py", "import torch\n\n\nclass Model(torch.nn.Module):\n    pass\n");
    d.write("chat.py", "import torch\nfrom janus import Model\n\nif __name__ == '__main__':\n    Model().to('cpu')\n");
    d.write("generation_inference.py", "\"\"\"Generate images.\n\nrun(prompt)\n\"\"\"\nimport torch\nfrom janus import Model\n\n"
                                       "model = Model().cuda()\n\n\ndef run(prompt):\n    return model\n\n\nrun('a cat')\n");
    d.write("helpers.py", "import sys\nimport torch\nsys.path.append('.')\nregistry = {}\nprint('loaded')\n\n\n"
                          "def device():\n    return torch.zeros(1).cuda()\n");
    d.write("paths.py", "import sys\nimport torch\nsys.path.append('.')\n\n\ndef device():\n    return torch.zeros(1).cuda()\n");
    d.write("use_helpers.py", "import helpers\n\nif __name__ == '__main__':\n    helpers.device()\n");
    // a training loop written at module level (no call statement at column 0)
    d.write("loop_steps.py", "import torch\n\nmodel = torch.nn.Linear(2, 2).cuda()\nfor step in range(3):\n    model(torch.ones(2))\n");
    ScanResult r = scan_dir(d);
    const Finding* loop = find(r, "cuda-method-call", "loop_steps.py");
    ASSERT_NE(loop, nullptr);
    EXPECT_EQ(loop->reach, Reach::core) << loop->note;
    const Finding* script = find(r, "cuda-method-call", "generation_inference.py");
    ASSERT_NE(script, nullptr);
    EXPECT_EQ(script->reach, Reach::core) << script->note;
    EXPECT_EQ(script->severity, Severity::major) << script->note;
    const auto entry = std::find_if(r.program.entry_points.begin(), r.program.entry_points.end(),
                                    [](const auto& e) { return e.path == "generation_inference.py"; });
    ASSERT_NE(entry, r.program.entry_points.end());
    EXPECT_NE(entry->why.find("module level (line 15)"), std::string::npos) << entry->why;  // not the docstring's run(prompt)
    for (const char* path : {"helpers.py", "paths.py"})
        EXPECT_TRUE(std::none_of(r.program.entry_points.begin(), r.program.entry_points.end(), [&](const auto& e) { return e.path == path; })) << path;
    const Finding* unreached = find(r, "cuda-method-call", "paths.py");
    ASSERT_NE(unreached, nullptr);
    EXPECT_EQ(unreached->reach, Reach::unreached) << unreached->note;
    // with a training entry beside it, a generation script is sampling tooling
    d.write("train.py", "import torch\nfrom janus import Model\n\nif __name__ == '__main__':\n    loss = torch.ones(1, requires_grad=True).sum()\n"
                        "    loss.backward()\n");
    r = scan_dir(d);
    script = find(r, "cuda-method-call", "generation_inference.py");
    ASSERT_NE(script, nullptr);
    EXPECT_EQ(script->reach, Reach::tooling) << script->note;
}

// A sampling script beside a training one is not the training run (tooling.sampling_entry_words):
// its .cuda() is at most minor and its reach tooling. Nor is an evaluation script that trains a linear
// probe (tooling.evaluation_entry_words: DINO's eval_linear.py, MoCo's main_lincls.py), but a
// fine-tuning script is. A repository of sampling scripts alone keeps them.
TEST(ProgramModel, ASamplingScriptBesideATrainingOneIsTooling) {
    test::TempDir d;
    d.write("train.py", "import torch\n\nif __name__ == \"__main__\":\n    loss = torch.ones(1, requires_grad=True).sum()\n    loss.backward()\n");
    d.write("sample.py", "import torch\n\nif __name__ == \"__main__\":\n    model = torch.nn.Linear(2, 2).cuda()\n");
    const std::string probe_script = "import torch\n\nif __name__ == \"__main__\":\n    probe = torch.nn.Linear(2, 2).cuda()\n    probe(torch.ones(2)).sum().backward()\n";
    d.write("eval_linear.py", probe_script);
    d.write("main_lincls.py", probe_script);
    d.write("main_finetune.py", probe_script);
    const ScanResult r = scan_dir(d);
    const Finding* sampling = find(r, "cuda-method-call", "sample.py");
    ASSERT_NE(sampling, nullptr);
    EXPECT_EQ(sampling->reach, Reach::tooling) << sampling->note;
    EXPECT_LE(sampling->severity, Severity::minor);
    for (const char* path : {"eval_linear.py", "main_lincls.py"}) {
        const Finding* probe = find(r, "cuda-method-call", path);
        ASSERT_NE(probe, nullptr) << path;
        EXPECT_EQ(probe->reach, Reach::tooling) << path << ": " << probe->note;
        EXPECT_EQ(probe->severity, Severity::minor) << path;
    }
    const Finding* finetune = find(r, "cuda-method-call", "main_finetune.py");
    ASSERT_NE(finetune, nullptr);
    EXPECT_EQ(finetune->reach, Reach::core);
    EXPECT_EQ(finetune->severity, Severity::major);
    // a word with a digit inside gives its parts: latent-diffusion's scripts/knn2img.py samples
    d.write("scripts/knn2img.py", "import torch\n\nif __name__ == \"__main__\":\n    model = torch.nn.Linear(2, 2).cuda()\n");
    const ScanResult with_knn = scan_dir(d);
    const Finding* knn = find(with_knn, "cuda-method-call", "scripts/knn2img.py");
    ASSERT_NE(knn, nullptr);
    EXPECT_EQ(knn->reach, Reach::tooling) << knn->note;
    // an interactive viewer beside the training run (LGM's gui.py)
    d.write("gui.py", "import torch\n\nif __name__ == \"__main__\":\n    starter = torch.cuda.Event(enable_timing=True)\n");
    const ScanResult with_gui = scan_dir(d);
    const Finding* gui = find(with_gui, "torch-cuda-stream-event", "gui.py");
    ASSERT_NE(gui, nullptr);
    EXPECT_EQ(gui->reach, Reach::tooling) << gui->note;
    // the GAN family's tools and a demo UI's folder: stylegan's calc_metrics.py, stable diffusion's
    // scripts/gradio/depth2img.py
    d.write("calc_metrics.py", "import torch\n\nif __name__ == \"__main__\":\n    model = torch.nn.Linear(2, 2).cuda()\n");
    d.write("scripts/gradio/depth2img.py", "import torch\n\nif __name__ == \"__main__\":\n    model = torch.nn.Linear(2, 2).cuda()\n");
    // converters to a deployment format and metric scripts: YOLOX's tools/trt.py, EDVR's
    // scripts/metrics/calculate_lpips.py
    d.write("tools/trt.py", "import torch\nimport tensorrt as trt\n\nif __name__ == \"__main__\":\n    model = torch.nn.Linear(2, 2).cuda()\n");
    d.write("scripts/metrics/calculate_lpips.py", "import torch\n\nif __name__ == \"__main__\":\n    model = torch.nn.Linear(2, 2).cuda()\n");
    // a post-training quantizer of the fine-tuned model: Qwen's run_gptq.py
    d.write("run_gptq.py", "import torch\n\nif __name__ == \"__main__\":\n    model = torch.nn.Linear(2, 2).cuda()\n");
    const ScanResult with_tools = scan_dir(d);
    for (const char* path : {"calc_metrics.py", "scripts/gradio/depth2img.py", "scripts/metrics/calculate_lpips.py", "run_gptq.py"}) {
        const Finding* tool = find(with_tools, "cuda-method-call", path);
        ASSERT_NE(tool, nullptr) << path;
        EXPECT_EQ(tool->reach, Reach::tooling) << path << ": " << tool->note;
    }
    const Finding* tensorrt = find(with_tools, "cuda-only-package-import", "tools/trt.py");
    ASSERT_NE(tensorrt, nullptr);
    EXPECT_EQ(tensorrt->reach, Reach::tooling) << tensorrt->note;
    EXPECT_EQ(tensorrt->impact, VerdictImpact::none) << tensorrt->note;

    test::TempDir inference_only;
    inference_only.write("sample.py", "import torch\n\nif __name__ == \"__main__\":\n    model = torch.nn.Linear(2, 2).cuda()\n");
    const ScanResult alone_result = scan_dir(inference_only);
    const Finding* alone = find(alone_result, "cuda-method-call", "sample.py");
    ASSERT_NE(alone, nullptr);
    EXPECT_EQ(alone->reach, Reach::core);
}

}  // namespace

// BasicSR and the repositories built on it: setup.py builds its CUDA extensions only under a switch of
// its own command line. CodeFormer's `if '--cuda_ext' in sys.argv:` builds them only on request, and
// no command of the repository asks; Restormer's INSTALL.md runs `setup.py develop --no_cuda_ext`.
// Either way the documented install has no extension, and the code runs without it (impact none).
// A README that passes `--cuda_ext`, or that also shows the install without `--no_cuda_ext`
// (BasicSR's own README: "if you use EDVR and StyleGAN2 ... python setup.py develop"), builds it.
TEST(ProgramModel, AnExtensionTheDocumentedInstallDoesNotBuildMovesNoVerdict) {
    test::TempDir d;
    d.write("pkg/__init__.py", "try:\n    from . import ops_ext\nexcept ImportError:\n    ops_ext = None\n");
    d.write("train.py", "import torch\nimport pkg\n\n\nif __name__ == '__main__':\n    torch.nn.Linear(2, 2)\n");
    const std::string helper = "import sys\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\n\n"
                               "def make_cuda_ext(name, module, sources):\n"
                               "    return CUDAExtension(name=f'{module}.{name}', sources=sources)\n\n\n";
    const std::string build = "make_cuda_ext(name='ops_ext', module='pkg', sources=['pkg/src/ops.cpp', 'pkg/src/ops_kernel.cu'])";
    const std::string tail = "    setup(name='pkg', packages=['pkg'], ext_modules=ext_modules, cmdclass={'build_ext': BuildExtension})\n";
    auto build_impact = [&](const std::string& what) {
        const ScanResult r = scan_dir(d);
        const Finding* f = find(r, "cuda-extension-build", "setup.py");
        EXPECT_NE(f, nullptr) << what;
        return f ? std::make_pair(f->impact, f->note) : std::make_pair(VerdictImpact::stay, std::string());
    };

    // on request only
    d.write("setup.py", helper + "if __name__ == '__main__':\n    if '--cuda_ext' in sys.argv:\n        ext_modules = [" + build +
                            "]\n        sys.argv.remove('--cuda_ext')\n    else:\n        ext_modules = []\n" + tail);
    d.write("README.md", "# pkg\n\n```\npython setup.py develop\n```\n");
    auto [impact, note] = build_impact("opt-in, not passed");
    EXPECT_EQ(impact, VerdictImpact::none) << note;
    EXPECT_NE(note.find("built only when setup.py is run with --cuda_ext (setup.py:11)"), std::string::npos) << note;
    d.write("README.md", "# pkg\n\n```\npython setup.py develop --cuda_ext\n```\n");
    std::tie(impact, note) = build_impact("opt-in, passed");
    EXPECT_GT(impact, VerdictImpact::none) << note;

    // by default, unless the install says not to
    d.write("setup.py", helper + "if __name__ == '__main__':\n    if '--no_cuda_ext' in sys.argv:\n        ext_modules = []\n"
                                 "        sys.argv.remove('--no_cuda_ext')\n    else:\n        ext_modules = [" + build + "]\n" + tail);
    d.write("README.md", "# pkg\n\n```\npython setup.py develop\n```\n");
    std::tie(impact, note) = build_impact("opt-out, not passed");
    EXPECT_GT(impact, VerdictImpact::none) << note;
    d.write("README.md", "# pkg\n");
    d.write("INSTALL.md", "# Install\n\n```\npython setup.py develop --no_cuda_ext\n```\n");
    std::tie(impact, note) = build_impact("opt-out, passed");
    EXPECT_EQ(impact, VerdictImpact::none) << note;
    EXPECT_NE(note.find("the documented install passes --no_cuda_ext (INSTALL.md:4)"), std::string::npos) << note;
    d.write("README.md", "# pkg\n\nFor the CUDA ops:\n\n    pip install -e .\n");
    std::tie(impact, note) = build_impact("opt-out, passed and not passed");
    EXPECT_GT(impact, VerdictImpact::none) << note;
}

// An extension loaded just in time only under an environment switch that is off unless set (BasicSR's
// `if os.getenv('BASICSR_JIT') == 'True': ext = load(...)`, in the handler of the failed import of
// the prebuilt one) is off by default; a command that sets `BASICSR_JIT=True` turns it on.
TEST(ProgramModel, AnExtensionLoadedOnlyUnderAnEnvironmentSwitchIsOffByDefault) {
    test::TempDir d;
    d.write("pkg/__init__.py", "from .fused import fused_act\n");
    d.write("train.py", "import torch\nfrom pkg import fused_act\n\n\nif __name__ == '__main__':\n    fused_act(torch.ones(2))\n");
    const std::string load = "fused_ext = load('fused', sources=['src/fused.cpp', 'src/fused_kernel.cu'])\n";
    const std::string act = "\n\ndef fused_act(x):\n    return torch.relu(x)\n";
    const std::string head = "import os\nimport torch\nfrom torch.utils.cpp_extension import load\n\n";
    auto build = [&](const std::string& fused, const std::string& readme) {
        d.write("pkg/fused.py", fused);
        d.write("README.md", readme);
        const ScanResult r = scan_dir(d);
        const Finding* f = find(r, "cuda-extension-build", "pkg/fused.py");
        EXPECT_NE(f, nullptr) << fused;
        return f ? std::make_pair(f->impact, f->note) : std::make_pair(VerdictImpact::stay, std::string());
    };
    // in the handler of the prebuilt module's import, through a name bound from the read
    auto [impact, note] = build("import torch\n\ntry:\n    from . import fused_ext\nexcept ImportError:\n    import os\n"
                                "    JIT = os.getenv('BASICSR_JIT')\n    if JIT == 'True':\n"
                                "        from torch.utils.cpp_extension import load\n        " + load + act, "# pkg\n");
    EXPECT_EQ(impact, VerdictImpact::none) << note;
    EXPECT_NE(note.find("off by default: $BASICSR_JIT"), std::string::npos) << note;
    // `== '1'` with a default of '1' is on by default
    std::tie(impact, note) = build(head + "if os.environ.get('BASICSR_JIT', '1') == '1':\n    " + load + act, "# pkg\n");
    EXPECT_GT(impact, VerdictImpact::none) << note;
    const std::string off = head + "if os.environ.get('BASICSR_JIT', '0') == '1':\n    " + load + act;
    std::tie(impact, note) = build(off, "# pkg\n");
    EXPECT_EQ(impact, VerdictImpact::none) << note;
    std::tie(impact, note) = build(off, "# pkg\n\n```\nBASICSR_JIT=0 python train.py\n```\n");  // set, to off
    EXPECT_EQ(impact, VerdictImpact::none) << note;
    std::tie(impact, note) = build(off, "# pkg\n\n```\nBASICSR_JIT=1 python train.py\n```\n");
    EXPECT_GT(impact, VerdictImpact::none) << note;
    // ChatRWKV's shape: the switch around a build with a fallback. Off, the switch decides; turned on
    // by a command, the fallback inside it does (dual-track), not nothing (stay-on-CUDA).
    const std::string around = head + "if os.environ.get('RWKV_CUDA_ON') == '1':\n    try:\n        " + load +
                               "    except Exception:\n        fused_ext = None\n" + act;
    std::tie(impact, note) = build(around, "# pkg\n");
    EXPECT_EQ(impact, VerdictImpact::none) << note;
    EXPECT_NE(note.find("off by default: $RWKV_CUDA_ON; inside it: try/except with a fallback (pkg/fused.py:7)"), std::string::npos) << note;
    std::tie(impact, note) = build(around, "# pkg\n\n```\nRWKV_CUDA_ON=1 python train.py\n```\n");
    EXPECT_EQ(impact, VerdictImpact::dual) << note;
    EXPECT_NE(note.find("try/except with a fallback (pkg/fused.py:7)"), std::string::npos) << note;
    EXPECT_EQ(note.find("off by default"), std::string::npos) << note;
}

// In a file no entry reaches, an extension loaded only where CUDA is available (EasyOCR's DBNet ops:
// `if torch.cuda.is_available(): try: from .. import deform_pool_cuda / except: deform_pool_cuda =
// cpp_extension.load(...)`) is never built on a Mac: the device check weighs as it would on the run.
TEST(ProgramModel, AnUnreachedExtensionLoadedOnlyWhereCudaIsAvailableKeepsItsDeviceCheck) {
    test::TempDir d;
    d.write("train.py", "import torch\n\n\nif __name__ == '__main__':\n    print(torch.ones(2))\n");
    d.write("ops/__init__.py", "");
    const std::string load = "cpp_extension.load(name='deform_pool_cuda', sources=[os.path.join(here, 'k.cu')])\n";
    auto weigh = [&](const std::string& body) {
        d.write("ops/deform_pool.py", "import os\nimport torch\nfrom torch.utils import cpp_extension\n\nhere = os.path.dirname(__file__)\n" + body);
        const ScanResult r = scan_dir(d);
        const Finding* f = find(r, "cuda-extension-build", "ops/deform_pool.py");
        EXPECT_NE(f, nullptr) << body;
        return f ? *f : Finding{};
    };
    Finding f = weigh("if torch.cuda.is_available():\n    try:\n        from . import deform_pool_cuda\n    except ImportError:\n"
                      "        deform_pool_cuda = " + load);
    EXPECT_EQ(f.reach, Reach::unreached);
    EXPECT_EQ(f.severity, Severity::info) << f.note;
    EXPECT_NE(f.note.find("device-check on the import chain"), std::string::npos) << f.note;
    // without the check, unreached alone: one level below the rule
    f = weigh("try:\n    from . import deform_pool_cuda\nexcept ImportError:\n    deform_pool_cuda = " + load);
    EXPECT_EQ(f.severity, Severity::major) << f.note;
    // one site under the check and one outside it: no shared guard
    f = weigh("if torch.cuda.is_available():\n    from . import deform_pool_cuda\nelse:\n    deform_pool_cuda = " + load);
    EXPECT_EQ(f.severity, Severity::major) << f.note;
}

// YOLOX's JitOp base class passes nvcc flags to every op it builds just in time (`load(name=self.name,
// sources=self.sources(), extra_cuda_cflags=self.nvcc_args())`); its one op globs cocoeval/*.cpp and the
// repository has no .cu file: nvcc has nothing to compile (rules/program.yaml no_cuda_sources). With a
// .cu file in the repository the build may well compile it, and keeps its weight.
TEST(ProgramModel, AJitBuildWithNvccFlagsAndNoCudaSourceInTheRepositoryIsInfo) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/jit_ops.py", "import glob\nfrom torch.utils.cpp_extension import load\n\n\nclass JitOp:\n"
                              "    def sources(self):\n        return glob.glob('pkg/csrc/*.cpp')\n\n"
                              "    def jit_load(self):\n        return load(name='fast_eval', sources=self.sources(), extra_cuda_cflags=['-O3'])\n");
    d.write("pkg/csrc/eval.cpp", "int add(int a, int b) { return a + b; }\n");
    d.write("train.py", "import torch\nfrom pkg.jit_ops import JitOp\n\n\nif __name__ == '__main__':\n    JitOp().jit_load()\n");
    const ScanResult cpp_only = scan_dir(d);
    const Finding* f = find(cpp_only, "cuda-extension-build", "pkg/jit_ops.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->impact, VerdictImpact::none) << f->note;
    EXPECT_EQ(f->severity, Severity::info) << f->note;
    EXPECT_NE(f->note.find("no .cu/.cuh source for nvcc to compile"), std::string::npos) << f->note;
    d.write("pkg/csrc/eval_kernel.cu", "__global__ void k(float* x) { x[0] = 1.0f; }\n");
    const ScanResult with_cuda = scan_dir(d);
    f = find(with_cuda, "cuda-extension-build", "pkg/jit_ops.py");
    ASSERT_NE(f, nullptr);
    EXPECT_GT(f->impact, VerdictImpact::none) << f->note;
}

// AudioLDM's default config is a dict in the code: `"target": "pkg.clap.encoders.Embedder"`, built by
// instantiate_from_config. The module it names is reached (on demand) from the file that writes it,
// and the class is named there: its `.cuda()` keeps the rule's weight, as from a YAML config.
TEST(ProgramModel, ATargetNamedInADictOfTheCodeImportsItsModule) {
    test::TempDir d;
    d.write("pkg/__init__.py", "from .pipeline import build\n");
    d.write("pkg/pipeline.py", "from .util import instantiate_from_config\n\n\ndef default_config():\n"
                               "    return {'cond_stage_config': {'target': 'pkg.clap.encoders.Embedder', 'params': {'key': 'wave'}}}\n\n\n"
                               "def build():\n    return instantiate_from_config(default_config()['cond_stage_config'])\n");
    d.write("pkg/util.py", "import importlib\n\n\ndef instantiate_from_config(c):\n    m, n = c['target'].rsplit('.', 1)\n"
                           "    return getattr(importlib.import_module(m), n)(**c.get('params', {}))\n");
    d.write("pkg/clap/__init__.py", "");
    const std::string encoders = "import torch\n\n\nclass Embedder(torch.nn.Module):\n    def __init__(self, key):\n        super().__init__()\n"
                                 "        self.w = torch.zeros(1).cuda()\n";
    d.write("pkg/clap/encoders.py", encoders);
    d.write("run.py", "from pkg import build\n\nif __name__ == '__main__':\n    build()\n");
    const ScanResult r = scan_dir(d);
    const Finding* f = find(r, "cuda-method-call", "pkg/clap/encoders.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reach, Reach::core) << f->note;
    EXPECT_NE(f->guard, GuardKind::never_called) << f->guard_note;
    EXPECT_EQ(f->severity, Severity::major) << f->note;
    ASSERT_FALSE(f->chain.empty());
    EXPECT_NE(f->chain[f->chain.size() - 2].find("pkg/pipeline.py:5"), std::string::npos) << f->chain[f->chain.size() - 2];
    // The same with pipeline.py from the per-file cache: the written name stays a use (ImportFact::in_string is kept).
    test::TempDir cache;
    ScanOptions o;
    o.cache_dir = cache.path();
    (void)scan_dir(d, o);
    d.write("pkg/clap/encoders.py", encoders + "# edited\n");
    const ScanResult warm = scan_dir(d, o);
    EXPECT_GT(warm.files_cached, 0u);
    const Finding* w = find(warm, "cuda-method-call", "pkg/clap/encoders.py");
    ASSERT_NE(w, nullptr);
    EXPECT_NE(w->guard, GuardKind::never_called) << w->guard_note;
}

// SpeechBrain's recipes: `python train.py hparams/train.yaml`, whose HyperPyYAML names the loss by a tag
// (`compute_cost: !name:pkg.losses.rnnt_loss`). The config imports that module, and it uses the function:
// the Numba CUDA kernel rnnt_loss() imports lazily is on the run's path, although the only call in Python
// is a test's under a CUDA skip. Without the tag the function has only that call: guarded, info.
TEST(ProgramModel, AHyperPyYamlTagNamesTheCodeTheRecipeRuns) {
    test::TempDir d;
    d.write("pkg/__init__.py", "");
    d.write("pkg/losses.py", "def rnnt_loss(logits, targets):\n    from pkg.numba_rnnt import RNNTKernel\n"
                             "    return RNNTKernel.apply(logits, targets)\n\n\ndef ctc_loss(logits, targets):\n    return logits.sum()\n");
    d.write("pkg/numba_rnnt.py", "import torch\nfrom numba import cuda\n\n\nclass RNNTKernel(torch.autograd.Function):\n"
                                 "    @staticmethod\n    def forward(ctx, logits, targets):\n        return logits.sum()\n");
    d.write("tests/test_losses.py", "import unittest\nimport torch\nfrom pkg.losses import rnnt_loss\n\n\n"
                                    "class T(unittest.TestCase):\n    @unittest.skipIf(not torch.cuda.is_available(), 'CUDA')\n"
                                    "    def test_rnnt(self):\n        rnnt_loss(torch.ones(2), torch.ones(2))\n");
    d.write("recipes/asr/train.py", "import sys\nfrom hyperpyyaml import load_hyperpyyaml\n\nif __name__ == '__main__':\n"
                                    "    with open(sys.argv[1]) as fin:\n        hparams = load_hyperpyyaml(fin)\n"
                                    "    print(hparams['compute_cost'])\n");
    d.write("recipes/asr/README.md", "Run:\n\n```\npython train.py hparams/train.yaml\n```\n");
    const std::string tagged = "seed: 1\nmodules:\n  - !new:torch.nn.Linear\n    in_features: 2\n    out_features: 2\n"
                               "compute_cost: !name:pkg.losses.rnnt_loss\n    blank_index: 0\n";
    d.write("recipes/asr/hparams/train.yaml", tagged);
    const ScanResult r = scan_dir(d);
    const Finding* f = find(r, "cuda-only-package-import", "pkg/numba_rnnt.py");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reach, Reach::core) << f->note;
    EXPECT_EQ(f->guard, GuardKind::none) << f->guard_note;
    EXPECT_GT(f->impact, VerdictImpact::none) << f->note;
    ASSERT_GE(f->chain.size(), 3u);
    EXPECT_NE(f->chain[1].find("recipes/asr/hparams/train.yaml:6"), std::string::npos) << f->chain[1];
    // the recipe picks the CTC loss: the Numba kernel is left to the test's guarded call
    d.write("recipes/asr/hparams/train.yaml", "seed: 1\ncompute_cost: !name:pkg.losses.ctc_loss\n    blank_index: 0\n");
    const ScanResult ctc = scan_dir(d);
    const Finding* g = find(ctc, "cuda-only-package-import", "pkg/numba_rnnt.py");
    ASSERT_NE(g, nullptr);
    EXPECT_NE(g->guard, GuardKind::none) << g->note;
    EXPECT_EQ(g->impact, VerdictImpact::none) << g->note;
}

// neuralangelo's trainer and model are modules a config names: `importlib.import_module(cfg.trainer.type)`
// with `trainer: {type: projects.demo.trainer}` in the config train.py reads. The import is a step to the
// config, the config to the module it names there: the model's tiny-cuda-nn is on the run's path. A
// module the config names at another key (`data.type`, for no such import) stays unreached, and so does
// the same import's target in a config nothing reads. (Here only a helper script names the config, as in
// neuralangelo: the run's own config comes on its command line.)
TEST(ProgramModel, AModuleAConfigNamesForImportModuleIsReached) {
    test::TempDir d;
    d.write("core/__init__.py", "");
    d.write("core/get_trainer.py", "import importlib\n\n\ndef get_trainer(cfg):\n"
                                   "    trainer_lib = importlib.import_module(cfg.trainer.type)\n    return trainer_lib.Trainer(cfg)\n");
    d.write("projects/__init__.py", "");
    d.write("projects/demo/__init__.py", "");
    d.write("projects/demo/trainer.py", "from projects.demo.model import Model\n\n\nclass Trainer:\n"
                                        "    def __init__(self, cfg):\n        self.model = Model()\n");
    d.write("projects/demo/model.py", "import torch\nimport tinycudann as tcnn\n\n\nclass Model(torch.nn.Module):\n"
                                      "    def __init__(self):\n        super().__init__()\n"
                                      "        self.enc = tcnn.Encoding(3, {'otype': 'HashGrid'})\n");
    d.write("projects/other/__init__.py", "");
    d.write("projects/other/reader.py", "import tinycudann as tcnn\n\nENC = tcnn.Encoding\n");
    d.write("projects/demo/configs/base.yaml", "trainer:\n  type: projects.demo.trainer\ndata:\n  type: projects.other.reader\n");
    d.write("projects/other/configs/unread.yaml", "trainer:\n  type: projects.other.reader\n");
    // the config a run takes is given on its command line; a helper script names the base config
    d.write("train.py", "import argparse\nimport yaml\nfrom core.get_trainer import get_trainer\n\nif __name__ == '__main__':\n"
                        "    p = argparse.ArgumentParser()\n    p.add_argument('--config', required=True)\n"
                        "    args = p.parse_args()\n    get_trainer(yaml.safe_load(open(args.config)))\n");
    d.write("scripts/generate_config.py", "import yaml\n\nif __name__ == '__main__':\n"
                                      "    base = yaml.safe_load(open('projects/demo/configs/base.yaml'))\n    print(base)\n");
    auto expect = [](const ScanResult& r) {
        const Finding* f = find(r, "cuda-only-package-import", "projects/demo/model.py");
        ASSERT_NE(f, nullptr);
        EXPECT_EQ(f->reach, Reach::core) << f->note;
        EXPECT_EQ(f->impact, VerdictImpact::stay) << f->note;
        EXPECT_EQ(f->chain, (std::vector<std::string>{"train.py:3", "core/get_trainer.py:5", "projects/demo/configs/base.yaml:2",
                                                      "projects/demo/trainer.py:1", "projects/demo/model.py:2"}));
        const Finding* other = find(r, "cuda-only-package-import", "projects/other/reader.py");
        ASSERT_NE(other, nullptr);
        EXPECT_EQ(other->reach, Reach::unreached) << other->note;
    };
    expect(scan_dir(d));
    // the same from the cache, and again once only the trainer's file changed
    test::TempDir cache;
    ScanOptions o;
    o.cache_dir = cache.path();
    (void)scan_dir(d, o);
    d.write("projects/demo/trainer.py", "from projects.demo.model import Model\n\n\nclass Trainer:\n"
                                        "    def __init__(self, cfg):\n        self.model = Model()  # edited\n");
    const ScanResult warm = scan_dir(d, o);
    EXPECT_GT(warm.files_cached, 0u);
    expect(warm);
}

// One cause, one finding: a CUDA kernel is ported whole. The shared memory, launches and CUB use in the
// file that defines it, and the CUB use of a header beside it (mamba's reverse_scan.cuh), are parts of
// that port (rules/program.yaml kernel_details): info, with the kernel named. A device function keeps
// its weight (its lines are no kernel's own), and so does a header in a folder with no kernel.
TEST(ProgramModel, KernelDetailsAreFoldedIntoTheirKernel) {
    test::TempDir d;
    d.write("setup.py", "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension, BuildExtension\n\n"
                        "setup(name='scan', ext_modules=[CUDAExtension('scan_cuda', ['csrc/scan/scan.cu'])], cmdclass={'build_ext': BuildExtension})\n");
    d.write("csrc/scan/scan.cu", "#include <cub/block/block_scan.cuh>\n#include \"reverse.cuh\"\n\n"
                                 "__global__ void scan_kernel(const float* x, float* y, int n) {\n    __shared__ float tile[256];\n"
                                 "    int i = threadIdx.x + blockIdx.x * blockDim.x;\n    if (i < n) tile[threadIdx.x] = reverse_add(x[i], 1.0f);\n"
                                 "    __syncthreads();\n    if (i < n) y[i] = tile[threadIdx.x];\n}\n\n"
                                 "void launch(const float* x, float* y, int n) {\n    scan_kernel<<<(n + 255) / 256, 256>>>(x, y, n);\n"
                                 "    cudaDeviceSynchronize();\n    cudaMemset(y, 0, n);\n}\n");
    // host-side CUDA in a C++ header beside the kernels: the binding's Mac build includes it
    d.write("csrc/scan/bind.h", "#pragma once\ninline void wait_all() { cudaDeviceSynchronize(); }\n");
    d.write("csrc/scan/reverse.cuh", "#pragma once\n#include <cub/warp/warp_reduce.cuh>\n__device__ __forceinline__ float reverse_add(float a, float b) {\n"
                                     "    return a + b;\n}\n");
    d.write("csrc/common/helpers.cuh", "#pragma once\n#include <cub/warp/warp_reduce.cuh>\n__device__ __forceinline__ float twice(float a) {\n"
                                       "    return 2.0f * a;\n}\n");
    d.write("model.py", "import torch\nimport scan_cuda\n\n\ndef run(x):\n    return scan_cuda.forward(x)\n");
    d.write("train.py", "from model import run\n\nif __name__ == '__main__':\n    run(None)\n");
    const ScanResult r = scan_dir(d);
    const Finding* kernel = find(r, "cuda-kernel-source", "csrc/scan/scan.cu");
    ASSERT_NE(kernel, nullptr);
    EXPECT_GT(kernel->severity, Severity::info) << kernel->note;
    int folded = 0;
    for (const auto& f : r.findings) {
        if (f.rule_id == "cuda-kernel-source" || f.rule_id.rfind("cuda-", 0) != 0) continue;
        if (f.location.path == "csrc/scan/scan.cu" || f.location.path == "csrc/scan/reverse.cuh") {
            if (f.rule_id == "cuda-only-extension-op") continue;
            if (f.rule_id == "cuda-device-function") {
                EXPECT_EQ(f.note.find("cuda-kernel-source"), std::string::npos) << f.note;
                continue;
            }
            ++folded;
            EXPECT_EQ(f.severity, Severity::info) << f.rule_id << " " << f.location.path << ":" << f.location.line << " " << f.note;
            EXPECT_EQ(f.impact, VerdictImpact::none) << f.rule_id;
            EXPECT_NE(f.note.find("cuda-kernel-source, line 4"), std::string::npos) << f.note;
        }
    }
    EXPECT_GE(folded, 6);  // CUB in both files, __shared__, the launch, the synchronize and the memset
    for (const char* rule : {"cuda-runtime-device-api", "cuda-runtime-memory-api"}) {
        const Finding* host = find(r, rule, "csrc/scan/scan.cu");
        ASSERT_NE(host, nullptr) << rule;
        EXPECT_EQ(host->severity, Severity::info) << host->note;
    }
    const Finding* header = find(r, "cuda-runtime-device-api", "csrc/scan/bind.h");
    ASSERT_NE(header, nullptr);
    EXPECT_GT(header->severity, Severity::info) << header->note;
    const Finding* device_function = find(r, "cuda-device-function", "csrc/scan/reverse.cuh");
    ASSERT_NE(device_function, nullptr);
    EXPECT_NE(device_function->severity, Severity::info) << device_function->note;
    const Finding* other = find(r, "cuda-library-use", "csrc/common/helpers.cuh");
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(other->note.find("cuda-kernel-source"), std::string::npos) << other->note;
}


// The same for Triton (rules/program.yaml package_details): in a file that imports triton with no
// guard, the CUDA device guard around a launch and its `device="cuda"` buffer are parts of the file's
// kernels (flash-linear-attention's layernorm.py): info, naming the import. Where the import has a
// fallback, the file runs on a Mac without its kernels, and the same lines keep their weight.
TEST(ProgramModel, TritonKernelDetailsAreFoldedIntoTheImportOfTriton) {
    test::TempDir d;
    const std::string body = "\n\n@triton.jit\ndef norm_kernel(x_ptr, n):\n    pass\n\n\n"
                             "def layer_norm(x):\n    y = torch.empty(x.shape, device=\"cuda\")\n"
                             "    with torch.cuda.device(x.device.index):\n        norm_kernel[(1,)](x, x.numel())\n    return y\n";
    d.write("fla/__init__.py", "");
    d.write("train.py", "import torch\nfrom fla.layernorm import layer_norm\n\nif __name__ == '__main__':\n    layer_norm(torch.ones(2))\n");
    d.write("fla/layernorm.py", "import torch\nimport triton\nimport triton.language as tl" + body);
    const ScanResult r = scan_dir(d);
    const Finding* import = find(r, "cuda-only-package-import", "fla/layernorm.py");
    ASSERT_NE(import, nullptr);
    EXPECT_EQ(import->impact, VerdictImpact::stay) << import->note;
    for (const char* rule : {"hardcoded-cuda-device", "torch-cuda-device-management"}) {
        const Finding* f = find(r, rule, "fla/layernorm.py");
        ASSERT_NE(f, nullptr) << rule;
        EXPECT_EQ(f->severity, Severity::info) << rule << ": " << f->note;
        EXPECT_EQ(f->impact, VerdictImpact::none) << rule;
        EXPECT_NE(f->note.find("a part of the triton kernels of this file (cuda-only-package-import, line 2)"), std::string::npos) << f->note;
    }
    d.write("fla/layernorm.py", "import torch\ntry:\n    import triton\n    import triton.language as tl\nexcept ImportError:\n    triton = None" + body);
    const ScanResult guarded = scan_dir(d);
    const Finding* device = find(guarded, "torch-cuda-device-management", "fla/layernorm.py");
    ASSERT_NE(device, nullptr);
    EXPECT_GT(device->severity, Severity::info) << device->note;
    EXPECT_EQ(device->note.find("triton kernels"), std::string::npos) << device->note;
}

}  // namespace mpsport
