#include <gtest/gtest.h>

#include "analyzer/manifests/manifest_engine.hpp"
#include "analyzer/scanner.hpp"
#include "test_support.hpp"

using namespace mpsport;

namespace {
std::vector<std::string> names(FileKind kind, const std::string& text) {
    std::vector<std::string> out;
    for (const auto& d : manifests::dependencies(kind, SourceText(text))) out.push_back(d.name);
    return out;
}
}  // namespace

TEST(Manifests, RequirementsLinesAndEggs) {
    EXPECT_EQ(names(FileKind::requirements,
                    "# comment\nnumpy>=1.2  # pinned\n-r base.txt\n--index-url https://x\n"
                    "-e git+https://github.com/org/apex#egg=apex\nflash-attn @ https://x/flash.whl\ntorch[cuda]==2.1 ; sys_platform=='linux'\n"),
              (std::vector<std::string>{"numpy", "apex", "flash-attn", "torch"}));
}

TEST(Manifests, PyprojectTablesAndPoetry) {
    EXPECT_EQ(names(FileKind::pyproject,
                    "[build-system]\nrequires = ['setuptools', 'torch']\n"
                    "[project]\nname='x'\ndependencies = ['numpy>=1', 'triton']\n"
                    "[project.optional-dependencies]\nfast = ['xformers']\n"
                    "[tool.poetry.dependencies]\npython = '^3.10'\ncupy = '*'\n"),
              (std::vector<std::string>{"numpy", "triton", "setuptools", "torch", "xformers", "cupy", "python"}));
}

TEST(Manifests, CondaWithPipSection) {
    EXPECT_EQ(names(FileKind::conda_env, "name: x\ndependencies:\n  - python=3.11\n  - nvidia::cuda-toolkit\n  - pip:\n    - deepspeed\n"),
              (std::vector<std::string>{"python", "cuda-toolkit", "deepspeed"}));
}

TEST(Manifests, SetupCfgInstallRequires) {
    EXPECT_EQ(names(FileKind::setup_cfg, "[metadata]\nname = x\n[options]\ninstall_requires =\n    numpy\n    apex>=0.1\npackages = find:\n"),
              (std::vector<std::string>{"numpy", "apex"}));
}

TEST(Manifests, MalformedManifestIsSkippedNamingTheLine) {
    const auto catalogue = RuleCatalogue::load(test::rules_dir());
    const Scanner scanner(catalogue);
    const auto out = scanner.scan_text("pyproject.toml", FileKind::pyproject, "[project]\ndependencies = ['a',\n");
    ASSERT_TRUE(out.skip_reason);
    EXPECT_NE(out.skip_reason->find("invalid TOML at line"), std::string::npos) << *out.skip_reason;
    const auto yml = scanner.scan_text("environment.yml", FileKind::conda_env, "dependencies: [a, b\n");
    ASSERT_TRUE(yml.skip_reason);
    EXPECT_NE(yml.skip_reason->find("invalid YAML"), std::string::npos);
}

TEST(Manifests, PackageFindingPointsAtTheEntry) {
    const auto catalogue = RuleCatalogue::load(test::rules_dir());
    const Scanner scanner(catalogue);
    const auto out = scanner.scan_text("pyproject.toml", FileKind::pyproject, "[project]\nname = 'x'\ndependencies = [\n  'numpy',\n  'flash-attn>=2',\n]\n");
    ASSERT_EQ(out.findings.size(), 1u);
    EXPECT_EQ(out.findings[0].rule_id, "cuda-only-package-dependency");
    EXPECT_EQ(out.findings[0].location.line, 5);
    EXPECT_NE(out.findings[0].message.find("flash_attn"), std::string::npos) << out.findings[0].message;
}
