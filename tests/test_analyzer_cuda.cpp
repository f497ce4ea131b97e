// The Clang engine on whole trees: crashes and hangs cost one file, ops are joined across files,
// compile_commands.json and repository headers are used, macro locations land in the user's file,
// the cache keeps native facts, and a broken matcher fails when rules load.
#include <gtest/gtest.h>

#include <functional>

#include "analyzer/cuda/clang_engine.hpp"
#include "analyzer/scanner.hpp"
#include "core/paths.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace mpsport;

namespace {

std::string reason_for(const ScanResult& r, const std::string& path) {
    for (const auto& s : r.skipped)
        if (s.path == path) return s.reason;
    return "";
}

std::vector<std::pair<std::string, int>> hits(const ScanResult& r, const std::string& rule) {
    std::vector<std::pair<std::string, int>> out;
    for (const auto& f : r.findings)
        if (f.rule_id == rule) out.emplace_back(f.location.path, f.location.line);
    return out;
}

ScanResult scan_tree(const fs::path& root, unsigned timeout_s = 60) {
    ScanOptions o;
    o.jobs = 2;
    o.clang_timeout_s = timeout_s;
    return test::bundled_scanner().scan(root, {root}, o);
}

const NativeOp* find_op(const ScanResult& r, const std::string& name) {
    for (const auto& m : r.native_modules)
        for (const auto& op : m.ops)
            if (op.name == name) return &op;
    return nullptr;
}

TEST(ClangEngine, WithoutClangTheRulesAreReportedAsNotRun) {
    test::TempDir d;
    d.write("k.cu", "__global__ void k(float* x) { x[0] = 1.f; }\n");
    const ScanResult r = scan_tree(d.path());
    const bool warned = std::any_of(r.warnings.begin(), r.warnings.end(),
                                    [](const std::string& w) { return w.find("engine: clang were not run") != std::string::npos; });
    EXPECT_EQ(warned, !cuda::ClangEngine::available());
    EXPECT_EQ(hits(r, "cuda-kernel-source").size(), cuda::ClangEngine::available() ? 1u : 0u);
}

TEST(ClangEngine, ACrashOrAHangCostsOnlyThatFile) {
    MPSPORT_REQUIRE_CLANG_ENGINE();  // asserted by WithoutClangTheRulesAreReportedAsNotRun
    test::TempDir d;
    d.write("crash.cu", "#pragma clang __debug crash\n__global__ void a(float* x) {}\n");
    d.write("fatal.cu", "#pragma clang __debug llvm_fatal_error\n__global__ void b(float* x) {}\n");
    d.write("good.cu", "#include \"missing/everywhere.cuh\"\n__global__ void good(float* x) { x[0] = 1.f; }\n");
    const ScanResult r = scan_tree(d.path());
    EXPECT_NE(reason_for(r, "crash.cu").find("Clang crashed"), std::string::npos) << reason_for(r, "crash.cu");
    EXPECT_NE(reason_for(r, "fatal.cu").find("Clang"), std::string::npos);
    EXPECT_EQ(hits(r, "cuda-kernel-source"), (std::vector<std::pair<std::string, int>>{{"good.cu", 2}}));

    // A time limit of zero seconds stops every translation unit: each is listed, none stops the scan.
    const ScanResult timed = scan_tree(d.path(), 0);
    EXPECT_NE(reason_for(timed, "good.cu").find("timed out after 0 s"), std::string::npos) << reason_for(timed, "good.cu");
    EXPECT_EQ(timed.skipped.size(), 3u);
}

// The workers persist between files and scans (the bundled scanner keeps its engine): each scan's
// repository headers reach the worker that parses its files, and a worker that crashed or ran out
// of time is replaced, not reused.
TEST(ClangEngine, WorkersServeFileAfterFileWithEachRepositorysHeaders) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    // "util/defs.cuh" is on no include path: it is found among the repository's headers by its tail
    auto repository = [](test::TempDir& d, const std::string& kernel_macro) {
        d.write("third/lib/util/defs.cuh", "#pragma once\n#define KERNEL " + kernel_macro + "\n");
        d.write("main.cu", "#include \"util/defs.cuh\"\nKERNEL void k(float* x) { x[0] = 1.f; }\n");
    };
    test::TempDir global, plain, crash;
    repository(global, "__global__");
    repository(plain, "__device__");  // a helper, no kernel; a trigger still, so main.cu is parsed
    crash.write("crash.cu", "#pragma clang __debug crash\n__global__ void a(float* x) {}\n");
    const std::vector<std::pair<std::string, int>> kernel{{"main.cu", 2}}, none;
    EXPECT_EQ(hits(scan_tree(global.path()), "cuda-kernel-source"), kernel);
    EXPECT_EQ(hits(scan_tree(plain.path()), "cuda-kernel-source"), none) << "a worker kept the last repository's headers";
    EXPECT_EQ(hits(scan_tree(global.path()), "cuda-kernel-source"), kernel);
    EXPECT_NE(reason_for(scan_tree(crash.path()), "crash.cu").find("Clang crashed"), std::string::npos);
    EXPECT_EQ(hits(scan_tree(global.path()), "cuda-kernel-source"), kernel) << "after a crash";
    EXPECT_NE(reason_for(scan_tree(global.path(), 0), "main.cu").find("timed out after 0 s"), std::string::npos);
    EXPECT_EQ(hits(scan_tree(global.path()), "cuda-kernel-source"), kernel) << "after a time-out";
    for (int i = 0; i < 3; ++i) EXPECT_EQ(hits(scan_tree(plain.path()), "cuda-kernel-source"), none) << i;
}

