// Checkpoints read from their headers without executing anything: the pickle subset reader, the zip
// reader, and bad files (garbage, truncated, compressed, a FIFO) named as skipped while the scan goes on.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "analyzer/checkpoints/checkpoint.hpp"
#include "analyzer/checkpoints/pickle_reader.hpp"
#include "analyzer/checkpoints/zip_reader.hpp"
#include "analyzer/scanner.hpp"
#include "core/paths.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace mpsport;
using namespace mpsport::checkpoints;

namespace {

// Runs Python code with /usr/bin/python3 and torch; `{dir}` is replaced by the folder.
void run_python(const fs::path& dir, std::string code) {
    for (std::size_t p; (p = code.find("{dir}")) != std::string::npos;) code.replace(p, 5, dir.string());
    const fs::path script = dir / "_make.py";
    std::ofstream(script) << code;
    const auto r = test::run_command("/usr/bin/python3 '" + script.string() + "'");
    ASSERT_EQ(r.exit_code, 0) << "python failed: " << code;
    fs::remove(script);
}

std::string reason_for(const ScanResult& r, const std::string& path) {
    for (const auto& s : r.skipped)
        if (s.path == path) return s.reason;
    return "";
}

}  // namespace

TEST(Pickle, GlobalsAreNamedNeverCalled) {
    test::TempDir d;
    const fs::path marker = d.path() / "pwned";
    // What `pickle.dumps` writes for an object whose __reduce__ is (os.system, ("touch ...",)).
    std::string payload = "touch " + marker.string();
    std::string bytes = std::string("\x80\x02") + "cposix\nsystem\nq" + std::string(1, '\0') + "X";
    const std::uint32_t n = static_cast<std::uint32_t>(payload.size());
    bytes += std::string{static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff), static_cast<char>((n >> 16) & 0xff),
                         static_cast<char>(n >> 24)};
    bytes += payload + "\x85R.";
    const PickleResult r = read_pickle(bytes);
    EXPECT_EQ(r.globals, (std::set<std::string>{"posix.system"}));
    EXPECT_EQ(r.root->kind, PickleValue::Kind::call);
    EXPECT_FALSE(fs::exists(marker));
    EXPECT_THROW(read_pickle(std::string("\x80\x02}q\x00", 5)), PickleError);  // no STOP: truncated
    EXPECT_THROW(read_pickle(std::string("\x80\x02\xff.", 4)), PickleError);   // unknown opcode
}

TEST(Checkpoints, RealTorchSaveOutputIsSummarised) {
    test::TempDir d;
    run_python(d.path(), "import torch\n"
                     "torch.save({'w': torch.zeros(10, 10), 'b': torch.zeros(10, dtype=torch.float64), 'n': torch.tensor(3)},"
                     " '{dir}/model.pt')\n"
                     "torch.jit.save(torch.jit.script(torch.nn.Linear(4, 2)), '{dir}/scripted.pt')\n");
    const Summary s = read_checkpoint(d.path() / "model.pt", Limits{});
    EXPECT_EQ(s.format, Format::torch_zip);
    EXPECT_EQ(s.tensors, 3u);
    EXPECT_EQ(s.bytes_by_dtype(), (std::map<std::string, std::uint64_t>{{"float32", 400}, {"float64", 80}, {"int64", 8}}));
    EXPECT_EQ(s.total_bytes(), 488u);
    EXPECT_EQ(s.bytes_by_location(), (std::map<std::string, std::uint64_t>{{"cpu", 488}}));
    EXPECT_TRUE(s.unknown_globals.empty());
    const Summary ts = read_checkpoint(d.path() / "scripted.pt", Limits{});
    EXPECT_EQ(ts.format, Format::torchscript_zip);
    EXPECT_EQ(ts.total_bytes(), 40u);  // weight 2x4 + bias 2, float32
}

