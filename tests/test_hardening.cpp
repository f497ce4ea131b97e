// Issue 10: ways mpsport could give a wrong answer without saying so. Each test here failed
// before its fix (or pins down behaviour a review doubted).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>

#include "analyzer/python/python_engine.hpp"
#include "analyzer/scan_cache.hpp"
#include "analyzer/scanner.hpp"
#include "core/hash.hpp"
#include "core/parallel.hpp"
#include "core/paths.hpp"
#include "core/source_text.hpp"
#include "core/walker.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace mpsport;

namespace {

using test::quote;
const std::string kBin = MPSPORT_BINARY;

std::multiset<std::string> rule_ids(const ScanResult& r) {
    std::multiset<std::string> out;
    for (const auto& f : r.findings) out.insert(f.rule_id);
    return out;
}

std::string reason_for(const ScanResult& r, const std::string& path) {
    for (const auto& s : r.skipped)
        if (s.path == path) return s.reason;
    return "";
}

// ---- the cache key ----------------------------------------------------------------------------

TEST(CacheKey, SelectScanNeitherServesNorReplacesTheFullScan) {
    test::TempDir d, cache;
    d.write("t.py", "import torch\nmodel.cuda()\n\n\ndef f(x):\n    return x.double()\n");
    ScanOptions o;
    o.cache_dir = cache.path();
    RuleCatalogue selected = RuleCatalogue::load(test::rules_dir());
    selected.select({"cuda-method-call"});
    const auto partial = Scanner(selected).scan(d.path(), {d.path()}, o);
    EXPECT_EQ(rule_ids(partial), (std::multiset<std::string>{"cuda-method-call"}));
    const auto full = Scanner(test::bundled_catalogue()).scan(d.path(), {d.path()}, o);
    EXPECT_EQ(full.files_cached, 0u) << "a --select scan's results must not answer for the full rule set";
    EXPECT_EQ(rule_ids(full).count("float64-dtype"), 1u);
    // Each key keeps its own file: the select scan is warm again, and so is the full scan.
    EXPECT_EQ(Scanner(selected).scan(d.path(), {d.path()}, o).files_cached, 1u);
    EXPECT_EQ(Scanner(test::bundled_catalogue()).scan(d.path(), {d.path()}, o).files_cached, 1u);
}

TEST(CacheKey, OptionsThatChangeFindingsAndTheBuildAreInTheKey) {
    const auto& cat = test::bundled_catalogue();
    const ScanOptions plain;
    const std::uint64_t k = ScanCache::key_for(cat, kDefaultTargetTorch, plain);
    EXPECT_EQ(k, ScanCache::key_for(cat, kDefaultTargetTorch, plain));
    EXPECT_NE(k, ScanCache::key_for(cat, "2.6.0", plain));
    auto changed = [&](auto&& edit) {
        ScanOptions o;
        edit(o);
        return ScanCache::key_for(cat, kDefaultTargetTorch, o) != k;
    };
    EXPECT_TRUE(changed([](ScanOptions& o) { o.walk.respect_gitignore = false; }));
    EXPECT_TRUE(changed([](ScanOptions& o) { o.walk.exclude = {"legacy/"}; }));
    EXPECT_TRUE(changed([](ScanOptions& o) { o.walk.follow_symlinks = true; }));
    EXPECT_TRUE(changed([](ScanOptions& o) { o.entries = {"train.py"}; }));
    EXPECT_TRUE(changed([](ScanOptions& o) { o.full_parse = true; }));
    EXPECT_FALSE(changed([](ScanOptions& o) { o.jobs = 7; })) << "the number of workers changes nothing";
    // The build identity: the GNU build id of this very binary (Debian links with --build-id).
    EXPECT_TRUE(std::regex_match(build_identity(), std::regex("build-id:[0-9a-f]{16,}"))) << build_identity();
}

// ---- check merges into the cache, safely across processes -------------------------------------

TEST(CacheMerge, ConcurrentChecksKeepEveryFileWarm) {
    test::TempDir d;
    constexpr int kFiles = 6;
    for (int i = 0; i < kFiles; ++i) d.write("f" + std::to_string(i) + ".py", "model.cuda()\n");
    const std::string in_repo = "cd " + quote(d.path()) + " && ";
    ASSERT_EQ(test::run_command(in_repo + kBin + " scan --fail-on none --format json . > /dev/null").exit_code, 0);
    for (int i = 0; i < kFiles; ++i) d.write("f" + std::to_string(i) + ".py", "model.cuda()\nother.cuda()\n");
    // Every file is checked by its own process, all at once: each must merge into the shared cache.
    // What each check says on standard error is kept, to say why when an entry is lost (this failed
    // once under ASan on a busy CI machine and was not reproduced in 33 runs under load).
    test::TempDir logs;
    std::string all = in_repo + "(";
    for (int i = 0; i < kFiles; ++i)
        all += kBin + " check --fail-on none f" + std::to_string(i) + ".py > /dev/null 2> " + quote(logs.path() / ("check" + std::to_string(i))) +
               "; echo \"exit $?\" >> " + quote(logs.path() / ("check" + std::to_string(i))) + " & ";
    all += "wait)";
    ASSERT_EQ(test::run_command(all).exit_code, 0);
    const auto after = test::run_command(in_repo + kBin + " scan --fail-on none --format json --timings . 2>&1 >" + quote(logs.path() / "scan.json"));
    ASSERT_EQ(after.exit_code, 0);
    const auto j = nlohmann::json::parse(read_file(logs.path() / "scan.json"));
    std::string why;
    for (int i = 0; i < kFiles; ++i) why += "\ncheck f" + std::to_string(i) + ".py: " + read_file(logs.path() / ("check" + std::to_string(i)));
    why += "\nthe last scan: " + after.output + "\nthe cache folder:";
    for (const auto& e : fs::directory_iterator(d.path() / ".mpsport_cache"))
        why += "\n  " + e.path().filename().string() + (e.is_regular_file() ? " " + std::to_string(e.file_size()) + " bytes" : std::string());
    EXPECT_EQ(j["files_cached"], kFiles) << "a check must merge into the cache, never truncate it or lose another's entries" << why;
    EXPECT_EQ(j["findings"].size(), 2u * kFiles);
    for (const auto& e : fs::directory_iterator(d.path() / ".mpsport_cache"))
        EXPECT_EQ(e.path().filename().string().find(".tmp-mpsport"), std::string::npos) << "a temporary file left behind";
}

TEST(CacheMerge, ConcurrentFullScansLeaveAReadableCache) {
    test::TempDir d;
    for (int i = 0; i < 20; ++i) d.write("m" + std::to_string(i) + ".py", "import torch\nx.cuda()\n");
    const std::string in_repo = "cd " + quote(d.path()) + " && ";
    std::string all = in_repo + "(";
    for (int i = 0; i < 4; ++i) all += kBin + " scan --fail-on none --format json . > /dev/null & ";
    all += "wait)";
    ASSERT_EQ(test::run_command(all).exit_code, 0);
    const auto j = nlohmann::json::parse(test::run_command(in_repo + kBin + " scan --fail-on none --format json .").output);
    EXPECT_EQ(j["files_cached"], 20);
}

// ---- ignore files of the whole work tree ------------------------------------------------------

TEST(Gitignore, SubfolderScanHonoursTheTopsIgnoreFilesAndGitConfig) {
    test::TempDir d, home;
    const std::string git = "cd " + quote(d.path()) + " && git ";
    ASSERT_EQ(test::run_command(git + "init -q . 2>&1").exit_code, 0);
    d.write(".gitignore", "generated/\n*_gen.py\n");
    d.write(".git/info/exclude", "local_only.py\n");
    std::ofstream(home.path() / "global-ignore") << "from_global.py\n";
    ASSERT_EQ(test::run_command(git + "config core.excludesFile " + quote(home.path() / "global-ignore")).exit_code, 0);
    for (const char* f : {"src/keep.py", "src/model_gen.py", "src/generated/x.py", "src/local_only.py", "src/from_global.py"})
        d.write(f, "model.cuda()\n");
    const auto r = walk(d.path() / "src", {d.path() / "src"}, WalkOptions{});
    std::vector<std::string> paths;
    for (const auto& f : r.files) paths.push_back(f.path);
    EXPECT_EQ(paths, std::vector<std::string>{"keep.py"});
    WalkOptions no_ignore;
    no_ignore.respect_gitignore = false;
    EXPECT_EQ(walk(d.path() / "src", {d.path() / "src"}, no_ignore).files.size(), 5u);
    // --exclude stays relative to the scanned folder.
    WalkOptions excluded;
    excluded.exclude = {"/keep.py"};
    EXPECT_TRUE(walk(d.path() / "src", {d.path() / "src"}, excluded).files.empty());
}

// IDEA-Research/DINO's .gitignore says "scripts/" and "*.pth", yet git tracks its scripts/DINO_train.sh
// (which runs main.py): as in git, ignore patterns do not hold for tracked files, or for the folders
// that hold them. An untracked file there is still ignored, and .mpsportignore / --exclude still hold
// for tracked files.
TEST(Gitignore, TrackedFilesAreNeverIgnoredByGitsPatterns) {
    test::TempDir d;
    const std::string git = "cd " + quote(d.path()) + " && git -c user.email=t@t -c user.name=t ";
    ASSERT_EQ(test::run_command(git + "init -q . 2>&1").exit_code, 0);
    d.write("scripts/train.sh", "python main.py\n");
    d.write("weights/base.pth", "not a real checkpoint");
    d.write("main.py", "import torch\n");
    ASSERT_EQ(test::run_command(git + "add -A && " + git + "commit -qm init 2>&1").exit_code, 0);
    d.write(".gitignore", "scripts/\n*.pth\nvendored/\n");
    d.write("scripts/local.sh", "python other.py\n");  // untracked: ignored
    d.write("scripts/more/local.py", "import torch\n");  // untracked, in an untracked folder below
    d.write("vendored/lib.py", "import torch\n");
    ASSERT_EQ(test::run_command(git + "add -f vendored/lib.py 2>&1").exit_code, 0);  // tracked, but .mpsportignore'd below
    d.write(".mpsportignore", "vendored/\n");
    auto paths_of = [&](const WalkOptions& o) {
        std::vector<std::string> paths;
        for (const auto& f : walk(d.path(), {d.path()}, o).files) paths.push_back(f.path);
        std::sort(paths.begin(), paths.end());
        return paths;
    };
    EXPECT_EQ(paths_of(WalkOptions{}), (std::vector<std::string>{"main.py", "scripts/train.sh", "weights/base.pth"}));
    WalkOptions excluded;
    excluded.exclude = {"scripts/"};
    EXPECT_EQ(paths_of(excluded), (std::vector<std::string>{"main.py", "weights/base.pth"}));
}

// ---- guards on resolved names ----------------------------------------------------------------

TEST(Guards, MpsAwarenessIsAResolvedNameNotASubstring) {
    const std::string text =
        "import torch\nfrom accelerate import Accelerator\naccelerator = Accelerator()\n"
        "if accelerator.is_main_process:\n    model.cuda()\n"
        "timestamps = load()\nif timestamps:\n    a.cuda()\nelif torch.cuda.is_available():\n    b.cuda()\n";
    auto lines_of = [](const std::string& source) {
        std::set<int> lines;
        for (const auto& f : test::bundled_scanner().scan_text("g.py", FileKind::python, source).findings)
            if (f.rule_id == "cuda-method-call") lines.insert(f.location.line);
        return lines;
    };
    EXPECT_EQ(lines_of(text), (std::set<int>{5, 8, 10})) << "is_main_process and timestamps say nothing about MPS";
    const std::string aware = "import torch\nif torch.backends.mps.is_available():\n    c.to('mps')\nelif torch.cuda.is_available():\n    d.cuda()\n";
    EXPECT_TRUE(lines_of(aware).empty()) << "the elif after a real MPS check is MPS-aware";
}

// ---- check --changed from a subfolder ---------------------------------------------------------

TEST(CheckChanged, PathsAreTakenRelativeToTheCurrentFolder) {
    test::TempDir d;
    const std::string git = "cd " + quote(d.path()) + " && git -c user.email=t@t -c user.name=t ";
    ASSERT_EQ(test::run_command(git + "init -q . 2>&1").exit_code, 0);
    d.write("pkg/b.py", "import torch\n");
    d.write("top.py", "import torch\n");
    ASSERT_EQ(test::run_command(git + "add -A && " + git + "commit -qm init 2>&1").exit_code, 0);
    d.write("pkg/b.py", "import torch\nmodel.cuda()\n");
    d.write("pkg/new.py", "x.cuda()\n");
    d.write("top.py", "import torch\ny.cuda()\n");
    const auto r = test::run_command("cd " + quote(d.path() / "pkg") + " && " + kBin + " check --changed --no-cache --fail-on none --format json");
    ASSERT_EQ(r.exit_code, 0);
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_TRUE(j["skipped"].empty()) << j["skipped"].dump();
    std::set<std::string> paths;
    for (const auto& f : j["findings"]) paths.insert(f["location"]["path"].get<std::string>());
    EXPECT_EQ(paths, (std::set<std::string>{"b.py", "new.py", (d.path() / "top.py").generic_string()}));
}

// ---- lossless reading -------------------------------------------------------------------------

TEST(Utf8, InvalidBytesAreReplacedAndTheFileIsScannedApproximately) {
    test::TempDir d;
    d.write("latin1.py", "# caf\xe9 cr\xe8me\nmodel.cuda()\n");
    d.write("nul.py", std::string("x = 1\0model.cuda()\n", 19));
    const auto r = test::bundled_scanner().scan(d.path(), {d.path()}, ScanOptions{});
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].location.path, "latin1.py");
    EXPECT_EQ(r.findings[0].location.line, 2);
    EXPECT_TRUE(r.findings[0].approximate);
    EXPECT_EQ(reason_for(r, "latin1.py"), "");
    EXPECT_EQ(reason_for(r, "nul.py"), "binary file (contains NUL bytes)") << "binary files stay skipped";
    EXPECT_EQ(decode_utf8_lossy("a\xff\n\xe2\x82"), "a\xEF\xBF\xBD\n\xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT_EQ(decode_utf8_lossy("caf\xc3\xa9 \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xf0\x9f\x98\x80") << "valid UTF-8 is unchanged";
    const auto j = test::run_command(kBin + " scan --no-cache --fail-on none --format json " + quote(d.path()));
    EXPECT_EQ(nlohmann::json::parse(j.output)["findings"][0]["approximate"], true);
}