TEST(ClangEngine, OpsAreJoinedAcrossFilesAndBindingsFollowTheirLaunchers) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("csrc/ops.cpp", "TORCH_LIBRARY(lab, m) {\n  m.def(\"fused(Tensor x) -> Tensor\");\n  m.def(\"only_gpu(Tensor x) -> Tensor\");\n}\n");
    d.write("csrc/fused_cuda.cu",
            "at::Tensor fused_cuda(const at::Tensor& x) { return x; }\nat::Tensor only_gpu_cuda(const at::Tensor& x) { return x; }\n"
            "TORCH_LIBRARY_IMPL(lab, CUDA, m) {\n  m.impl(\"fused\", &fused_cuda);\n  m.impl(\"only_gpu\", &only_gpu_cuda);\n}\n");
    d.write("csrc/fused_cpu.cpp", "at::Tensor fused_cpu(const at::Tensor& x) { return x; }\n"
                                  "TORCH_LIBRARY_IMPL(lab, CPU, m) { m.impl(\"fused\", fused_cpu); }\n");
    // A binding whose launcher is defined in a .cu file with no telling name: found by its kernel launch.
    d.write("csrc/launch.cu", "__global__ void k(float* x) {}\nvoid run_points(float* x) { k<<<1, 1>>>(x); }\n");
    d.write("csrc/bind.cpp", "#include <torch/extension.h>\nvoid run_points(float* x);\n"
                             "void points(at::Tensor x) { run_points(x.data_ptr<float>()); }\n"
                             "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"points\", &points);\n}\n");
    const ScanResult r = scan_tree(d.path());
    const NativeOp* fused = find_op(r, "lab::fused");
    const NativeOp* only_gpu = find_op(r, "lab::only_gpu");
    const NativeOp* points = find_op(r, "points");
    ASSERT_TRUE(fused && only_gpu && points);
    EXPECT_EQ(fused->devices, (std::vector<NativeDevice>{NativeDevice::CUDA, NativeDevice::CPU}));
    EXPECT_EQ(only_gpu->devices, std::vector<NativeDevice>{NativeDevice::CUDA});
    EXPECT_EQ(points->devices, std::vector<NativeDevice>{NativeDevice::CUDA});
    EXPECT_EQ(fused->location.path, "csrc/ops.cpp");  // where the op is defined, not where a kernel is registered
    EXPECT_EQ(fused->location.line, 2);
    EXPECT_EQ(hits(r, "cuda-only-extension-op"),
              (std::vector<std::pair<std::string, int>>{{"csrc/bind.cpp", 5}, {"csrc/ops.cpp", 3}}));
    EXPECT_EQ(hits(r, "extension-op-with-cpu-path"), (std::vector<std::pair<std::string, int>>{{"csrc/ops.cpp", 2}}));
    for (const auto& m : r.native_modules)
        if (m.module_name == "TORCH_EXTENSION_NAME") {
            EXPECT_EQ(m.source_path, "csrc/bind.cpp");
        }
}

