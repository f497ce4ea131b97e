#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/paths.hpp"
#include "core/program_facts.hpp"
#include "core/source_text.hpp"

using namespace mpsport;

TEST(TextProblem, AcceptsUtf8RejectsBinaryAndBadSequences) {
    EXPECT_FALSE(text_problem("x = 'naïve ✓ 😀'\n"));
    EXPECT_EQ(*text_problem(std::string("ab\0cd", 5)), "binary file (contains NUL bytes)");
    const auto latin1 = text_problem("caf\xe9 = 1\n");
    ASSERT_TRUE(latin1);
    EXPECT_NE(latin1->find("invalid UTF-8 at byte 3"), std::string::npos) << *latin1;
    EXPECT_TRUE(text_problem("\xc0\xaf"));          // overlong '/'
    EXPECT_TRUE(text_problem("\xed\xa0\x80"));      // UTF-16 surrogate
    EXPECT_TRUE(text_problem("ok\xe2\x82"));        // truncated at the end
}

TEST(SourceText, LinesAndSnippets) {
    SourceText s("a = 1\n    b = 2  \nc = 3");
    EXPECT_EQ(s.line_count(), 3u);
    EXPECT_EQ(s.line_of(0), 1);
    EXPECT_EQ(s.line_of(6), 2);
    EXPECT_EQ(s.line(3), "c = 3");
    EXPECT_EQ(s.snippet(10, 12), "b = 2");
}

TEST(Suppressions, LineAndFileDirectives) {
    SourceText s(
        "# mpsport: ignore-file[float64-dtype]\n"
        "x.cuda()  # mpsport: ignore[cuda-method-call]\n"
        "y.cuda()  # mpsport: ignore\n"
        "z.cuda()  # mpsport: ignore[other-rule]\n");
    const auto sup = Suppressions::parse(s);
    EXPECT_TRUE(sup.suppressed("float64-dtype", 4));
    EXPECT_TRUE(sup.suppressed("cuda-method-call", 2));
    EXPECT_TRUE(sup.suppressed("anything", 3));
    EXPECT_FALSE(sup.suppressed("cuda-method-call", 4));
}

TEST(Suppressions, IgnoreFileOnlyCountsAtTheTop) {
    SourceText s("import torch\n# mpsport: ignore-file[float64-dtype]\nx = torch.float64\n");
    EXPECT_FALSE(Suppressions::parse(s).suppressed("float64-dtype", 3));
}

// A call in a comment is no call (Step-Audio's `# self.capture_inference()`); a `#` inside a string,
// one-line or triple-quoted on one line, starts no comment, and a name in quotes is still a name.
TEST(AttributeNames, CommentsAreNoUsesStringsAre) {
    const std::string code = "x = 1  # self.capture_inference()\n"
                             "url = 'http://h/#frag'; y.after_string()\n"
                             "doc = \"\"\"a # b\"\"\"; z.after_triple()\n"
                             "getattr(m, 'by_name')\n"
                             "# w.commented()\n";
    const auto names = attribute_names_of(code);
    auto has = [&](const char* n) { return std::binary_search(names.begin(), names.end(), name_hash(n)); };
    EXPECT_FALSE(has("capture_inference"));
    EXPECT_FALSE(has("commented"));
    EXPECT_TRUE(has("after_string"));
    EXPECT_TRUE(has("after_triple"));
    EXPECT_TRUE(has("by_name"));
}

TEST(MappedFile, GivesAFilesBytesAndNamesOneItCannotOpen) {
    const auto dir = std::filesystem::temp_directory_path() / ("mpsport-mapped-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    // a kept report's shape: a header line, then text with every byte value a report may hold
    std::string text = "3 major 0123456789abcdef\n";
    for (int i = 0; i < 70000; ++i) text += static_cast<char>(i % 251 + 1);
    { std::ofstream(dir / "kept.txt", std::ios::binary) << text; }
    {
        const MappedFile mapped(dir / "kept.txt");
        EXPECT_EQ(mapped.bytes().size(), text.size());
        EXPECT_TRUE(mapped.bytes() == text);
        EXPECT_EQ(mapped.bytes(), read_file(dir / "kept.txt"));
    }
    { std::ofstream(dir / "empty.txt", std::ios::binary); }
    EXPECT_TRUE(MappedFile(dir / "empty.txt").bytes().empty());
    try {
        MappedFile missing(dir / "missing.txt");
        ADD_FAILURE() << "a missing file was read";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("missing.txt: cannot open"), std::string::npos) << e.what();
    }
    std::filesystem::remove_all(dir);
}