TEST(SpecialFiles, FifoSocketDeviceAndSymlinkLoopAreNamed) {
    test::TempDir d;
    d.write("ok.py", "model.cuda()\n");
    ASSERT_EQ(::mkfifo((d.path() / "pipe.py").c_str(), 0644), 0);
    const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string sock_path = (d.path() / "sock.py").string();
    ASSERT_LT(sock_path.size(), sizeof addr.sun_path);
    std::copy(sock_path.begin(), sock_path.end(), addr.sun_path);
    ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    fs::create_symlink("loop_b.py", d.path() / "loop_a.py");
    fs::create_symlink("loop_a.py", d.path() / "loop_b.py");
    const bool root = ::geteuid() == 0;  // CI runs as root: a device node can be made
    if (root) {
        ASSERT_EQ(::mknod((d.path() / "dev.py").c_str(), S_IFCHR | 0644, makedev(1, 3)), 0);
    }
    const auto r = test::bundled_scanner().scan(d.path(), {d.path()}, ScanOptions{});
    ::close(sock);
    EXPECT_NE(reason_for(r, "pipe.py").find("FIFO"), std::string::npos);
    EXPECT_NE(reason_for(r, "sock.py").find("socket"), std::string::npos);
    EXPECT_NE(reason_for(r, "loop_a.py").find("symbolic link loop"), std::string::npos);
    EXPECT_NE(reason_for(r, "loop_b.py").find("symbolic link loop"), std::string::npos);
    if (root) {
        EXPECT_NE(reason_for(r, "dev.py").find("device"), std::string::npos);
    }
    EXPECT_EQ(r.files_scanned, 1u);
}