// sxyu/svox2's svox2.cpp registers its 24 ops through a macro defined in the module's body,
// `#define _REG_FUNC(funname) m.def(#funname, &funname)`: each op is bound where the macro is used,
// one line each, not all on the #define's line.
TEST(ClangEngine, OpsRegisteredThroughAMacroAreWhereTheMacroIsUsed) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("csrc/kernels.cu", "__global__ void k(float* x) {}\nvoid sample(float* x) { k<<<1, 1>>>(x); }\n"
                               "void render(float* x) { k<<<1, 1>>>(x); }\n");
    d.write("csrc/bind.cpp", "#include <torch/extension.h>\nvoid sample(float* x);\nvoid render(float* x);\n"
                             "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n#define REG(f) m.def(#f, &f)\n  REG(sample);\n  REG(render);\n}\n");
    const ScanResult r = scan_tree(d.path());
    EXPECT_EQ(hits(r, "cuda-only-extension-op"), (std::vector<std::pair<std::string, int>>{{"csrc/bind.cpp", 6}, {"csrc/bind.cpp", 7}}));
    const NativeOp* render = find_op(r, "render");
    ASSERT_NE(render, nullptr);
    EXPECT_EQ(render->location.line, 7);
}

// NVlabs/nvdiffrec's bindings start with CHECK_TENSOR (TORCH_CHECK(x.is_cuda(), ...) chained in a
// macro without semicolons) and call a launch-size helper defined in common.cpp, plain host math. A
// binding that takes CUDA tensors only has no CPU path, whatever its helpers do; without the gate the
// same helper is the CPU side it was.
TEST(ClangEngine, ABindingGatedOnCudaTensorsHasNoCpuPathThroughItsHelpers) {
    MPSPORT_REQUIRE_CLANG_ENGINE();  // asserted by WithoutClangTheRulesAreReportedAsNotRun
    test::TempDir d;
    d.write("csrc/common.h", "int grid_size(int n);\n");
    d.write("csrc/common.cpp", "#include \"common.h\"\nint grid_size(int n) { return (n + 255) / 256; }\n");
    const std::string body =
        "torch::Tensor fwd(torch::Tensor x) {\n  CHECK_TENSOR(x);\n  int g = grid_size(x.size(0));\n"
        "  return torch::empty({g}, torch::TensorOptions().device(torch::kCUDA));\n}\n"
        "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"fwd\", &fwd, \"fwd\");\n}\n";
    d.write("csrc/bind.cpp", "#include <torch/extension.h>\n#include \"common.h\"\n#define CHECK_TENSOR(X) \\\n"
                             "    TORCH_CHECK(X.is_cuda(), #X \" must be a cuda tensor\") \\\n"
                             "    TORCH_CHECK(X.dim() == 4, #X \" must have 4 dimensions\")\n" + body);
    const ScanResult gated = scan_tree(d.path());
    const NativeOp* op = find_op(gated, "fwd");
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->devices, std::vector<NativeDevice>{NativeDevice::CUDA});
    EXPECT_EQ(hits(gated, "extension-op-with-cpu-path").size(), 0u);

    d.write("csrc/bind.cpp", "#include <torch/extension.h>\n#include \"common.h\"\n#define CHECK_TENSOR(X) TORCH_CHECK(X.dim() == 4)\n" + body);
    const ScanResult ungated = scan_tree(d.path());
    op = find_op(ungated, "fwd");
    ASSERT_NE(op, nullptr);
    EXPECT_NE(std::find(op->devices.begin(), op->devices.end(), NativeDevice::CPU), op->devices.end()) << "no gate: the helper's host work is a CPU side";
}

// A bound function defined in another file, with a device test on the tensor's type and a CPU side
// that copies with the C library (pytorch3d's pulsar sphere_ids_from_result_info_nograd): both devices.
TEST(ClangEngine, AFunctionInAnotherFileWithACpuSideGivesItsBindingBothDevices) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("csrc/util.cpp", "#include <torch/extension.h>\nnamespace lab {\n"
                             "at::Tensor ids(const at::Tensor& info) {\n  auto out = torch::empty_like(info);\n"
                             "  if (info.device().type() == c10::DeviceType::CUDA) {\n"
                             "    cudaMemcpyAsync(out.data_ptr<int>(), info.data_ptr<int>(), 4, cudaMemcpyDeviceToDevice, 0);\n"
                             "  } else {\n    memcpy(out.data_ptr<int>(), info.data_ptr<int>(), 4);\n  }\n  return out;\n}\n}\n");
    d.write("csrc/only.cpp", "#include <torch/extension.h>\nnamespace lab {\n"
                             "at::Tensor gpu_ids(const at::Tensor& info) {\n  auto out = torch::empty_like(info);\n"
                             "  cudaMemcpyAsync(out.data_ptr<int>(), info.data_ptr<int>(), 4, cudaMemcpyDeviceToDevice, 0);\n"
                             "  return out;\n}\n}\n");
    d.write("csrc/bind.cpp", "#include <torch/extension.h>\nnamespace lab { at::Tensor ids(const at::Tensor&); at::Tensor gpu_ids(const at::Tensor&); }\n"
                             "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"ids\", &lab::ids);\n  m.def(\"gpu_ids\", &lab::gpu_ids);\n}\n");
    const ScanResult r = scan_tree(d.path());
    const NativeOp* ids = find_op(r, "ids");
    const NativeOp* gpu_ids = find_op(r, "gpu_ids");
    ASSERT_TRUE(ids && gpu_ids);
    EXPECT_EQ(ids->devices, (std::vector<NativeDevice>{NativeDevice::CUDA, NativeDevice::CPU}));
    EXPECT_EQ(gpu_ids->devices, std::vector<NativeDevice>{NativeDevice::CUDA});
}