TEST(Checkpoints, HeaderLimitComesFromOptions) {
    test::TempDir d;
    run_python(d.path(), "import torch\ntorch.save({'w%d' % i: torch.zeros(1) for i in range(2000)}, '{dir}/many.pt')\n");
    Limits small;
    small.header_bytes = 1000;
    try {
        read_checkpoint(d.path() / "many.pt", small);
        FAIL() << "expected the header limit to stop the read";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("header limit"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_checkpoint(d.path() / "many.pt", Limits{}).tensors, 2000u);
}

TEST(Checkpoints, SafetensorsHeaderFieldsOfTheWrongTypeAreAFormatErrorNamingTheField) {
    // inputs the long fuzz run found (tests/fuzz/regressions): "dtype" as a JSON array threw the JSON
    // library's type_error out of the reader
    for (const char* name : {"checkpoint-safetensors-dtype-array.safetensors", "checkpoint-safetensors-dtype-list.safetensors"}) {
        try {
            read_checkpoint(test::source_dir() / "tests/fuzz/regressions" / name, Limits{});
            FAIL() << name << ": expected a FormatError";
        } catch (const FormatError& e) {
            EXPECT_EQ(std::string(e.what()), "safetensors header: tensor 'w': dtype has the wrong type") << name;
        }
    }
    test::TempDir d;
    const std::string header = R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, "8"]}})";
    std::string file(8, '\0');
    for (int i = 0; i < 8; ++i) file[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    std::ofstream(d.path() / "offsets.safetensors", std::ios::binary) << file << header << std::string(8, '\0');
    try {
        read_checkpoint(d.path() / "offsets.safetensors", Limits{});
        FAIL() << "expected a FormatError";
    } catch (const FormatError& e) {
        EXPECT_EQ(std::string(e.what()), "safetensors header: tensor 'w': data_offsets has the wrong type");
    }
}

TEST(Checkpoints, BadFilesAreSkippedWithReasonsAndTheScanGoesOn) {
    test::TempDir d;
    run_python(d.path(), "import torch, zipfile\n"
                     "torch.save({'w': torch.zeros(64, 64)}, '{dir}/good.pt')\n"
                     "data = open('{dir}/good.pt', 'rb').read()\n"
                     "open('{dir}/truncated.pt', 'wb').write(data[: len(data) // 2])\n"
                     "with zipfile.ZipFile('{dir}/compressed.pth', 'w', zipfile.ZIP_DEFLATED) as z:\n"
                     "    z.writestr('archive/data.pkl', b'\\x80\\x02}q\\x00.' * 50)\n");
    d.write("garbage.pt", "this is not a checkpoint at all, just text with no structure\n");
    d.write("empty.ckpt", "");
    d.write("weights.bin", std::string("\x00\x01\x02\x03garbage", 11));
    d.write("train.py", "model.cuda()\n");
    ASSERT_EQ(::mkfifo((d.path() / "model.pt").c_str(), 0600), 0);
    ScanOptions o;
    o.jobs = 2;
    const ScanResult r = test::bundled_scanner().scan(d.path(), {d.path()}, o);
    EXPECT_NE(reason_for(r, "garbage.pt").find("not a checkpoint"), std::string::npos) << reason_for(r, "garbage.pt");
    EXPECT_NE(reason_for(r, "weights.bin").find("not a checkpoint"), std::string::npos) << reason_for(r, "weights.bin");
    EXPECT_NE(reason_for(r, "empty.ckpt").find("empty file"), std::string::npos) << reason_for(r, "empty.ckpt");
    EXPECT_NE(reason_for(r, "truncated.pt").find("truncated zip archive"), std::string::npos) << reason_for(r, "truncated.pt");
    EXPECT_NE(reason_for(r, "compressed.pth").find("is compressed"), std::string::npos) << reason_for(r, "compressed.pth");
    EXPECT_EQ(reason_for(r, "model.pt"), "not a regular file (a FIFO); not opened");
    std::set<std::string> with_findings;
    for (const auto& f : r.findings) with_findings.insert(f.location.path);
    EXPECT_EQ(with_findings, (std::set<std::string>{"good.pt", "train.py"}));
}

