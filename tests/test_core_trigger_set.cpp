#include <gtest/gtest.h>

#include "core/trigger_set.hpp"

using mpsport::TriggerSet;

namespace {
std::vector<std::pair<std::size_t, std::uint32_t>> hits(const TriggerSet& t, std::string_view text) { return t.find_each(text); }
}  // namespace

TEST(TriggerSet, FindsEveryOccurrenceIncludingOverlapsAndSuffixes) {
    TriggerSet t({"cuda", "nccl", "da", ".cuda(", "float64"});
    const auto found = hits(t, "model = model.cuda()\nx.cuda()\n");
    // ".cuda(" starts at 13, "cuda" at 14, "da" (inside "cuda") at 16; then again on the second line.
    const std::vector<std::pair<std::size_t, std::uint32_t>> want = {{14, 0}, {16, 2}, {13, 3}, {23, 0}, {25, 2}, {22, 3}};
    EXPECT_EQ(found, want);
}

TEST(TriggerSet, EmptyTextAndNoLiterals) {
    EXPECT_TRUE(hits(TriggerSet({"a"}), "").empty());
    EXPECT_TRUE(hits(TriggerSet({}), "anything").empty());
}