// maskrcnn-benchmark's ROIAlign_forward: `if (input.type().is_cuda()) {...} return
// ROIAlign_forward_cpu(...)`, whose CPU side (another file) starts with `AT_ASSERTM(!input.type().is_cuda(),
// "input must be a CPU tensor")`. A check that a tensor is not on CUDA is no CUDA gate: the op has a
// CPU path (it was CUDA-only, and the repository stay-on-CUDA).
TEST(ClangEngine, ACheckThatATensorIsNotOnCudaIsNoCudaGate) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("csrc/cpu/vision.h", "#pragma once\n#include <torch/extension.h>\nat::Tensor align_cpu(const at::Tensor& input);\n");
    d.write("csrc/cpu/align_cpu.cpp", "#include \"cpu/vision.h\"\nat::Tensor align_cpu(const at::Tensor& input) {\n"
                                      "  AT_ASSERTM(!input.type().is_cuda(), \"input must be a CPU tensor\");\n  return input.clone();\n}\n");
    d.write("csrc/vision.cpp", "#include <torch/extension.h>\n#include \"cpu/vision.h\"\nat::Tensor align(const at::Tensor& input) {\n"
                               "  if (input.type().is_cuda()) {\n    AT_ERROR(\"Not compiled with GPU support\");\n  }\n"
                               "  return align_cpu(input);\n}\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"align\", &align, \"align\");\n}\n");
    const ScanResult r = scan_tree(d.path());
    const NativeOp* op = find_op(r, "align");
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->devices, std::vector<NativeDevice>{NativeDevice::CPU});
    EXPECT_EQ(hits(r, "cuda-tensor-gate").size(), 0u);
}

// Stability-AI/stable-fast-3d's texture baker registers its MPS kernels in an Objective-C++ file
// (baker_kernel.mm, beside a .metal shader), CUDA ones in a .cu and CPU ones in a .cpp. The .mm is
// read as C++: the registration parses, the Objective-C around it is recovered from. The op runs
// natively on a Mac: info, not the CPU path's dual-track.
TEST(ClangEngine, AnOpWithAnMpsKernelInAnObjectiveCppFileRunsNatively) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("baker/csrc/baker.cpp", "#include <torch/extension.h>\nat::Tensor rasterize_cpu(const at::Tensor& uv) { return uv.clone(); }\n"
                                    "TORCH_LIBRARY(baker, m) {\n  m.def(\"rasterize(Tensor uv) -> Tensor\");\n}\n"
                                    "TORCH_LIBRARY_IMPL(baker, CPU, m) { m.impl(\"rasterize\", rasterize_cpu); }\n");
    d.write("baker/csrc/baker_kernel.cu", "#include <torch/extension.h>\n__global__ void raster(float* x) {}\n"
                                          "at::Tensor rasterize_cuda(const at::Tensor& uv) { raster<<<1, 1>>>(nullptr); return uv; }\n"
                                          "TORCH_LIBRARY_IMPL(baker, CUDA, m) { m.impl(\"rasterize\", rasterize_cuda); }\n");
    d.write("baker/csrc/baker_kernel.mm", "#import <Foundation/Foundation.h>\n#import <Metal/Metal.h>\n#include <torch/extension.h>\n"
                                          "namespace baker {\nat::Tensor rasterize_mps(const at::Tensor& uv) {\n  @autoreleasepool {\n"
                                          "    id<MTLDevice> device = MTLCreateSystemDefaultDevice();\n    [device newBufferWithLength:16 options:0];\n"
                                          "  }\n  return uv;\n}\n    TORCH_LIBRARY_IMPL(baker, MPS, m) { m.impl(\"rasterize\", rasterize_mps); }\n}\n");
    const ScanResult r = scan_tree(d.path());
    const NativeOp* op = find_op(r, "baker::rasterize");
    ASSERT_NE(op, nullptr);
    EXPECT_NE(std::find(op->devices.begin(), op->devices.end(), NativeDevice::MPS), op->devices.end());
    EXPECT_EQ(hits(r, "extension-op-with-mps-kernel").size(), 1u);
    EXPECT_EQ(hits(r, "extension-op-with-cpu-path").size(), 0u);
    for (const auto& f : r.findings)
        if (f.rule_id == "extension-op-with-mps-kernel") {
            EXPECT_EQ(f.severity, Severity::info);
            EXPECT_EQ(f.impact, VerdictImpact::none);
        }
}