TEST(Checkpoints, CudaStorageKeepsItsSeverityThroughTheProgramModel) {
    test::TempDir d;
    run_python(d.path(), "import sys\nsys.argv[1:] = ['{dir}']\n"
                         "sys.path.insert(0, '" + (test::rules_dir() / "checkpoint").string() + "')\n"
                         "from _make_checkpoints import save_as_cuda\nimport torch\nsave_as_cuda({'w': torch.zeros(4)}, 'model.pt')\n");
    ScanOptions o;
    const ScanResult r = test::bundled_scanner().scan(d.path(), {d.path()}, o);
    int cuda = 0;
    for (const auto& f : r.findings)
        if (f.rule_id == "checkpoint-cuda-storage") {
            ++cuda;
            EXPECT_EQ(f.severity, Severity::major) << f.note;
        }
    EXPECT_EQ(cuda, 1);
}

TEST(Checkpoints, ExplicitFifoRootIsSkippedNotOpened) {
    test::TempDir d;
    ASSERT_EQ(::mkfifo((d.path() / "model.pt").c_str(), 0600), 0);
    ScanOptions o;
    const ScanResult r = test::bundled_scanner().scan(d.path(), {d.path() / "model.pt"}, o);
    ASSERT_EQ(r.skipped.size(), 1u);
    EXPECT_EQ(r.skipped[0].reason, "not a regular file; not opened");
}

namespace {

const Finding* cuda_storage_in(const ScanResult& r, const std::string& path) {
    for (const auto& f : r.findings)
        if (f.rule_id == "checkpoint-cuda-storage" && f.location.path == path) return &f;
    ADD_FAILURE() << "no checkpoint-cuda-storage in " << path;
    return nullptr;
}

}  // namespace

