// Golden test: `mpsport report` over each corpus repo reproduces its expected.json: the verdict and
// the findings by rule; where given, the confidence, the reach of every finding ("rule@path:line"),
// import chains, entry points and the highest severity per reach. Every rule and every verdict
// must appear somewhere in the corpus.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "analyzer/scanner.hpp"
#include "core/paths.hpp"
#include "reports/checklist.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace mpsport;

namespace {

const std::vector<std::string>& corpus_repos() {
    static const std::vector<std::string> repos = [] {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(test::source_dir() / "corpus"))
            if (fs::exists(e.path() / "expected.json")) out.push_back(e.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }();
    return repos;
}

// "by_target_torch": {"2.6.0": {rule: n}} in expected.json, or an empty object.
nlohmann::json by_target_torch(const nlohmann::json& expected) {
    auto it = expected.find("by_target_torch");
    return it == expected.end() ? nlohmann::json::object() : *it;
}

struct Outcome {
    std::string verdict;
    std::string confidence;
    std::map<std::string, int> by_rule;
    std::map<std::string, std::string> reach;                   // "rule@path:line" -> reach
    std::map<std::string, std::vector<std::string>> chains;     // "rule@path:line" -> chain
    std::map<std::string, Severity> max_severity;               // reach -> highest severity
    std::set<std::string> entry_points;
};

Outcome report_on(const std::string& repo, const std::string& target_torch = kDefaultTargetTorch) {
    const auto catalogue = RuleCatalogue::load(test::rules_dir());
    const Scanner scanner(catalogue, target_torch);
    const fs::path root = test::source_dir() / "corpus" / repo;
    const ScanResult r = scanner.scan(root, {root}, ScanOptions{});
    const Assessment a = assess(r.findings, nullptr, catalogue, r.file_lines, &r);
    Outcome o;
    o.verdict = to_string(a.verdict);
    o.confidence = to_string(a.confidence);
    for (const auto& f : r.findings) {
        ++o.by_rule[f.rule_id];
        const std::string key = f.rule_id + "@" + f.location.path + ":" + std::to_string(f.location.line);
        o.reach[key] = to_string(f.reach);
        o.chains[key] = f.chain;
        const std::string reach(to_string(f.reach));
        if (!o.max_severity.count(reach) || o.max_severity[reach] < f.severity) o.max_severity[reach] = f.severity;
    }
    for (const auto& e : r.program.entry_points) o.entry_points.insert(e.path);
    return o;
}

class CorpusGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusGolden, ReportMatchesExpectedJson) {
    const auto expected = nlohmann::json::parse(read_file(test::source_dir() / "corpus" / GetParam() / "expected.json"));
    const Outcome got = report_on(GetParam());
    EXPECT_EQ(got.verdict, expected.at("verdict").get<std::string>());
    std::map<std::string, int> want;
    for (const auto& [rule, n] : expected.at("findings").items()) want[rule] = n.get<int>();
    for (const auto& [rule, n] : want) EXPECT_EQ(got.by_rule.count(rule) ? got.by_rule.at(rule) : 0, n) << "rule " << rule;
    for (const auto& [rule, n] : got.by_rule) EXPECT_TRUE(want.count(rule)) << "unexpected " << n << " x " << rule;
    if (expected.contains("confidence")) {
        EXPECT_EQ(got.confidence, expected["confidence"].get<std::string>());
    }
    if (expected.contains("reach")) {
        // every finding, with its reach: nothing more, nothing less
        std::map<std::string, std::string> want_reach;
        for (const auto& [key, reach] : expected["reach"].items()) want_reach[key] = reach.get<std::string>();
        EXPECT_EQ(got.reach, want_reach);
    }
    if (expected.contains("chains")) {
        for (const auto& [key, chain] : expected["chains"].items()) {
            EXPECT_EQ(got.chains.count(key) ? got.chains.at(key) : std::vector<std::string>{}, chain.get<std::vector<std::string>>()) << key;
        }
    }
    if (expected.contains("entry_points")) {
        for (const auto& e : expected["entry_points"]) {
            EXPECT_TRUE(got.entry_points.count(e.get<std::string>())) << "entry point " << e;
        }
    }
    if (expected.contains("max_severity")) {
        for (const auto& [reach, sev] : expected["max_severity"].items()) {
            EXPECT_LE(got.max_severity.count(reach) ? got.max_severity.at(reach) : Severity::info, *parse_severity(sev.get<std::string>())) << reach;
        }
    }
    // "by_target_torch": {"2.6.0": {rule: n}}: those rules' counts when scanned for an older PyTorch.
    const nlohmann::json older = by_target_torch(expected);
    for (const auto& [version, rules] : older.items()) {
        const Outcome old = report_on(GetParam(), version);
        for (const auto& [rule, n] : rules.items())
            EXPECT_EQ(old.by_rule.count(rule) ? old.by_rule.at(rule) : 0, n.get<int>()) << "rule " << rule << " under --target-torch " << version;
    }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusGolden, ::testing::ValuesIn(corpus_repos()), [](const auto& param_info) {
    std::string name = param_info.param;
    for (char& c : name)
        if (c == '-') c = '_';
    return name;
});

TEST(CorpusCoverage, EveryVerdictAndEveryStaticRuleAppears) {
    std::set<std::string> verdicts, rules;
    for (const auto& repo : corpus_repos()) {
        const auto expected = nlohmann::json::parse(read_file(test::source_dir() / "corpus" / repo / "expected.json"));
        verdicts.insert(expected.at("verdict").get<std::string>());
        for (const auto& [rule, n] : expected.at("findings").items()) rules.insert(rule);
        const nlohmann::json older = by_target_torch(expected);
        for (const auto& [version, by_rule] : older.items())
            for (const auto& [rule, n] : by_rule.items()) rules.insert(rule);
    }
    EXPECT_EQ(verdicts, (std::set<std::string>{"migrate", "dual-track", "stay-on-CUDA"}));
    const auto catalogue = RuleCatalogue::load(test::rules_dir());
    for (const auto& r : catalogue.rules()) EXPECT_TRUE(rules.count(r.id)) << "no corpus repo exercises rule " << r.id;
}

}  // namespace