// ---- messages -----------------------------------------------------------------------------------

TEST(Messages, NameTheThingOnOneLine) {
    const auto& s = test::bundled_scanner();
    const auto ext = s.scan_text("setup.py", FileKind::python,
                                 "from torch.utils.cpp_extension import CUDAExtension\n"
                                 "ext = CUDAExtension(\n    name='fused_ops',\n    sources=['a.cpp',\n             'b.cu'],\n"
                                 "    extra_compile_args={'nvcc': ['-O3', '--use_fast_math', '-gencode=arch=compute_80,code=sm_80']},\n)\n");
    ASSERT_FALSE(ext.findings.empty());
    EXPECT_EQ(ext.findings[0].message, "CUDA extension 'fused_ops' is built here: its kernels cannot run on a Mac");
    // A name the code computes (BigVGAN's load helper) is shown as what names it, not as a name.
    const auto helper = s.scan_text("load.py", FileKind::python,
                                    "from torch.utils import cpp_extension\n\n\ndef build(name, sources):\n"
                                    "    return cpp_extension.load(name=name, sources=sources, extra_cuda_cflags=['-O3'])\n");
    ASSERT_EQ(helper.findings.size(), 1u);
    EXPECT_EQ(helper.findings[0].message, "CUDA extension named by `name` is built here: its kernels cannot run on a Mac");
    const auto call = s.scan_text("m.py", FileKind::python, "import torch\nmodel = (\n    build_model(\n        cfg,\n    )\n    .cuda()\n)\n");
    ASSERT_EQ(call.findings.size(), 1u);
    EXPECT_EQ(call.findings[0].message.find('\n'), std::string::npos) << call.findings[0].message;
    const auto dev = s.scan_text("d.py", FileKind::python, "import torch\ndevice = 'cuda'\n\n\ndef f(x):\n    return x.to(device)\n");
    ASSERT_EQ(dev.findings.size(), 1u);
    EXPECT_EQ(dev.findings[0].message.find("device device"), std::string::npos) << dev.findings[0].message;
    EXPECT_NE(dev.findings[0].message.find("`device` (module constant = \"cuda\", line 2)"), std::string::npos) << dev.findings[0].message;
}