// A checkpoint takes the reach of the code that loads it, and map_location at the load decides
// whether CUDA-saved storages are a problem: no map_location is, map_location="cpu" or a device
// variable is not, map_location="cuda:0" still is.
TEST(CheckpointReach, LoadersGiveReachAndMapLocationDecides) {
    test::TempDir d;
    run_python(d.path(), "import sys, os\nsys.argv[1:] = ['{dir}']\n"
                         "sys.path.insert(0, '" + (test::rules_dir() / "checkpoint").string() + "')\n"
                         "from _make_checkpoints import save_as_cuda\nimport torch\n"
                         "for name in ['plain', 'remapped', 'to_gpu', 'argdefault', 'resumed', 'tested', 'orphan', 'hf/pytorch_model', 'guarded']:\n"
                         "    os.makedirs(os.path.dirname(os.path.join('{dir}', 'weights', name)), exist_ok=True)\n"
                         "    save_as_cuda({'w': torch.zeros(4)}, os.path.join('weights', name + ('.bin' if 'hf' in name else '.pt')))\n");
    d.write("train.py", "import argparse\nimport torch\nfrom transformers import AutoModel\n\n"
                        "p = argparse.ArgumentParser()\np.add_argument('--ckpt', default='weights/argdefault.pt')\np.add_argument('--resume')\n"
                        "args = p.parse_args()\n"
                        "if __name__ == '__main__':\n"
                        "    model.load_state_dict(torch.load('weights/plain.pt'))\n"
                        "    model.load_state_dict(torch.load('weights/remapped.pt', map_location='cpu'))\n"
                        "    extra = torch.load('weights/to_gpu.pt', map_location='cuda:0')\n"
                        "    other = torch.load(args.ckpt, map_location=device)\n"
                        "    enc = AutoModel.from_pretrained('weights/hf', device_map=device)\n"
                        // stargan-v2's lpips weights: the load without map_location runs only with CUDA
                        "    if torch.cuda.is_available():\n        g = torch.load('weights/guarded.pt')\n"
                        "    else:\n        g = torch.load('weights/guarded.pt', map_location=torch.device('cpu'))\n");
    d.write("resume.py", "import sys\nimport torch\nif __name__ == '__main__':\n    state = torch.load(sys.argv[2])\n");
    d.write("scripts/resume.sh", "python resume.py --from weights/resumed.pt\n");
    d.write("tests/test_ckpt.py", "import torch\n\n\ndef test_load():\n    torch.load('weights/tested.pt')\n");
    ScanOptions o;
    o.jobs = 2;
    const ScanResult r = test::bundled_scanner().scan(d.path(), {d.path()}, o);
    for (const auto& s : r.skipped) ADD_FAILURE() << s.path << ": " << s.reason;

    const Finding* plain = cuda_storage_in(r, "weights/plain.pt");
    ASSERT_NE(plain, nullptr);
    EXPECT_EQ(plain->reach, Reach::core);
    EXPECT_EQ(plain->severity, Severity::major) << plain->note;
    EXPECT_EQ(plain->chain, (std::vector<std::string>{"train.py:10", "weights/plain.pt"}));
    ASSERT_EQ(plain->related.size(), 1u);
    EXPECT_EQ(plain->related[0].location.path, "train.py");
    EXPECT_EQ(plain->related[0].location.line, 10);
    EXPECT_NE(plain->related[0].label.find("no map_location"), std::string::npos) << plain->related[0].label;

    for (const char* remapped : {"weights/remapped.pt", "weights/argdefault.pt", "weights/hf/pytorch_model.bin", "weights/guarded.pt"}) {
        const Finding* f = cuda_storage_in(r, remapped);
        ASSERT_NE(f, nullptr);
        EXPECT_EQ(f->reach, Reach::core) << remapped;
        EXPECT_EQ(f->severity, Severity::info) << remapped << ": " << f->note;
        EXPECT_NE(f->note.find("map_location"), std::string::npos) << f->note;
    }
    const Finding* to_gpu = cuda_storage_in(r, "weights/to_gpu.pt");
    ASSERT_NE(to_gpu, nullptr);
    EXPECT_EQ(to_gpu->severity, Severity::major) << "map_location='cuda:0' still needs CUDA";

    const Finding* resumed = cuda_storage_in(r, "weights/resumed.pt");
    ASSERT_NE(resumed, nullptr);
    EXPECT_EQ(resumed->reach, Reach::core);
    EXPECT_EQ(resumed->severity, Severity::major);
    ASSERT_EQ(resumed->related.size(), 1u);
    EXPECT_EQ(resumed->related[0].location.line, 4);
    EXPECT_NE(resumed->related[0].label.find("run by scripts/resume.sh:1 with weights/resumed.pt"), std::string::npos)
        << resumed->related[0].label;

    const Finding* tested = cuda_storage_in(r, "weights/tested.pt");
    ASSERT_NE(tested, nullptr);
    EXPECT_EQ(tested->reach, Reach::tooling);
    EXPECT_LE(tested->severity, Severity::minor);

    const Finding* orphan = cuda_storage_in(r, "weights/orphan.pt");
    ASSERT_NE(orphan, nullptr);
    EXPECT_EQ(orphan->reach, Reach::unreached);
    EXPECT_EQ(orphan->severity, Severity::info) << orphan->note;
    EXPECT_EQ(orphan->impact, VerdictImpact::none);
}

// A garbage checkpoint that the training run loads is still named under Skipped, and the loads of
// the other checkpoints are linked as before.
TEST(CheckpointReach, GarbageLoadedCheckpointIsNamedAsSkipped) {
    test::TempDir d;
    d.write("weights/broken.pt", "not a checkpoint, just text\n");
    d.write("train.py", "import torch\nif __name__ == '__main__':\n    torch.load('weights/broken.pt')\n");
    const ScanResult r = test::bundled_scanner().scan(d.path(), {d.path()}, ScanOptions{});
    EXPECT_NE(reason_for(r, "weights/broken.pt").find("not a checkpoint"), std::string::npos) << reason_for(r, "weights/broken.pt");
}
