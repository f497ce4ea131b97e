// The guard vocabulary (rules/program.yaml) against its fixture (rules/program.py): every
// `# guard: KIND` line names the guard the finder must see around the next statement.
#include <gtest/gtest.h>

#include <memory>
#include <regex>

#include "analyzer/python/guards.hpp"
#include "core/paths.hpp"
#include "core/source_text.hpp"
#include "test_support.hpp"

namespace mpsport::python {
namespace {

struct TreeDeleter {
    void operator()(TSTree* t) const { ts_tree_delete(t); }
};
struct ParserDeleter {
    void operator()(TSParser* p) const { ts_parser_delete(p); }
};

TEST(GuardVocabulary, FixtureGuardsAreFound) {
    const auto path = test::bundled_catalogue().root() / "program.py";
    const std::string text = read_file(path);
    std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
    ASSERT_TRUE(ts_parser_set_language(parser.get(), tree_sitter_python()));
    std::unique_ptr<TSTree, TreeDeleter> tree(ts_parser_parse_string(parser.get(), nullptr, text.data(), static_cast<uint32_t>(text.size())));
    const TSNode root = ts_tree_root_node(tree.get());
    const ModuleFacts facts(root, text);
    const GuardFinder finder(test::bundled_catalogue().program().guards, facts, root);
    const SourceText source{std::string(text)};

    const std::regex annotation(R"(^\s*# guard: ([a-z-]+)\s*$)");
    int checked = 0;
    for (int line = 1; line < static_cast<int>(source.line_count()); ++line) {
        std::smatch m;
        const std::string l(source.line(line));
        if (!std::regex_match(l, m, annotation)) continue;
        const std::string want = m[1];
        const std::string_view next = source.line(line + 1);
        const std::size_t column = next.find_first_not_of(' ');
        const uint32_t offset = static_cast<uint32_t>(next.data() - source.text().data() + column);
        const TSNode node = ts_node_named_descendant_for_byte_range(root, offset, offset + 1);
        const Guard g = finder.guard_of(node);
        const std::string got = g.mps_aware ? "mps-aware" : std::string(to_string(g.kind));
        EXPECT_EQ(got, want) << path.generic_string() << ":" << line + 1 << ": " << next;
        ++checked;
    }
    EXPECT_GE(checked, 20);
}

}  // namespace
}  // namespace mpsport::python
