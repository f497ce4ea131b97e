// Whole scans over manifests: requirement includes (relative, cycle-safe), malformed manifests
// listed as skipped while the rest of the scan goes on.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "analyzer/scanner.hpp"
#include "test_support.hpp"

using namespace mpsport;

namespace {

std::string reason_for(const ScanResult& r, const std::string& path) {
    std::string out;
    for (const auto& s : r.skipped)
        if (s.path == path) out += s.reason + "\n";
    return out;
}

int count(const ScanResult& r, const std::string& rule, const std::string& path) {
    int n = 0;
    for (const auto& f : r.findings) n += f.rule_id == rule && f.location.path == path;
    return n;
}

ScanResult scan_dir(const test::TempDir& d) {
    ScanOptions o;
    o.jobs = 2;
    return test::bundled_scanner().scan(d.path(), {d.path()}, o);
}

}  // namespace

TEST(ManifestScans, IncludesAreFollowedRelativeToTheIncludingFileAndCyclesStop) {
    test::TempDir d;
    d.write("requirements.txt", "numpy\n-r deps/gpu.txt\n-c deps/pins.txt\n-r missing.txt\n");
    d.write("deps/gpu.txt", "flash-attn==2.5.8\n-r ../requirements.txt\n");  // a cycle back to the top
    d.write("deps/pins.txt", "torch==2.1.0+cu118\n");
    const ScanResult r = scan_dir(d);
    EXPECT_EQ(count(r, "cuda-only-package-dependency", "deps/gpu.txt"), 1);
    EXPECT_EQ(count(r, "cuda-torch-wheel", "deps/pins.txt"), 1);
    EXPECT_NE(reason_for(r, "deps/gpu.txt").find("include cycle (requirements.txt -> deps/gpu.txt -> requirements.txt)"),
              std::string::npos)
        << reason_for(r, "deps/gpu.txt");
    EXPECT_NE(reason_for(r, "missing.txt").find("named by -r missing.txt in requirements.txt but not found"), std::string::npos);
    EXPECT_EQ(r.files_scanned, 3u);  // each file once
}

TEST(ManifestScans, MalformedManifestsAreNamedAndTheScanGoesOn) {
    test::TempDir d;
    d.write("pyproject.toml", "[project]\nname = 'x'\ndependencies = ['flash-attn'\n");
    d.write("environment.yml", "name: x\ndependencies:\n\t- cupy\n");
    d.write("requirements.txt", "numpy\ntorch[cuda==2.1\n");
    d.write("requirements-gpu.txt", "xformers\n");
    const ScanResult r = scan_dir(d);
    EXPECT_NE(reason_for(r, "pyproject.toml").find("invalid TOML at line"), std::string::npos) << reason_for(r, "pyproject.toml");
    EXPECT_NE(reason_for(r, "environment.yml").find("invalid YAML at line 3"), std::string::npos) << reason_for(r, "environment.yml");
    EXPECT_NE(reason_for(r, "requirements.txt").find("invalid requirement at line 2: unbalanced '['"), std::string::npos)
        << reason_for(r, "requirements.txt");
    EXPECT_EQ(count(r, "cuda-only-package-dependency", "requirements-gpu.txt"), 1);
}

// A repo that is itself a listed package (mamba_ssm, detectron2) imports itself: not a dependency
// (the program model's own-package check, with the knowledge base's import names).
TEST(ManifestScans, FirstPartyPackagesAreNotCudaOnlyImports) {
    test::TempDir d;
    d.write("mamba_ssm/__init__.py", "from mamba_ssm.ops import selective_scan\n");
    d.write("mamba_ssm/ops.py", "import triton\nimport mamba_ssm.utils as u, flash_attn\n");
    d.write("src/benchmarks/__init__.py", "");
    d.write("train.py", "import mamba_ssm\nfrom xformers import ops\n");
    const ScanResult r = scan_dir(d);
    std::multiset<std::string> got;
    for (const auto& f : r.findings)
        if (f.rule_id == "cuda-only-package-import") got.insert(f.location.path + ":" + std::to_string(f.location.line));
    // ops.py:2 imports the repo itself and flash_attn: the flash_attn import stays.
    EXPECT_EQ(got, (std::multiset<std::string>{"mamba_ssm/ops.py:1", "mamba_ssm/ops.py:2", "train.py:2"}));
}