TEST(Messages, EveryCorpusMessageIsOneShortLine) {
    std::size_t n = 0;
    for (const auto& repo : fs::directory_iterator(test::source_dir() / "corpus")) {
        if (!repo.is_directory()) continue;
        const auto r = test::bundled_scanner().scan(repo.path(), {repo.path()}, ScanOptions{});
        for (const auto& f : r.findings) {
            ++n;
            EXPECT_EQ(f.message.find('\n'), std::string::npos) << repo.path().filename() << ": " << f.rule_id << ": " << f.message;
            EXPECT_LT(f.message.size(), 200u) << repo.path().filename() << ": " << f.rule_id << ": " << f.message;
            EXPECT_EQ(f.message.find("__launch_bounds__"), std::string::npos) << f.message;
        }
    }
    EXPECT_GT(n, 100u);
}

TEST(Messages, KernelsAreNamedByTheirName) {
    const auto out = test::bundled_scanner().scan_text(
        "k.cu", FileKind::cuda,
        "__global__ void __launch_bounds__(256) scale_kernel(float* x, int n) {\n  int i = threadIdx.x;\n  if (i < n) x[i] *= 2.0f;\n}\n");
    ASSERT_FALSE(out.findings.empty());
    EXPECT_NE(out.findings[0].message.find("`scale_kernel`"), std::string::npos) << out.findings[0].message;
}