TEST(ClangEngine, CompileCommandsRepositoryHeadersAndMacroLocations) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    // The macro that enables the kernel comes from compile_commands.json; nvcc flags Clang does not know are dropped.
    d.write("compile_commands.json", "[{\"directory\": \"" + d.path().string() +
                                         "\", \"command\": \"nvcc -DUSE_FAST_KERNEL -Xptxas=-v -c src/a.cu\", \"file\": \"src/a.cu\"}]");
    d.write("src/a.cu", "#ifdef USE_FAST_KERNEL\n__global__ void fast(float* x) {}\n#endif\n");
    // A header included by a path that no include directory resolves: found by its tail in the repository.
    d.write("lib/common/helpers/define.cuh", "#define DEFINE_SCALE_KERNEL(name) \\\n  __global__ void name(float* x) { x[0] *= 2.f; }\n");
    d.write("src/b.cu", "#include \"helpers/define.cuh\"\n\nDEFINE_SCALE_KERNEL(scale_a)\nDEFINE_SCALE_KERNEL(scale_b)\n");
    const ScanResult r = scan_tree(d.path());
    EXPECT_EQ(hits(r, "cuda-kernel-source"),
              (std::vector<std::pair<std::string, int>>{{"src/a.cu", 2}, {"src/b.cu", 3}, {"src/b.cu", 4}}));
    for (const auto& f : r.findings)
        if (f.rule_id == "cuda-kernel-source" && f.location.path == "src/b.cu") {
            EXPECT_NE(f.message.find("`scale_"), std::string::npos);
        }
}

TEST(ClangEngine, TheCacheKeepsNativeFactsAndKernelLines) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d, cache;
    d.write("op_cuda.cu", "__global__ void k(float* x) {\n  x[0] = 1.f;\n  x[1] = 2.f;\n}\n"
                          "TORCH_LIBRARY_IMPL(lab, CUDA, m) { m.impl(\"op\", [](at::Tensor x) { return x; }); }\n");
    d.write("op_cpu.cpp", "TORCH_LIBRARY_IMPL(lab, CPU, m) { m.impl(\"op\", [](at::Tensor x) { return x; }); }\n");
    ScanOptions o;
    o.cache_dir = cache.path();
    const ScanResult cold = test::bundled_scanner().scan(d.path(), {d.path()}, o);
    const ScanResult warm = test::bundled_scanner().scan(d.path(), {d.path()}, o);
    EXPECT_EQ(warm.files_cached, 2u);
    ASSERT_NE(find_op(warm, "lab::op"), nullptr);
    EXPECT_EQ(find_op(warm, "lab::op")->devices, find_op(cold, "lab::op")->devices);
    EXPECT_EQ(find_op(warm, "lab::op")->devices.size(), 2u);
    for (const auto& f : warm.findings)
        if (f.rule_id == "cuda-kernel-source") {
            EXPECT_EQ(f.lines, 4);
        }
    EXPECT_EQ(hits(warm, "extension-op-with-cpu-path").size(), 1u);
}

