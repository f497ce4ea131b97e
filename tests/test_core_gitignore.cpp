#include <gtest/gtest.h>

#include "core/gitignore.hpp"

using mpsport::glob_match;
using mpsport::IgnoreRules;

TEST(GlobMatch, StarStopsAtSlashDoubleStarDoesNot) {
    EXPECT_TRUE(glob_match("*.py", "train.py"));
    EXPECT_FALSE(glob_match("*.py", "src/train.py"));
    EXPECT_TRUE(glob_match("**/*.py", "src/a/train.py"));
    EXPECT_TRUE(glob_match("**/*.py", "train.py"));
    EXPECT_TRUE(glob_match("data/**", "data/a/b.txt"));
    EXPECT_TRUE(glob_match("a/**/b", "a/b"));
    EXPECT_TRUE(glob_match("a/**/b", "a/x/y/b"));
    EXPECT_TRUE(glob_match("ckpt_[0-9].pt", "ckpt_3.pt"));
    EXPECT_FALSE(glob_match("ckpt_[!0-9].pt", "ckpt_3.pt"));
    EXPECT_TRUE(glob_match("?.py", "a.py"));
}

TEST(IgnoreRules, NameAnchoredFolderOnlyAndNegation) {
    IgnoreRules rules;
    rules.add("", "# comment\n*.log\n/outputs\nwandb/\n!keep.log\n");
    EXPECT_TRUE(rules.is_ignored("run.log", false));
    EXPECT_TRUE(rules.is_ignored("deep/dir/run.log", false));
    EXPECT_FALSE(rules.is_ignored("keep.log", false));
    EXPECT_TRUE(rules.is_ignored("outputs", true));
    EXPECT_FALSE(rules.is_ignored("src/outputs", true)) << "a leading slash anchors to the ignore file's folder";
    EXPECT_TRUE(rules.is_ignored("src/wandb", true));
    EXPECT_FALSE(rules.is_ignored("src/wandb", false)) << "a trailing slash matches folders only";
}

TEST(IgnoreRules, NestedIgnoreFileAppliesBelowItsFolder) {
    IgnoreRules rules;
    rules.add("", "*.tmp\n");
    rules.add("experiments", "scratch.py\n!important.tmp\n");
    EXPECT_TRUE(rules.is_ignored("experiments/scratch.py", false));
    EXPECT_FALSE(rules.is_ignored("scratch.py", false));
    EXPECT_FALSE(rules.is_ignored("experiments/important.tmp", false));
    EXPECT_TRUE(rules.is_ignored("other/important.tmp", false));
}

TEST(IgnoreRules, AbsoluteLookingPathsTerminate) {
    IgnoreRules rules;
    rules.add("", "*.log\n");
    EXPECT_TRUE(rules.is_ignored("/tmp/x/run.log", false));
    EXPECT_FALSE(rules.is_ignored("/tmp/x/run.py", false));
}