// ---- region parsing: the same findings as a whole-file parse, whatever the size ----------------

std::vector<std::string> signature(const FileOutcome& o) {
    std::vector<std::string> out;
    for (const auto& f : o.findings) {
        out.push_back(f.rule_id + "@" + std::to_string(f.location.line) + ":" + std::to_string(f.location.col) + " " +
                      std::string(to_string(f.severity)) + " " + std::string(to_string(f.guard)) + " " + f.message);
        for (const auto& r : f.related)  // the uses of a constant: one finding at its definition, its uses beside it
            out.back() += " | " + r.label + " " + std::to_string(r.location.line) + ":" + std::to_string(r.location.col);
    }
    return out;
}

TEST(Regions, PaddedFilesGiveTheSameFindingsWithRegionsOnAndOff) {
    // Trigger-free code after the file pushes it past the region threshold (8 KiB).
    const std::string pad = "\n\n" + test::python_padding(12000);
    std::vector<fs::path> files;
    for (const auto& dir : {test::rules_dir(), test::source_dir() / "corpus"})
        for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it)
            if (it->is_regular_file() && it->path().extension() == ".py") files.push_back(it->path());
    ASSERT_GT(files.size(), 100u);
    std::size_t differing = 0, findings = 0;
    for (const auto& f : files) {
        const std::string text = read_file(f) + pad;
        const auto regions = test::bundled_scanner().scan_text(f.filename().string(), FileKind::python, text, false);
        const auto whole = test::bundled_scanner().scan_text(f.filename().string(), FileKind::python, text, true);
        findings += whole.findings.size();
        if (signature(regions) != signature(whole)) {
            ++differing;
            std::string detail;
            for (const auto& x : signature(regions)) detail += "\n  regions: " + x;
            for (const auto& x : signature(whole)) detail += "\n  whole:   " + x;
            ADD_FAILURE() << f << ": regions and a whole-file parse disagree" << detail;
        }
    }
    std::cout << "[ regions  ] " << files.size() << " files padded past 8 KiB, " << findings << " findings, " << differing << " differ\n";
    EXPECT_GT(findings, 100u);
}

// ---- --jobs -------------------------------------------------------------------------------------

TEST(Jobs, AnExceptionInAWorkerReachesTheCallerAndStopsTheHandingOut) {
    // Thrown on a worker thread, it would end the process (std::terminate) before this fix.
    for (unsigned jobs : {1u, 2u, 4u}) {
        std::atomic<int> ran{0};
        try {
            parallel_for(1000, [&](std::size_t i) {
                ++ran;
                if (i == 3) throw std::runtime_error("item 3 is bad");
            }, jobs);
            FAIL() << "the exception must reach the caller";
        } catch (const std::runtime_error& e) {
            EXPECT_STREQ(e.what(), "item 3 is bad");
        }
        // With one thread nothing follows the bad item; with more, the others finish what they hold
        // (how far they got before the handing out stopped depends on the scheduler).
        if (jobs == 1) {
            EXPECT_EQ(ran.load(), 4) << "no item is handed out after the first exception";
        }
    }
}

TEST(Jobs, ReportsAreByteIdenticalForOneAndTwoJobs) {
    for (const char* repo : {"heavy-cuda", "light-lockin", "dual-track-ddp", "sparse-pointnet"}) {
        const fs::path p = test::source_dir() / "corpus" / repo;
        for (const char* format : {"json", "sarif"}) {
            const std::string cmd = kBin + " report --no-cache --fail-on none --format " + format + " " + quote(p);
            const auto one = test::run_command(cmd + " --jobs 1");
            const auto two = test::run_command(cmd + " --jobs 2");
            ASSERT_EQ(one.exit_code, 0);
            EXPECT_FALSE(one.output.empty());
            EXPECT_TRUE(one.output == two.output) << repo << " " << format << ": the report depends on the number of jobs";
        }
    }
}

}  // namespace