TEST(ClangEngine, ABrokenMatcherOrAnUnknownCheckFailsBeforeAnyFileIsParsed) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir rules;
    for (const char* f : {"program.yaml", "rule.schema.json", "packages.schema.json", "program.schema.json"})
        fs::copy_file(test::rules_dir() / f, rules.path() / f);
    const std::string head = "engine: clang\nseverity: minor\ncategory: kernel\nverdict_impact: none\neffort: {per: site, low: 1, high: 2}\n"
                             "message: \"a message of ten\"\nfix: \"a fix of ten chars\"\ndocs: {what: \"ten chars at least\", why: \"ten chars at least\", example: \"x()\"}\n"
                             "triggers: [calee]\n";
    rules.write("kernel/bad-matcher.yaml", "id: bad-matcher\n" + head + "clang:\n  files: [cuda]\n  matchers: ['callExpr(calee()).bind(\"finding\")']\n");
    {
        const auto catalogue = RuleCatalogue::load(rules.path());
        try {
            cuda::ClangEngine engine(catalogue);
            engine.prepare();
            FAIL() << "a matcher with a typo must not load";
        } catch (const RuleError& e) {
            EXPECT_NE(std::string(e.what()).find("bad-matcher.yaml: clang.matchers[0]"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("calee"), std::string::npos) << e.what();
        }
        // The matchers compile on first need: a scan with a .cu file fails on the broken rule,
        // one without C++/CUDA files never loads Clang.
        test::TempDir repo;
        repo.write("train.py", "import torch\nx = torch.zeros(2).cuda()\n");
        ScanOptions o;
        o.jobs = 1;
        EXPECT_NO_THROW(Scanner(catalogue).scan(repo.path(), {repo.path()}, o));
        repo.write("k.cu", "__global__ void k(float* x) { x[0] = 1; }\n");
        EXPECT_THROW(Scanner(catalogue).scan(repo.path(), {repo.path()}, o), RuleError);
    }
    fs::remove(rules.path() / "kernel/bad-matcher.yaml");
    rules.write("kernel/bad-check.yaml", "id: bad-check\n" + head + "clang:\n  files: [cuda]\n  check: no-such-check\n");
    // The schema lists the checks this build has: an unknown one fails when the rules load.
    try {
        const auto catalogue = RuleCatalogue::load(rules.path());
        cuda::ClangEngine engine(catalogue);
        engine.prepare();
        FAIL() << "an unknown check must not load";
    } catch (const RuleError& e) {
        EXPECT_NE(std::string(e.what()).find("bad-check.yaml: clang.check"), std::string::npos) << e.what();
    }
}

}  // namespace

namespace {

// What two scans must agree on: findings, every op's devices, and the skipped files.
std::vector<std::string> outcome_key(const ScanResult& r) {
    std::vector<std::string> out;
    for (const auto& f : r.findings)
        out.push_back(f.rule_id + " " + f.location.path + ":" + std::to_string(f.location.line) + " " + std::string(to_string(f.severity)) +
                      " " + f.message);
    for (const auto& m : r.native_modules)
        for (const auto& op : m.ops) {
            std::string devices;
            for (NativeDevice d : op.devices) devices += std::string(to_string(d)) + ",";
            out.push_back(m.module_name + "." + op.name + " " + devices);
        }
    for (const auto& s : r.skipped) out.push_back("skipped " + s.path + " " + s.reason);
    std::sort(out.begin(), out.end());
    return out;
}

// Scans every corpus repository and the rule fixtures twice, `reference` then `other` (each given
// the options to change), and expects the same outcome; the comparison must cover real C++/CUDA findings.
void expect_same_outcome_on_corpus_and_fixtures(const std::function<ScanResult(const fs::path&)>& reference,
                                                const std::function<ScanResult(const fs::path&)>& other) {
    std::vector<fs::path> trees = {test::rules_dir()};
    for (const auto& e : fs::directory_iterator(test::source_dir() / "corpus"))
        if (e.is_directory()) trees.push_back(e.path());
    std::size_t native_findings = 0;
    for (const fs::path& tree : trees) {
        const ScanResult a = reference(tree), b = other(tree);
        EXPECT_EQ(outcome_key(a), outcome_key(b)) << tree;
        for (const auto& f : a.findings) native_findings += test::bundled_catalogue().find(f.rule_id)->engine == "clang";
    }
    EXPECT_GT(native_findings, 50u);
}

ScanResult scan_tree(const fs::path& tree, bool parse_every_native_file) {
    ScanOptions o;
    o.jobs = 2;
    o.parse_every_native_file = parse_every_native_file;
    return test::bundled_scanner().scan(tree, {tree}, o);
}

}  // namespace

// The trigger prefilter (a file that names nothing a rule looks for is not parsed) must change no
// finding and no op's devices: every corpus repository and the rule fixtures, with and without it.
TEST(ClangEngine, ThePrefilterChangesNoFindingOnTheCorpusOrTheFixtures) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    expect_same_outcome_on_corpus_and_fixtures([](const fs::path& t) { return scan_tree(t, true); },
                                               [](const fs::path& t) { return scan_tree(t, false); });
}

