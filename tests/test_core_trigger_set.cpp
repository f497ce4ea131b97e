#include <gtest/gtest.h>

#include "core/trigger_set.hpp"

using mpsport::TriggerSet;

TEST(TriggerSet, FindsOverlappingAndSuffixLiterals) {
    TriggerSet t({"cuda", "nccl", "da", ".cuda(", "float64"});
    const auto found = t.find_all("model = model.cuda()\nx = 1\n");
    EXPECT_TRUE(found[0]);
    EXPECT_FALSE(found[1]);
    EXPECT_TRUE(found[2]) << "'da' ends inside 'cuda': suffix links must report it";
    EXPECT_TRUE(found[3]);
    EXPECT_FALSE(found[4]);
}

TEST(TriggerSet, EmptyTextAndNoLiterals) {
    EXPECT_EQ(TriggerSet({"a"}).find_all(""), std::vector<bool>{false});
    EXPECT_TRUE(TriggerSet({}).find_all("anything").empty());
}