// ---- fail closed ------------------------------------------------------------------------------

#include <fcntl.h>
#include <sys/resource.h>

#include "auditor/launcher.hpp"
#include "auditor/trace.hpp"
#include "core/mps_tables.hpp"

namespace {

std::set<int> open_fds() {
    std::set<int> out;
    for (int fd = 0; fd < 4096; ++fd)
        if (::fcntl(fd, F_GETFD) != -1) out.insert(fd);
    return out;
}

TEST(Launcher, NoDescriptorLeaksWhenAPipeCannotBeMade) {
    rlimit old{};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &old), 0);
    const std::set<int> before = open_fds();
    // A descriptor limit that leaves exactly four free numbers: two pipes, not the third.
    rlim_t limit = 0;
    for (int free_below = 0; free_below < 4; ++limit) free_below += before.count(static_cast<int>(limit)) ? 0 : 1;
    rlimit tight = old;
    tight.rlim_cur = limit;
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &tight), 0);
    LaunchOptions o;
    o.argv = {"true"};
    o.echo = false;
    const LaunchResult r = launch(o);
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &old), 0);
    EXPECT_FALSE(r.started);
    EXPECT_NE(r.launch_error.find("pipe"), std::string::npos) << r.launch_error;
    EXPECT_EQ(open_fds(), before) << "the pipes made before the failure must be closed";
    // And a command that runs leaves nothing open either.
    const LaunchResult ok = launch(o);
    EXPECT_TRUE(ok.started);
    EXPECT_EQ(open_fds(), before);
}