// The precompiled prefix (the standard headers and the shim, built once per scan) must change no
// finding and no op's devices against reading the same prefix as text in every file
// (MPSPORT_CLANG_PREFIX=0): every corpus repository and the rule fixtures.
TEST(ClangEngine, ThePrecompiledPrefixChangesNoFindingOnTheCorpusOrTheFixtures) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    expect_same_outcome_on_corpus_and_fixtures([](const fs::path& t) { return scan_tree(t, true); },
                                               [](const fs::path& t) {
                                                   ::setenv("MPSPORT_CLANG_PREFIX", "0", 1);
                                                   ScanResult text = scan_tree(t, true);
                                                   ::unsetenv("MPSPORT_CLANG_PREFIX");
                                                   return text;
                                               });
}

// Torch's headers (which the shim stands for) bring the standard library with them, and extension
// sources rely on it: flash-attention's flash_api.cpp names std::vector and std::min without
// including <vector> or <algorithm>. The prefix declares them, so a binding returning
// std::vector<at::Tensor> is a function and its op is registered with its devices (it was lost).
TEST(ClangEngine, TheStandardLibraryIsDeclaredAsTorchsHeadersWouldDeclareIt) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    // Parsed first (one thread, in path order), so that csrc/api.cpp is read with the precompiled
    // prefix, which a scan builds after its first two files.
    d.write("a1.cu", "__global__ void k1(float* x) { x[0] = 1; }\n");
    d.write("a2.cu", "__global__ void k2(float* x) { x[0] = 2; }\n");
    d.write("csrc/api.cpp", "#include <torch/extension.h>\n\n"
                            "std::vector<at::Tensor> mha_fwd(at::Tensor q) {\n"
                            "  auto stream = at::cuda::getCurrentCUDAStream().stream();\n"
                            "  const int n = std::min(2, 4);\n"
                            "  return {q};\n}\n\n"
                            "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"fwd\", &mha_fwd); }\n");
    for (const char* prefix : {"1", "0"}) {
        ::setenv("MPSPORT_CLANG_PREFIX", prefix, 1);
        ScanOptions o;
        o.jobs = 1;
        const ScanResult r = test::bundled_scanner().scan(d.path(), {d.path()}, o);
        ::unsetenv("MPSPORT_CLANG_PREFIX");
        ASSERT_NE(find_op(r, "fwd"), nullptr) << prefix;
        EXPECT_EQ(find_op(r, "fwd")->devices, std::vector<NativeDevice>{NativeDevice::CUDA}) << prefix;
    }
}

// A file may match through a macro of a repository header without naming a trigger itself; and
// Clang's typo correction never turns an undeclared name into a CUDA one (hipGetDevice -> cudaGetDevice).
TEST(ClangEngine, TriggerMacrosWakeAFileAndTypoCorrectionIsOff) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    d.write("include/checks.cuh", "#pragma once\n#define SYNC_OR_DIE() do { cudaStreamSynchronize(0); } while (0)\n"
                                  "#define STEP_DONE() SYNC_OR_DIE()\n");
    d.write("src/step.cu", "#include \"checks.cuh\"\n\nvoid step() {\n  STEP_DONE();\n}\n");
    d.write("src/rocm.cpp", "int device() {\n  int d = 0;\n  hipGetDevice(&d);\n  return d;\n}\n");
    for (bool full : {false, true}) {
        ScanOptions o;
        o.jobs = 2;
        o.parse_every_native_file = full;
        const ScanResult r = test::bundled_scanner().scan(d.path(), {d.path()}, o);
        EXPECT_EQ(hits(r, "cuda-runtime-stream-api"), (std::vector<std::pair<std::string, int>>{{"src/step.cu", 4}})) << full;
        EXPECT_TRUE(hits(r, "cuda-runtime-device-api").empty()) << full;
    }
}

// A binding's callee defined in a file that names no trigger: that file is parsed after all, so the
// op's devices come from its body (CPU here), not from a guess on its name.
TEST(ClangEngine, AFileDefiningABindingsCalleeIsParsedForItsDevices) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d, cache;
    d.write("csrc/bind.cpp", "at::Tensor knn_forward(at::Tensor x);\n"
                             "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"knn\", &knn_forward); }\n");
    d.write("csrc/knn.cpp", "at::Tensor knn_forward(at::Tensor x) {\n  return x + 1;\n}\n");
    d.write("csrc/unrelated.cpp", "int helper() { return 2; }\n");
    ScanOptions o;
    o.jobs = 2;
    o.cache_dir = cache.path();
    for (int run = 0; run < 2; ++run) {  // cold, then from the cache
        const ScanResult r = test::bundled_scanner().scan(d.path(), {d.path()}, o);
        const NativeOp* op = find_op(r, "knn");
        ASSERT_NE(op, nullptr) << run;
        EXPECT_EQ(op->devices, (std::vector<NativeDevice>{NativeDevice::CPU})) << run;
    }
}

