#include <gtest/gtest.h>

#include <algorithm>

#include "core/walker.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace mpsport;

namespace {
std::vector<std::string> paths(const WalkResult& r) {
    std::vector<std::string> out;
    for (const auto& f : r.files) out.push_back(f.path);
    return out;
}
}  // namespace

TEST(Walker, RespectsGitignoreAndSkipsVendoredTrees) {
    test::TempDir d;
    d.write(".gitignore", "outputs/\n*.gen.py\n");
    d.write("train.py", "x = 1\n");
    d.write("model/net.py", "x = 1\n");
    d.write("model/net.gen.py", "x = 1\n");
    d.write("outputs/run.py", "x = 1\n");
    d.write(".venv/lib/site.py", "x = 1\n");
    d.write("myenv/pyvenv.cfg", "home = /usr\n");
    d.write("myenv/lib/x.py", "x = 1\n");
    d.write("node_modules/a.py", "x = 1\n");
    d.write("model/.ipynb_checkpoints/net-checkpoint.py", "x = 1\n");  // Jupyter's autosave copy
    d.write("README.md", "Run `python train.py`.\n");
    d.write("notes.txt", "# not read\n");
    d.write("requirements-dev.txt", "pytest\n");
    const auto r = walk(d.path(), {d.path()}, WalkOptions{});
    EXPECT_EQ(paths(r), (std::vector<std::string>{"README.md", "model/net.py", "requirements-dev.txt", "train.py"}));
    EXPECT_EQ(r.files[0].kind, FileKind::markdown) << "READMEs name entry points";
    EXPECT_EQ(r.files[2].kind, FileKind::requirements);

    WalkOptions no_ignore;
    no_ignore.respect_gitignore = false;
    const auto all = walk(d.path(), {d.path()}, no_ignore);
    const auto p = paths(all);
    EXPECT_NE(std::find(p.begin(), p.end(), "outputs/run.py"), p.end());
    EXPECT_EQ(std::find(p.begin(), p.end(), ".venv/lib/site.py"), p.end()) << "virtualenvs stay skipped";
}

TEST(Walker, ReportsOversizedFilesAndExcludes) {
    test::TempDir d;
    d.write("big.py", std::string(2000, '#'));
    d.write("small.py", "x = 1\n");
    d.write("legacy/old.py", "x = 1\n");
    WalkOptions o;
    o.max_file_size = 1000;
    o.exclude = {"legacy/"};
    const auto r = walk(d.path(), {d.path()}, o);
    EXPECT_EQ(paths(r), std::vector<std::string>{"small.py"});
    ASSERT_EQ(r.skipped.size(), 1u);
    EXPECT_EQ(r.skipped[0].path, "big.py");
    EXPECT_NE(r.skipped[0].reason.find("oversized: 2000 bytes"), std::string::npos) << r.skipped[0].reason;
}

TEST(Walker, SymlinkLoopIsSkippedWithAReasonWhenFollowing) {
    test::TempDir d;
    d.write("a/train.py", "x = 1\n");
    fs::create_directory_symlink("..", d.path() / "a" / "loop");
    WalkOptions o;
    o.follow_symlinks = true;
    const auto r = walk(d.path(), {d.path()}, o);
    EXPECT_EQ(paths(r), std::vector<std::string>{"a/train.py"});
    ASSERT_EQ(r.skipped.size(), 1u);
    EXPECT_EQ(r.skipped[0].path, "a/loop");
    EXPECT_NE(r.skipped[0].reason.find("symbolic link loop"), std::string::npos);
    // Not following (the default) never enters the link.
    const auto plain = walk(d.path(), {d.path()}, WalkOptions{});
    EXPECT_TRUE(plain.skipped.empty());
}

TEST(Walker, ExplicitFilesAndUnknownKinds) {
    test::TempDir d;
    d.write("x.py", "x = 1\n");
    d.write("notes.txt", "hello\n");
    const auto r = walk(d.path(), {d.path() / "x.py", d.path() / "notes.txt", d.path() / "missing.py"}, WalkOptions{});
    EXPECT_EQ(paths(r), std::vector<std::string>{"x.py"});
    ASSERT_EQ(r.skipped.size(), 2u);
}

TEST(ClassifyFile, KnowsManifestsAndScripts) {
    FileKind k;
    ASSERT_TRUE(classify_file("requirements/cuda.txt", k));
    EXPECT_EQ(k, FileKind::requirements);
    ASSERT_TRUE(classify_file("docker/Dockerfile.train", k));
    EXPECT_EQ(k, FileKind::dockerfile);
    ASSERT_TRUE(classify_file("env/environment-gpu.yml", k));
    EXPECT_EQ(k, FileKind::conda_env);
    ASSERT_TRUE(classify_file("jobs/train.sbatch", k));
    EXPECT_EQ(k, FileKind::shell);
    ASSERT_TRUE(classify_file("csrc/CMakeLists.txt", k));
    EXPECT_EQ(k, FileKind::cmake);
    ASSERT_TRUE(classify_file("cmake/FindCUDNN.cmake", k));
    EXPECT_EQ(k, FileKind::cmake);
    EXPECT_FALSE(classify_file("data/train.csv", k));
}

TEST(Walker, ParallelWalkFindsWhatASequentialWalkFinds) {
    test::TempDir d;
    d.write(".gitignore", "*.tmp.py\n");
    for (int i = 0; i < 12; ++i) {
        const std::string dir = "pkg" + std::to_string(i);
        d.write(dir + "/a.py", "x = 1\n");
        d.write(dir + "/b.tmp.py", "x = 1\n");
        d.write(dir + "/deep/c.py", "x = 1\n");
        d.write(dir + "/deep/.gitignore", i % 2 ? "c.py\n" : "");
    }
    d.write("top.py", "x = 1\n");
    WalkOptions sequential;
    sequential.follow_symlinks = true;  // walks on one thread
    const auto one = walk(d.path(), {d.path()}, sequential);
    const auto many = walk(d.path(), {d.path()}, WalkOptions{});
    EXPECT_EQ(paths(one), paths(many));
    EXPECT_EQ(paths(many).size(), 1u + 12u + 6u) << "top.py, a.py in each package, c.py where not ignored";
}