// A guard kind rules/program.yaml gives no weight would weigh nothing, silently (fail closed).
TEST(RuleFiles, EveryGuardKindNeedsAWeight) {
    test::TempDir d;
    fs::copy(test::rules_dir(), d.path() / "rules", fs::copy_options::recursive);
    const fs::path program = d.path() / "rules" / "program.yaml";
    const std::string original = read_file(program);
    const std::string without = std::regex_replace(original, std::regex("\n  default-unused: \\{[^\n]*"), "");
    ASSERT_NE(without, original);
    std::ofstream(program, std::ios::trunc) << without;
    try {
        RuleCatalogue::load(d.path() / "rules");
        FAIL() << "a guard kind without a weight must not load";
    } catch (const RuleError& e) {
        EXPECT_NE(std::string(e.what()).find("program.yaml"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("no weight for the guard kind 'default-unused'"), std::string::npos) << e.what();
    }
}

TEST(RuleFiles, UnknownKeysAndEnginesAreErrorsNamingTheFileAndKey) {
    test::TempDir d;
    fs::copy(test::rules_dir(), d.path() / "rules", fs::copy_options::recursive);
    const fs::path rule = d.path() / "rules" / "device" / "cuda-method-call.yaml";
    const std::string original = read_file(rule);
    auto load_error = [&](const std::string& text) -> std::string {
        std::ofstream(rule, std::ios::trunc) << text;
        try {
            RuleCatalogue::load(d.path() / "rules");
        } catch (const RuleError& e) {
            return e.what();
        }
        return "";
    };
    EXPECT_EQ(load_error(original), "") << "the bundled rule loads";
    const std::string misspelt = std::regex_replace(original, std::regex("\npython:\n"), "\npython:\n  gaurd: none\n");
    ASSERT_NE(misspelt, original);
    std::string e = load_error(misspelt);
    EXPECT_NE(e.find("cuda-method-call.yaml"), std::string::npos) << e;
    EXPECT_NE(e.find("unknown key 'gaurd'"), std::string::npos) << e;
    e = load_error(std::regex_replace(original, std::regex("engine: python"), "engine: semgrep"));
    EXPECT_NE(e.find("cuda-method-call.yaml"), std::string::npos) << e;
    EXPECT_NE(e.find("engine"), std::string::npos) << e;
    e = load_error(std::regex_replace(original, std::regex("\nfix:"), "\nfixx: typo\nfix:"));
    EXPECT_NE(e.find("unknown key 'fixx'"), std::string::npos) << e;
    e = load_error(std::regex_replace(original, std::regex("\\blow: ([0-9.]+)"), "low: lots"));
    EXPECT_NE(e.find("effort.low"), std::string::npos) << e;
}

// The bundled rules copied into a folder of their own, with one text of one rule file replaced, and
// what compiling their Python queries says: the RuleError's message, or "" when they compile.
struct RulesWithAnEdit {
    test::TempDir dir;
    std::optional<RuleCatalogue> catalogue;
    RulesWithAnEdit(const std::string& rule_file, const std::string& from, const std::string& to) {
        fs::copy(test::rules_dir(), dir.path() / "rules", fs::copy_options::recursive);
        const fs::path rule = dir.path() / "rules" / rule_file;
        std::string text = read_file(rule);
        const std::size_t at = text.find(from);
        if (at == std::string::npos) throw std::runtime_error(rule_file + " no longer holds " + from);
        text.replace(at, from.size(), to);
        std::ofstream(rule, std::ios::trunc) << text;
        catalogue.emplace(RuleCatalogue::load(dir.path() / "rules"));  // loading does not compile
    }
    std::string compile_error() const {
        python::PythonEngine engine(*catalogue, kDefaultTargetTorch);
        try {
            engine.prepare();
            engine.wait_for_queries();
        } catch (const RuleError& e) {
            return e.what();
        }
        return {};
    }
};

// A query that does not compile is an error naming its file and line, when a scan has Python to
// read; the engine compiles its queries then, not when it is made, so that a warm check (every
// file from the cache) does not pay for them, and beside the first files' analysis: the scan waits
// for them once the files are analysed, and fails there rather than skip each Python file.
TEST(RuleFiles, ABrokenQueryFailsTheScanThatReadsPython) {
    const RulesWithAnEdit rules("device/cuda-method-call.yaml", "(#eq? @_m \"cuda\")", "(#eq? @_m \"cuda\"");  // one ')' short
    const std::string e = rules.compile_error();
    EXPECT_NE(e.find("cuda-method-call.yaml: python.query line"), std::string::npos) << "an unbalanced query must not compile: " << e;
    test::TempDir repo;
    ScanOptions o;
    EXPECT_NO_THROW(Scanner(*rules.catalogue).scan(repo.path(), {repo.path()}, o)) << "nothing to read, nothing compiled";
    repo.write("train.py", "import torch\nx = torch.zeros(1).cuda()\n");
    EXPECT_THROW(Scanner(*rules.catalogue).scan(repo.path(), {repo.path()}, o), RuleError);
}

// A predicate that reads a capture its pattern never makes is an error naming the rule file (the
// predicates are compiled apart from the patterns, QuerySet), not a rule that silently never matches.
TEST(RuleFiles, APredicateOnACaptureNoPatternMakesNamesTheRule) {
    const RulesWithAnEdit rules("device/cuda-method-call.yaml", "(#eq? @_m \"cuda\")", "(#eq? @_method \"cuda\")");
    const std::string e = rules.compile_error();
    EXPECT_NE(e.find("cuda-method-call.yaml"), std::string::npos) << e;
    EXPECT_NE(e.find("@_method"), std::string::npos) << e;
}

// A line rule's pattern that does not compile fails the scan that reads a file of its kinds, naming
// the rule file; a scan of Python files alone never compiles the line patterns (std::regex: 4 ms of a
// pre-commit check), as the Python queries compile only where there is Python to read.
TEST(RuleFiles, ABrokenLinePatternFailsTheScanThatReadsItsFiles) {
    const RulesWithAnEdit rules("environment/slurm-gpu-request.yaml", "#SBATCH\\\\s+--(", "#SBATCH\\\\s+--((");
    test::TempDir repo;
    ScanOptions o;
    repo.write("train.py", "import torch\nx = torch.zeros(1).cuda()\n");
    EXPECT_NO_THROW(Scanner(*rules.catalogue).scan(repo.path(), {repo.path()}, o)) << "no shell script to read";
    repo.write("job.sh", "#!/bin/bash\n#SBATCH --gres=gpu:8\npython train.py\n");
    try {
        Scanner(*rules.catalogue).scan(repo.path(), {repo.path()}, o);
        FAIL() << "a pattern std::regex cannot compile must fail the scan that reads a shell script";
    } catch (const RuleError& e) {
        EXPECT_NE(std::string(e.what()).find("slurm-gpu-request.yaml: lines.pattern"), std::string::npos) << e.what();
    }
}

// A predicate's regular expression is RE2's: one RE2 cannot compile (a lookahead, which ECMAScript
// would take) is an error naming the rule file and the pattern, not a rule that silently never
// matches; the query compiled before it is freed (the sanitizer build's leak check).
TEST(RuleFiles, ARegexRe2CannotCompileNamesTheRuleAndPattern) {
    const RulesWithAnEdit rules("distributed/distributed-data-parallel.yaml", "\"^torch\\\\.nn", "\"^(?=torch)torch\\\\.nn");
    const std::string e = rules.compile_error();
    EXPECT_NE(e.find("distributed-data-parallel.yaml: #qualname-match? pattern '^(?=torch)"), std::string::npos) << "a lookahead must not compile: " << e;
}

TEST(TraceAndBaseline, WrongFieldTypesNameTheFileAndField) {
    const MpsTable table = load_mps_table(test::rules_dir(), kDefaultTargetTorch);
    const auto error_of = [&](const char* json) -> std::string {
        try {
            evidence_from_trace(nlohmann::json::parse(json), table, "t.json");
        } catch (const std::runtime_error& e) {
            return e.what();
        }
        return "";
    };
    EXPECT_EQ(error_of(R"({"schema":"mpsport.trace/1","ops":[{"op":"aten::add","count":2}]})"), "");
    EXPECT_EQ(error_of(R"({"ops":[{"op":"aten::take","count":"many"}]})").rfind("t.json: field 'ops[0].count' must be an integer, not string", 0), 0u);
    EXPECT_EQ(error_of(R"({"env":{"mps_built":"yes"}})").rfind("t.json: field 'env.mps_built' must be true or false, not string", 0), 0u);
    EXPECT_EQ(error_of(R"({"ops":{"op":"aten::add"}})").rfind("t.json: field 'ops' must be an array", 0), 0u);
    EXPECT_EQ(error_of(R"({"roles":{"params":{"devices":[1]}}})").rfind("t.json: field 'roles.params.devices' must be an array of strings", 0), 0u);

    test::TempDir d;
    d.write("t.py", "model.cuda()\n");
    d.write("base.json", R"({"findings":[{"fingerprint":12}]})");
    const auto r = test::run_command("cd " + quote(d.path()) + " && " + kBin + " check --no-cache --baseline base.json t.py 2>&1");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("base.json: field 'findings[0].fingerprint' must be a string"), std::string::npos) << r.output;
}

}  // namespace

