// The generic rule test: every rule's fixtures, with `# ruleid: <id>` / `# ok: <id>` lines (or `//`),
// must produce exactly the annotated findings. Adding a rule means adding data and a fixture, not a test.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include "analyzer/scanner.hpp"
#include "core/paths.hpp"
#include "core/rule_catalogue.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace mpsport;

namespace {

struct Expectations {
    std::map<int, std::set<std::string>> must_match;
    std::map<int, std::set<std::string>> must_not_match;
    std::map<int, std::set<std::string>> known_wrong;  // todoruleid / todook: not checked
};

Expectations parse_annotations(const std::string& text) {
    static const std::regex annotation(R"((#|//)\s*(todoruleid|todook|ruleid|ok):\s*([a-z0-9-]+(\s*,\s*[a-z0-9-]+)*))");
    Expectations ex;
    std::vector<std::pair<std::string, std::vector<std::string>>> pending;
    std::istringstream in(text);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        std::smatch m;
        if (std::regex_search(line, m, annotation) && line.find_first_not_of(" \t") == line.find(m[1].str())) {
            std::vector<std::string> ids;
            std::stringstream list(m[3].str());
            std::string id;
            while (std::getline(list, id, ',')) {
                id.erase(0, id.find_first_not_of(' '));
                id.erase(id.find_last_not_of(' ') + 1);
                ids.push_back(id);
            }
            pending.emplace_back(m[2].str(), ids);
            continue;
        }
        for (const auto& [kind, ids] : pending) {
            auto& target = kind == "ruleid" ? ex.must_match : kind == "ok" ? ex.must_not_match : ex.known_wrong;
            target[n].insert(ids.begin(), ids.end());
        }
        pending.clear();
    }
    return ex;
}

// Fixture kind from what follows the rule id: ".py", ".requirements.txt", ".pyproject.toml", ".Dockerfile", ...
bool fixture_kind(const std::string& suffix, FileKind& kind) {
    return classify_file(suffix.substr(1), kind) || classify_file("fixture" + suffix, kind);
}

// `# mpsport-fixture: target-torch=2.6.0` at the top of a fixture scans it for that PyTorch version.
const Scanner& scanner_for(const std::string& text) {
    static const std::regex header(R"(mpsport-fixture: target-torch=([0-9.]+))");
    static std::map<std::string, std::unique_ptr<Scanner>> scanners;
    std::smatch m;
    if (!std::regex_search(text, m, header)) return test::bundled_scanner();
    auto& s = scanners[m[1].str()];
    if (!s) s = std::make_unique<Scanner>(test::bundled_catalogue(), m[1].str());
    return *s;
}

class RuleFixtures : public ::testing::TestWithParam<std::string> {};

const std::vector<std::string>& all_rule_ids() {
    static const std::vector<std::string> ids = [] {
        std::vector<std::string> out;
        for (const auto& r : test::bundled_catalogue().rules()) out.push_back(r.id);
        return out;
    }();
    return ids;
}

// Checkpoint rules cannot annotate a binary: their fixture `<id>.make.py` writes real torch.save
// output at test time (no binaries committed); files named ruleid-* must fire the rule, ok-* must not.
void check_checkpoint_fixture(const Rule& rule) {
    const fs::path generator = rule.source.parent_path() / (rule.id + ".make.py");
    ASSERT_TRUE(fs::exists(generator)) << rule.source << ": a checkpoint rule needs " << generator.filename() << " beside it";
    test::TempDir out;
    const auto made = test::run_command("/usr/bin/python3 '" + generator.string() + "' '" + out.path().string() + "'");
    ASSERT_EQ(made.exit_code, 0) << generator << " failed (it needs /usr/bin/python3 with torch)";
    int positives = 0;
    for (const auto& entry : fs::directory_iterator(out.path())) {
        const std::string name = entry.path().filename().string();
        FileEntry file{name, entry.path(), FileKind::checkpoint, 0, 0};
        ASSERT_FALSE(stat_file(file, 0));
        const FileOutcome outcome = test::bundled_scanner().scan_checkpoint(file, checkpoints::Limits{});
        ASSERT_FALSE(outcome.skip_reason) << name << ": " << *outcome.skip_reason;
        const bool fired = std::any_of(outcome.findings.begin(), outcome.findings.end(),
                                       [&](const Finding& f) { return f.rule_id == rule.id; });
        if (name.rfind("ruleid-", 0) == 0) {
            ++positives;
            EXPECT_TRUE(fired) << generator.filename().string() << ": " << name << ": expected " << rule.id;
        } else {
            EXPECT_EQ(name.rfind("ok-", 0), 0u) << name << ": fixture files are named ruleid-* or ok-*";
            EXPECT_FALSE(fired) << generator.filename().string() << ": " << name << ": " << rule.id << " must not fire";
        }
    }
    EXPECT_GT(positives, 0) << rule.id << ": its generator writes no ruleid-* file";
}