// Only a file that names the callee as a whole name is parsed for it: one whose names merely start
// with it (`knn_forward_tables`, as apex's generated files include "gn_cuda_host_template.cuh" where
// a binding calls gn_cuda) is left unparsed. Parsed, this one would say its headers were cut short.
TEST(ClangEngine, AFileNamingACalleeOnlyInsideLongerNamesIsNotParsedForIt) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    std::string tables;
    for (int i = 0; tables.size() < (std::size_t(3) << 20) / 2; ++i) tables += "static const int table_" + std::to_string(i) + "[4] = {1, 2, 3, 4};\n";
    d.write("csrc/knn_forward_tables.inc", tables);
    d.write("csrc/bind.cpp", "at::Tensor knn_forward(at::Tensor x);\n"
                             "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"knn\", &knn_forward); }\n");
    d.write("csrc/knn.cpp", "at::Tensor knn_forward(at::Tensor x) {\n  return x + 1;\n}\n");
    d.write("csrc/knn_forward_stats.cpp", "#include \"knn_forward_tables.inc\"\nint knn_forward_count() { return 4; }\n");
    const ScanResult r = scan_tree(d.path());
    const NativeOp* op = find_op(r, "knn");
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->devices, (std::vector<NativeDevice>{NativeDevice::CPU}));
    EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
}

// The budget is the repository's header text only. The driver opens libstdc++ by a path that starts
// "/../lib/gcc/...", which once counted: a file read with the prefix as text had its repository
// headers cut short where the same file read with the precompiled prefix had them whole.
TEST(ClangEngine, TheHeaderBudgetCountsOnlyTheRepositorysHeaders) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    std::string tables;
    for (int i = 0; tables.size() < cuda::kIncludeBudgetBytes * 3 / 4; ++i) tables += "static const int table_" + std::to_string(i) + "[4] = {1, 2, 3, 4};\n";
    d.write("vendor/lib.cuh", "#pragma once\n#include <vector>\n" + tables + "#define SCALE_KERNEL(name) __global__ void name(float* x) { x[0] *= 2.f; }\n");
    d.write("src/k.cu", "#include \"../vendor/lib.cuh\"\nSCALE_KERNEL(scale)\n");
    for (const char* prefix : {"1", "0"}) {
        ::setenv("MPSPORT_CLANG_PREFIX", prefix, 1);
        const ScanResult r = scan_tree(d.path());
        ::unsetenv("MPSPORT_CLANG_PREFIX");
        // the kernel exists only through the header's macro, read past the tables
        EXPECT_EQ(hits(r, "cuda-kernel-source"), (std::vector<std::pair<std::string, int>>{{"src/k.cu", 2}})) << prefix;
        EXPECT_TRUE(r.warnings.empty()) << prefix << ": " << (r.warnings.empty() ? "" : r.warnings[0]);
    }
}

// A file whose includes pass the per-file budget (a vendored library's generated tables) still has
// its own lines analysed, and the scan says which files read their headers only in part.
TEST(ClangEngine, IncludesPastTheBudgetReadAsEmptyAndTheScanSaysSo) {
    MPSPORT_REQUIRE_CLANG_ENGINE();
    test::TempDir d;
    std::string tables;
    for (int i = 0; tables.size() < (std::size_t(5) << 20); ++i) tables += "static const int table_" + std::to_string(i) + "[4] = {1, 2, 3, 4};\n";
    d.write("vendor/tables.inc", tables);
    d.write("vendor/lib.cuh", "#pragma once\n#include \"tables.inc\"\n");
    d.write("src/k.cu", "#include \"../vendor/lib.cuh\"\n__global__ void k(float* x) { atomicAdd(x, 1.f); }\n");
    const ScanResult r = scan_tree(d.path());
    EXPECT_EQ(hits(r, "cuda-kernel-source"), (std::vector<std::pair<std::string, int>>{{"src/k.cu", 2}}));
    EXPECT_EQ(hits(r, "cuda-atomic"), (std::vector<std::pair<std::string, int>>{{"src/k.cu", 2}}));
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("src/k.cu"), std::string::npos) << r.warnings[0];
    EXPECT_TRUE(reason_for(r, "src/k.cu").empty());
}