// ---- bugs the fuzzers found (inputs in tests/fuzz/regressions/) -------------------------------

#include <chrono>

#include "analyzer/checkpoints/pickle_reader.hpp"
#include "analyzer/notebooks/notebook.hpp"
#include "core/gitignore.hpp"

namespace {

const fs::path kRegressions = test::source_dir() / "tests" / "fuzz" / "regressions";

TEST(FuzzRegressions, NotebookWithAHugeNumberIsANotebookError) {
    for (const char* f : {"notebook-number-overflow.ipynb", "notebook-cell-type-number.ipynb"}) {
        try {
            notebooks::notebook_to_python(read_file(kRegressions / f));
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("notebook"), std::string::npos) << e.what();
        }
    }
}

TEST(FuzzRegressions, ManyStarsMatchInLinearishTime) {
    const std::string in = read_file(kRegressions / "gitignore-many-stars");
    const auto start = std::chrono::steady_clock::now();
    IgnoreRules rules;
    rules.add("", in.substr(0, in.find('\0')));
    EXPECT_FALSE(rules.is_ignored(std::string(200, 'a') + "/" + std::string(200, 'b'), false));
    EXPECT_TRUE(glob_match("a***b**c*d", "axxbyyczzd"));
    EXPECT_FALSE(glob_match("a***b**c*d", "axxbyyczz/d"));
    EXPECT_TRUE(glob_match("**/x/**/y*", "a/b/x/c/d/yz"));
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
}

TEST(FuzzRegressions, RuleFileWithBadUtf8IsARuleError) {
    test::TempDir d;
    fs::copy(test::rules_dir(), d.path() / "rules", fs::copy_options::recursive);
    fs::copy_file(kRegressions / "rule-invalid-utf8.yaml", d.path() / "rules" / "device" / "fuzz-rule.yaml");
    try {
        RuleCatalogue::load(d.path() / "rules");
        FAIL() << "a rule file with bad UTF-8 must not load";
    } catch (const RuleError& e) {
        EXPECT_NE(std::string(e.what()).find("fuzz-rule.yaml: not a text file"), std::string::npos) << e.what();
    }
}

TEST(FuzzRegressions, ASelfContainingPickleIsReleased) {
    // [] memoized, then appended to itself: a shared_ptr cycle the arena breaks (LeakSanitizer checks it).
    const std::string cyclic = std::string("\x80\x02]q\x00h\x00" "a.", 9);
    std::weak_ptr<checkpoints::PickleValue> root;
    {
        const auto r = checkpoints::read_pickle(cyclic);
        ASSERT_EQ(r.root->kind, checkpoints::PickleValue::Kind::list);
        ASSERT_EQ(r.root->items.size(), 1u);
        EXPECT_EQ(r.root->items[0], r.root);
        root = r.root;
    }
    EXPECT_TRUE(root.expired()) << "the self-containing list leaked";
}

}  // namespace