// Config rules look at a config together with the Python that loads it: the fixtures `<id>.NAME`
// are copied into one folder as NAME ("__" in NAME stands for a folder: conf__db.yml -> conf/db.yml)
// and scanned as a repository; annotations are checked per file.
void check_config_fixture(const Rule& rule) {
    test::TempDir repo;
    std::map<std::string, Expectations> expected;
    for (const auto& entry : fs::directory_iterator(rule.source.parent_path())) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(rule.id + ".", 0) != 0 || name == rule.id + ".yaml") continue;
        std::string as = name.substr(rule.id.size() + 1);
        for (std::size_t p; (p = as.find("__")) != std::string::npos;) as.replace(p, 2, "/");
        const std::string text = read_file(entry.path());
        repo.write(as, text);
        expected[as] = parse_annotations(text);
    }
    ScanOptions o;
    o.jobs = 1;
    const ScanResult r = test::bundled_scanner().scan(repo.path(), {repo.path()}, o);
    for (const auto& s : r.skipped) ADD_FAILURE() << s.path << " skipped: " << s.reason;
    int positives = 0;
    for (const auto& [file, ex] : expected) {
        std::set<int> hit_lines;
        for (const auto& f : r.findings)
            if (f.rule_id == rule.id && f.location.path == file) hit_lines.insert(f.location.line);
        for (const auto& [line, ids] : ex.must_match) {
            if (!ids.count(rule.id)) continue;
            ++positives;
            EXPECT_TRUE(hit_lines.count(line)) << rule.id << "." << file << ":" << line << ": expected " << rule.id << " here, got none";
        }
        for (int line : hit_lines)
            EXPECT_TRUE(ex.must_match.count(line) && ex.must_match.at(line).count(rule.id))
                << rule.id << "." << file << ":" << line << ": unexpected " << rule.id;
    }
    EXPECT_GT(positives, 0) << rule.id << ": its fixtures have no `ruleid: " << rule.id << "` line";
}

TEST_P(RuleFixtures, AnnotatedLinesMatchExactly) {
    const Rule* rule = test::bundled_catalogue().find(GetParam());
    ASSERT_NE(rule, nullptr);
    if (rule->engine == "checkpoint") return check_checkpoint_fixture(*rule);
    if (rule->engine == "config") return check_config_fixture(*rule);
    std::vector<fs::path> fixtures;
    for (const auto& entry : fs::directory_iterator(rule->source.parent_path())) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(rule->id + ".", 0) == 0 && name != rule->id + ".yaml") fixtures.push_back(entry.path());
    }
    ASSERT_FALSE(fixtures.empty()) << rule->source << ": a rule needs a fixture beside it";
    int positives = 0;
    for (const auto& fixture : fixtures) {
        const std::string name = fixture.filename().string();
        FileKind kind;
        ASSERT_TRUE(fixture_kind(name.substr(rule->id.size()), kind)) << fixture << ": cannot tell the file kind from its name";
        const std::string text = read_file(fixture);
        const Expectations ex = parse_annotations(text);
        // Scanned under the name it stands for ("setup.py", "requirements.txt"): some kinds go by the name.
        const FileOutcome outcome = scanner_for(text).scan_text(name.substr(rule->id.size() + 1), kind, text);
        ASSERT_FALSE(outcome.skip_reason) << fixture << ": " << *outcome.skip_reason;
        std::set<int> hit_lines;
        for (const auto& f : outcome.findings)
            if (f.rule_id == rule->id) hit_lines.insert(f.location.line);
        for (const auto& [line, ids] : ex.must_match) {
            if (!ids.count(rule->id)) continue;
            ++positives;
            EXPECT_TRUE(hit_lines.count(line)) << fixture.generic_string() << ":" << line << ": expected " << rule->id << " here, got none";
        }
        for (const auto& [line, ids] : ex.must_not_match) {
            if (ids.count(rule->id)) {
                EXPECT_FALSE(hit_lines.count(line)) << fixture.generic_string() << ":" << line << ": " << rule->id << " must not fire here";
            }
        }
        for (int line : hit_lines) {
            const bool expected = ex.must_match.count(line) && ex.must_match.at(line).count(rule->id);
            const bool known = ex.known_wrong.count(line) && ex.known_wrong.at(line).count(rule->id);
            EXPECT_TRUE(expected || known) << fixture.generic_string() << ":" << line << ": unexpected " << rule->id
                                           << " (annotate it `ruleid` if it is right)";
        }
    }
    EXPECT_GT(positives, 0) << rule->id << ": its fixtures have no `ruleid: " << rule->id << "` line";
}

INSTANTIATE_TEST_SUITE_P(AllRules, RuleFixtures, ::testing::ValuesIn(all_rule_ids()),
                         [](const auto& param_info) {
                             std::string name = param_info.param;
                             for (char& c : name)
                                 if (c == '-') c = '_';
                             return name;
                         });

TEST(RuleFixtureAnnotations, ParserReadsStackedAndCommaSeparatedIds) {
    const auto ex = parse_annotations("x = 1\n# ruleid: a-b\n# ok: c, d\ny = 2\n  // todoruleid: e\nz\n");
    EXPECT_EQ(ex.must_match.at(4), std::set<std::string>{"a-b"});
    EXPECT_EQ(ex.must_not_match.at(4), (std::set<std::string>{"c", "d"}));
    EXPECT_EQ(ex.known_wrong.at(6), std::set<std::string>{"e"});
}

}  // namespace