// A CUDA-only package whose own pure-PyTorch references do the same job (mamba_ssm's
// selective_scan_ref, beside selective_scan_fn in ops.selective_scan_interface) is dual-track where
// the import is of that module, and says what replaces it; one with none (flash_attn's kernels
// in this list are stay) keeps the run on CUDA. One whose every API is a fused version of PyTorch's
// own (apex: amp, its DDP, FusedLayerNorm) is an edit, used unguarded or not (glow-tts's
// `model = DDP(generator)`): major, no verdict impact.
TEST(ManifestScans, APackageWithItsOwnReferenceImplementationIsDualTrack) {
    test::TempDir d;
    d.write("train.py", "import torch\nfrom mamba_ssm.ops.selective_scan_interface import selective_scan_fn\nimport flash_attn\n"
                        "from apex.parallel import DistributedDataParallel as DDP\n\n"
                        "if __name__ == '__main__':\n    print(selective_scan_fn, flash_attn)\n    model = DDP(torch.nn.Linear(2, 2))\n");
    const ScanResult r = scan_dir(d);
    std::map<int, const Finding*> imports;
    for (const auto& f : r.findings)
        if (f.rule_id == "cuda-only-package-import") imports[f.location.line] = &f;
    ASSERT_EQ(imports.size(), 3u);
    EXPECT_EQ(imports[2]->impact, VerdictImpact::dual) << imports[2]->note;
    EXPECT_NE(imports[2]->note.find("selective_scan_ref"), std::string::npos) << imports[2]->note;
    EXPECT_EQ(imports[3]->impact, VerdictImpact::stay) << imports[3]->note;
    EXPECT_EQ(imports[4]->impact, VerdictImpact::none) << imports[4]->note;
    EXPECT_EQ(imports[4]->severity, Severity::major) << imports[4]->note;
    EXPECT_NE(imports[4]->note.find("drop-in replacements that run on a Mac (torch.amp"), std::string::npos) << imports[4]->note;
    // the references sit beside the selective-scan interface only: caduceus's import of the Mamba
    // module has none, and keeps the run on CUDA
    d.write("model.py", "import torch\nfrom mamba_ssm.modules.mamba_simple import Mamba\n\n\ndef build():\n    return Mamba(16)\n");
    d.write("train.py", "import torch\nimport model\n\nif __name__ == '__main__':\n    model.build()\n");
    const ScanResult module = scan_dir(d);
    const Finding* mamba = nullptr;
    for (const auto& f : module.findings)
        if (f.rule_id == "cuda-only-package-import" && f.location.path == "model.py") mamba = &f;
    ASSERT_NE(mamba, nullptr);
    EXPECT_EQ(mamba->impact, VerdictImpact::stay) << mamba->note;
    EXPECT_NE(mamba->note.find("imports mamba_ssm.modules.mamba_simple, which has no pure-PyTorch reference"), std::string::npos) << mamba->note;
}

// VoiceCraft's environment.yml is `conda env export` of a Linux machine: one finding for the export, at
// its first Linux-only package; the CUDA wheels it pins (what that machine's torch pulled in) and
// NVIDIA's channel are info, naming it. A hand-written environment keeps their weight.
TEST(ManifestScans, AnExportOfALinuxEnvironmentIsOneFinding) {
    test::TempDir d;
    const std::string deps = "  - pytorch-cuda=11.8\n  - pip:\n      - nvidia-cudnn-cu11==8.5.0.96\n";
    d.write("environment.yml", "name: vc\nchannels:\n  - nvidia\ndependencies:\n  - _libgcc_mutex=0.1=conda_forge\n" + deps + "prefix: /home/u/envs/vc\n");
    d.write("handwritten/environment.yml", "name: vc\nchannels:\n  - nvidia\ndependencies:\n" + deps);
    const ScanResult r = scan_dir(d);
    std::vector<const Finding*> exported, handwritten;
    for (const auto& f : r.findings) (f.location.path == "environment.yml" ? exported : handwritten).push_back(&f);
    ASSERT_EQ(std::count_if(exported.begin(), exported.end(), [](const Finding* f) { return f->rule_id == "conda-environment-export"; }), 1);
    ASSERT_GE(exported.size(), 4u);  // the export, the channel, pytorch-cuda, the cuDNN wheel
    for (const Finding* f : exported) {
        if (f->rule_id == "conda-environment-export") {
            EXPECT_EQ(f->severity, Severity::minor);
            EXPECT_NE(f->message.find("one Linux machine's environment (_libgcc_mutex"), std::string::npos) << f->message;
            continue;
        }
        EXPECT_EQ(f->severity, Severity::info) << f->rule_id << " " << f->note;
        EXPECT_NE(f->note.find("pinned by an export of one machine's environment"), std::string::npos) << f->note;
    }
    ASSERT_GE(handwritten.size(), 3u);
    for (const Finding* f : handwritten) {
        EXPECT_NE(f->rule_id, "conda-environment-export");
        EXPECT_EQ(f->severity, Severity::minor) << f->rule_id << " " << f->note;
    }
}

// NVIDIA's conda channel is only where the solver looks: EDM's environment.yml lists it beside
// pytorch and asks for no package of NVIDIA's, so on a Mac it costs nothing (info). With
// pytorch-cuda, which pulls the CUDA runtime from it, the channel is a Linux environment's (minor).
TEST(ManifestScans, AnNvidiaChannelNoPackageComesFromIsInfo) {
    test::TempDir d;
    d.write("environment.yml", "name: edm\nchannels:\n  - pytorch\n  - nvidia\ndependencies:\n  - python>=3.8\n  - pytorch=1.12.1\n  - numpy\n");
    d.write("cuda/environment.yml", "name: gpu\nchannels:\n  - pytorch\n  - nvidia\ndependencies:\n  - pytorch=2.1.0\n  - pytorch-cuda=11.8\n");
    const ScanResult r = scan_dir(d);
    std::map<std::string, const Finding*> channel;
    for (const auto& f : r.findings)
        if (f.rule_id == "conda-nvidia-channel") channel[f.location.path] = &f;
    ASSERT_EQ(channel.size(), 2u);
    EXPECT_EQ(channel.at("environment.yml")->severity, Severity::info) << channel.at("environment.yml")->note;
    EXPECT_NE(channel.at("environment.yml")->note.find("no dependency of this environment"), std::string::npos);
    EXPECT_EQ(channel.at("cuda/environment.yml")->severity, Severity::minor) << channel.at("cuda/environment.yml")->note;
}
