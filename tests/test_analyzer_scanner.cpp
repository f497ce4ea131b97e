// Whole scans: bad files are listed as skipped and never stop the scan; the cache reuses
// unchanged files and notices edits; the command line's exit codes and formats.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "analyzer/match.hpp"
#include "analyzer/scan_cache.hpp"
#include "analyzer/scanner.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace mpsport;

namespace {

std::string reason_for(const ScanResult& r, const std::string& path) {
    for (const auto& s : r.skipped)
        if (s.path == path) return s.reason;
    return "";
}

TEST(Scanner, BadFilesAreSkippedWithReasonsAndTheRestIsScanned) {
    test::TempDir d;
    d.write("good.py", "model.cuda()\n");
    d.write("binary.py", std::string("x = 1\0\1\2", 9));
    d.write("latin1.py", "# caf\xe9\nmodel.cuda()\n");
    d.write("notebook.ipynb", "{not json");
    d.write("pyproject.toml", "[project\n");
    const auto unreadable = d.write("secret.py", "model.cuda()\n");
    fs::permissions(unreadable, fs::perms::none);
    const auto catalogue = RuleCatalogue::load(test::rules_dir());
    const Scanner scanner(catalogue);
    ScanOptions o;
    o.jobs = 2;
    const auto r = scanner.scan(d.path(), {d.path()}, o);
    EXPECT_EQ(reason_for(r, "binary.py"), "binary file (contains NUL bytes)");
    EXPECT_EQ(reason_for(r, "latin1.py"), "") << "bad UTF-8 is read with replacement characters (tests/test_hardening.cpp)";
    EXPECT_NE(reason_for(r, "notebook.ipynb").find("not valid JSON"), std::string::npos);
    EXPECT_NE(reason_for(r, "pyproject.toml").find("invalid TOML"), std::string::npos);
    if (geteuid() != 0) {  // root reads every file
        EXPECT_NE(reason_for(r, "secret.py").find("unreadable"), std::string::npos);
    }
    ASSERT_GE(r.findings.size(), 2u);  // secret.py too when root reads it
    EXPECT_EQ(r.findings[0].location.path, "good.py");
    EXPECT_EQ(r.findings[1].location.path, "latin1.py");
    EXPECT_EQ(r.findings[0].fingerprint.size(), 16u);
}

TEST(Scanner, CacheReusesUnchangedFilesAndSeesEdits) {
    test::TempDir d;
    test::TempDir cache;
    d.write("a.py", "model.cuda()\n");
    d.write("b.py", "x = torch.zeros(3, dtype=torch.float64)\n");
    const auto catalogue = RuleCatalogue::load(test::rules_dir());
    const Scanner scanner(catalogue);
    ScanOptions o;
    o.cache_dir = cache.path();
    const auto cold = scanner.scan(d.path(), {d.path()}, o);
    EXPECT_EQ(cold.files_cached, 0u);
    const auto warm = scanner.scan(d.path(), {d.path()}, o);
    EXPECT_EQ(warm.files_cached, 2u);
    ASSERT_EQ(warm.findings.size(), cold.findings.size());
    for (std::size_t i = 0; i < warm.findings.size(); ++i) EXPECT_EQ(warm.findings[i].fingerprint, cold.findings[i].fingerprint);
    // Edit one file (content and size change): it is re-scanned, the other still comes from the cache.
    d.write("a.py", "model.cuda()\ny.cuda()\n");
    const auto edited = scanner.scan(d.path(), {d.path()}, o);
    EXPECT_EQ(edited.files_cached, 1u);
    EXPECT_EQ(edited.findings.size(), cold.findings.size() + 1);
}

// Config files are cached too: a config's findings depend on the Python files that name configs, so
// the cache reuses them only while the config and every such Python file are unchanged.
TEST(Scanner, ConfigOutcomesAreCachedUntilTheConfigOrAPythonReaderChanges) {
    test::TempDir d;
    test::TempDir cache;
    d.write("train.py", "import torch\nimport yaml\ncfg = yaml.safe_load(open(\"config.yml\"))\ndevice = torch.device(cfg[\"device\"])\n");
    d.write("config.yml", "device: cuda:0\n");
    d.write("unread.yml", "device: cuda:0\n");
    const auto catalogue = RuleCatalogue::load(test::rules_dir());
    const Scanner scanner(catalogue);
    ScanOptions o;
    o.cache_dir = cache.path();
    auto config_findings = [](const ScanResult& r) {
        std::size_t n = 0;
        for (const auto& f : r.findings) n += f.rule_id == "config-cuda-device" && f.location.path == "config.yml";
        return n;
    };
    const auto cold = scanner.scan(d.path(), {d.path()}, o);
    EXPECT_EQ(config_findings(cold), 1u);
    EXPECT_EQ(cold.files_scanned, 2u);  // unread.yml: named by no Python file, not counted
    const auto warm = scanner.scan(d.path(), {d.path()}, o);
    EXPECT_EQ(warm.files_cached, 2u);
    EXPECT_EQ(warm.files_scanned, 2u);
    EXPECT_EQ(config_findings(warm), 1u);
    // The reader no longer names the config: its finding goes, though the config did not change.
    d.write("train.py", "import torch\ndevice = torch.device(\"cpu\")\n");
    const auto unnamed = scanner.scan(d.path(), {d.path()}, o);
    EXPECT_EQ(config_findings(unnamed), 0u);
    EXPECT_EQ(unnamed.files_scanned, 1u);
    // Named again, then the config itself changes.
    d.write("train.py", "import torch\nimport yaml\ncfg = yaml.safe_load(open(\"config.yml\"))\ndevice = torch.device(cfg[\"device\"])\n");
    EXPECT_EQ(config_findings(scanner.scan(d.path(), {d.path()}, o)), 1u);
    d.write("config.yml", "device: cpu\nname: a longer file\n");
    EXPECT_EQ(config_findings(scanner.scan(d.path(), {d.path()}, o)), 0u);
}

// The target PyTorch decides what the op-support rules say: a cache written for one must not answer for another.
TEST(Scanner, CacheIsPerTargetTorch) {
    test::TempDir d;
    test::TempDir cache;
    d.write("pool.py", "import torch.nn.functional as F\n\ndef f(x):\n    return F.avg_pool3d(x, 2)\n");
    const auto catalogue = RuleCatalogue::load(test::rules_dir());
    ScanOptions o;
    o.cache_dir = cache.path();
    auto rules_of = [](const ScanResult& r) {
        std::vector<std::string> out;
        for (const auto& f : r.findings) out.push_back(f.rule_id);
        return out;
    };
    const auto newest = Scanner(catalogue).scan(d.path(), {d.path()}, o);
    EXPECT_TRUE(rules_of(newest).empty());
    const auto old = Scanner(catalogue, "2.6.0").scan(d.path(), {d.path()}, o);
    EXPECT_EQ(old.files_cached, 0u);
    EXPECT_EQ(rules_of(old), std::vector<std::string>{"mps-op-fallback-fixed-upstream"});
    ASSERT_EQ(old.findings[0].ops, (std::vector<std::string>{"aten::avg_pool3d", "aten::avg_pool3d_backward"}));
    const auto old_again = Scanner(catalogue, "2.6.0").scan(d.path(), {d.path()}, o);
    EXPECT_EQ(old_again.files_cached, 1u);
    EXPECT_EQ(old_again.findings[0].ops, old.findings[0].ops) << "the cache keeps the ops of a finding";
}

TEST(Scanner, FingerprintsSurviveLineMoves) {
    const auto catalogue = RuleCatalogue::load(test::rules_dir());
    const Scanner scanner(catalogue);
    test::TempDir d;
    d.write("t.py", "model.cuda()\n");
    const auto before = scanner.scan(d.path(), {d.path()}, ScanOptions{});
    d.write("t.py", "import os\n\n\nmodel.cuda()\n");
    const auto after = scanner.scan(d.path(), {d.path()}, ScanOptions{});
    ASSERT_EQ(before.findings.size(), 1u);
    ASSERT_EQ(after.findings.size(), 1u);
    EXPECT_EQ(before.findings[0].fingerprint, after.findings[0].fingerprint);
    EXPECT_NE(before.findings[0].location.line, after.findings[0].location.line);
}

// One rule on one line is one finding: `images.cuda(), labels.cuda()` is one edit of that line (a
// judged sample called the second finding a duplicate). The other matches are its related locations.
// Different rules on the line, and one op-support rule about two different ops, stay apart.
TEST(Scanner, OneRuleOnOneLineIsOneFinding) {
    const auto catalogue = RuleCatalogue::load(test::rules_dir());
    const Scanner scanner(catalogue);
    test::TempDir d;
    d.write("train.py", "import torch\n\n\ndef step(images, labels, idx):\n"
                        "    images, labels = images.cuda(non_blocking=True), labels.cuda()\n"
                        "    s = torch.softmax(images, 0); both = (torch.mode(s), s.take(idx))\n"
                        "    x = images.cuda(); torch.cuda.synchronize()\n"
                        "    return both, x\n\n\nif __name__ == '__main__':\n    step(torch.ones(2), torch.ones(2), torch.zeros(1))\n");
    const auto r = scanner.scan(d.path(), {d.path()}, ScanOptions{});
    auto at = [&](const std::string& rule, int line) {
        std::vector<const Finding*> out;
        for (const auto& f : r.findings)
            if (f.rule_id == rule && f.location.line == line) out.push_back(&f);
        return out;
    };
    const auto calls = at("cuda-method-call", 5);
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0]->location.col, 22);
    ASSERT_EQ(calls[0]->related.size(), 1u);
    EXPECT_EQ(calls[0]->related[0].location.line, 5);
    EXPECT_EQ(calls[0]->related[0].label, "also on this line: labels.cuda()");
    EXPECT_EQ(at("mps-op-fallback", 6).size(), 2u);  // aten::mode and aten::take: two ops, two findings
    // a match written over several lines is labelled on one
    d.write("multi.py", "import torch\n\n\ndef f(a, b):\n    return a.cuda(non_blocking=True), b.cuda(\n        non_blocking=True)\n");
    const auto m = scanner.scan(d.path(), {d.path()}, ScanOptions{});
    const Finding* multi = nullptr;
    for (const auto& f : m.findings)
        if (f.location.path == "multi.py" && f.rule_id == "cuda-method-call") multi = &f;
    ASSERT_NE(multi, nullptr);
    ASSERT_EQ(multi->related.size(), 1u);
    EXPECT_EQ(multi->related[0].label, "also on this line: b.cuda( non_blocking=True)");
    EXPECT_EQ(at("cuda-method-call", 7).size(), 1u);
    EXPECT_EQ(at("torch-cuda-synchronize", 7).size(), 1u);
    std::set<std::string> fingerprints;
    for (const auto& f : r.findings) fingerprints.insert(f.fingerprint);
    EXPECT_EQ(fingerprints.size(), r.findings.size());
}

using test::quote;

TEST(CommandLine, ExitCodesFollowFailOn) {
    test::TempDir d;
    d.write("t.py", "torch.backends.cudnn.benchmark = True\nmodel.cuda()\n");
    const std::string bin = MPSPORT_BINARY;
    const std::string common = " --no-cache --format json " + quote(d.path());
    EXPECT_EQ(test::run_command(bin + " scan" + common + " > /dev/null").exit_code, 1);
    EXPECT_EQ(test::run_command(bin + " scan --fail-on blocker" + common + " > /dev/null").exit_code, 0);
    EXPECT_EQ(test::run_command(bin + " scan --fail-on none" + common + " > /dev/null").exit_code, 0);
    EXPECT_EQ(test::run_command(bin + " scan --format nope " + quote(d.path()) + " 2>/dev/null").exit_code, 2);
    EXPECT_EQ(test::run_command(bin + " scan " + quote(d.path() / "missing") + " 2>/dev/null").exit_code, 2);
    EXPECT_EQ(test::run_command(bin + " scan --rules " + quote(d.path()) + " " + quote(d.path()) + " 2>/dev/null").exit_code, 2)
        << "a rules folder without rules is an error, never a clean pass";
}

TEST(CommandLine, JsonReportHasVersionedSchemaAndSkippedList) {
    test::TempDir d;
    d.write("t.py", "model.cuda()\n");
    d.write("bad.py", std::string("\0", 1));
    const auto r = test::run_command(std::string(MPSPORT_BINARY) + " scan --no-cache --format json --fail-on none " + quote(d.path()));
    ASSERT_EQ(r.exit_code, 0);
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_EQ(j["schema"], "mpsport.report/1");
    EXPECT_EQ(j["tool"]["name"], "mpsport");
    EXPECT_EQ(j["files_scanned"], 1);
    ASSERT_EQ(j["skipped"].size(), 1u);
    EXPECT_EQ(j["skipped"][0]["path"], "bad.py");
    ASSERT_EQ(j["findings"].size(), 1u);
    EXPECT_EQ(j["findings"][0]["rule"], "cuda-method-call");
    EXPECT_EQ(j["findings"][0]["location"]["line"], 1);
}

TEST(CommandLine, OutputFileAndSarif) {
    test::TempDir d;
    d.write("src/t.py", "import torch\n\n\ndef f(x):\n    return x.double()\n");
    const auto out = d.path() / "out.sarif";
    const auto r = test::run_command(std::string(MPSPORT_BINARY) + " scan --no-cache --format sarif --fail-on none -o " + quote(out) + " " +
                                     quote(d.path() / "src") + " 2>/dev/null");
    ASSERT_EQ(r.exit_code, 0);
    EXPECT_TRUE(r.output.empty());
    const auto j = nlohmann::json::parse(read_file(out));
    EXPECT_EQ(j["version"], "2.1.0");
    const auto& results = j["runs"][0]["results"];
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0]["ruleId"], "float64-dtype");
    EXPECT_EQ(results[0]["level"], "error");
    EXPECT_EQ(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 5);
    const int idx = results[0]["ruleIndex"];
    EXPECT_EQ(j["runs"][0]["tool"]["driver"]["rules"][idx]["id"], "float64-dtype");
}

TEST(CommandLine, CheckWithBaselineReportsOnlyNewFindings) {
    test::TempDir d;
    d.write("t.py", "model.cuda()\n");
    const std::string bin = MPSPORT_BINARY;
    const auto base = d.path() / "baseline.json";
    ASSERT_EQ(test::run_command(bin + " scan --no-cache --fail-on none --format json -o " + quote(base) + " " + quote(d.path()) + " 2>/dev/null")
                  .exit_code,
              0);
    const std::string in_repo = "cd " + quote(d.path()) + " && " + bin + " check --no-cache --format json --baseline " + quote(base) + " t.py";
    EXPECT_EQ(test::run_command(in_repo + " > /dev/null").exit_code, 0);
    d.write("t.py", "model.cuda()\nother.cuda()\n");
    const auto r = test::run_command(in_repo);
    EXPECT_EQ(r.exit_code, 1);
    const auto j = nlohmann::json::parse(r.output);
    ASSERT_EQ(j["findings"].size(), 1u);
    EXPECT_EQ(j["findings"][0]["location"]["line"], 2);
}

// A full scan of an unchanged repository with a cache gives the last full scan's result (the memo)
// and prints the report it kept; any change to what the scan reads is seen.
TEST(ScanMemo, AnUnchangedRepositoryGetsTheSameReportAndEveryChangeIsSeen) {
    test::TempDir d;
    test::TempDir cache;
    const fs::path repo = d.path() / "repos";
    // Python, configs, checkpoints, a native module, guards, tooling: every part of a result.
    fs::create_directories(repo);
    for (const char* name : {"clean-mlp", "light-lockin", "model-zoo", "required-ext", "config-zoo", "segkit-weights", "tests-heavy"})
        fs::copy(test::source_dir() / "corpus" / name, repo / name, fs::copy_options::recursive);
    const std::string bin = MPSPORT_BINARY;
    // `files_cached` is the one line a scan from the cache changes.
    const auto scan = [&](const std::string& options) {
        auto r = test::run_command(bin + " scan --format json --fail-on major " + options + " " + quote(repo) + " 2>" +
                                   quote(d.path() / "stderr"));
        r.output = std::regex_replace(r.output, std::regex("\"files_cached\": [0-9]+"), "\"files_cached\": N");
        return r;
    };
    const auto from_memo_phase = [&] { return std::regex_search(read_file(d.path() / "stderr"), std::regex("mpsport: memo +[0-9]")); };
    const std::string cached = "--timings --cache-dir " + quote(cache.path());
    const auto fresh = scan("--no-cache");
    ASSERT_EQ(fresh.exit_code, 1) << "the corpus has major findings";
    EXPECT_TRUE(scan(cached).output == fresh.output);  // cold: fills the cache and the memo
    EXPECT_FALSE(from_memo_phase());
    const auto from_memo = scan(cached);  // the result from the memo, rendered and kept
    EXPECT_TRUE(from_memo_phase());
    EXPECT_TRUE(from_memo.output == fresh.output);
    const auto kept = scan(cached);  // the kept report
    EXPECT_TRUE(from_memo_phase());
    EXPECT_TRUE(kept.output == fresh.output);
    EXPECT_EQ(kept.exit_code, 1) << "--fail-on reads the kept report's worst severity";
    const fs::path written = d.path() / "written.json";
    EXPECT_EQ(scan(cached + " -o " + quote(written)).exit_code, 1);
    EXPECT_TRUE(std::regex_replace(read_file(written), std::regex("\"files_cached\": [0-9]+"), "\"files_cached\": N") == fresh.output)
        << "-o writes the kept report";
    const auto md = scan(cached + " --format md");
    EXPECT_TRUE(md.output == scan("--no-cache --format md").output) << "another format is rendered, not the kept JSON";
    // The text report prints the scan's own time: never kept, so never stale.
    const auto kept_reports = [&] {
        int n = 0;
        for (const auto& e : fs::directory_iterator(cache.path())) n += e.path().filename().string().rfind("scan-report-", 0) == 0;
        return n;
    };
    const int before_text = kept_reports();
    scan(cached + " --format text");
    scan(cached + " --format text");
    EXPECT_EQ(kept_reports(), before_text);

    // Each change is seen on the next scan, whatever was kept.
    std::string before = fresh.output;
    const auto changed = [&](const char* what) {
        const auto after = scan(cached);
        EXPECT_TRUE(after.output == scan("--no-cache").output) << what;
        EXPECT_TRUE(after.output != before) << what;
        before = after.output;
        EXPECT_TRUE(scan(cached).output == before) << what << ", then nothing";
    };
    std::ofstream(repo / "clean-mlp" / "train.py", std::ios::app) << "\nextra = torch.zeros(3).cuda()\n";
    changed("an edited file");
    fs::remove(repo / "light-lockin" / "train.py");
    changed("a removed file");
    // An ignored .mpsport.toml is not walked, but the program model reads it: it is an input too.
    std::ofstream(repo / ".gitignore") << ".mpsport.toml\n";
    EXPECT_TRUE(scan(cached).output == before);
    std::ofstream(repo / ".mpsport.toml") << "tooling_dirs = [\"model-zoo\", \"required-ext\"]\n";
    changed("a new .mpsport.toml that the walk ignores");

    // A kept report, a memo or a cache with a flipped byte (in a string: the structure still holds),
    // or cut short, is ignored.
    const auto damage = [&](const char* prefix, bool cut) {
        for (const auto& e : fs::directory_iterator(cache.path())) {
            if (e.path().filename().string().rfind(prefix, 0) != 0) continue;
            if (cut) {
                fs::resize_file(e.path(), fs::file_size(e.path()) / 2);
                continue;
            }
            std::string bytes = read_file(e.path());
            const std::size_t at = bytes.rfind("cuda");
            ASSERT_NE(at, std::string::npos);
            bytes[at] = 'k';
            std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << bytes;
        }
    };
    const std::string truth = scan("--no-cache").output;
    EXPECT_TRUE(scan(cached).output == truth);  // the memo, rendered and kept
    damage("scan-report-", false);
    EXPECT_TRUE(scan(cached).output == truth) << "a damaged kept report";
    damage("scan-report-", true);
    damage("scan-result-", false);
    EXPECT_TRUE(scan(cached).output == truth) << "a damaged memo";
    damage("scan-report-", true);
    damage("scan-result-", true);
    damage("scan-cache-", false);
    EXPECT_TRUE(scan(cached).output == truth) << "a cut memo and a damaged cache";
}

// The kept report of an unchanged repository is printed before any rule is loaded (`--timings`
// has no "rules" phase then), keyed on the rules folder's bytes: an edited rule makes a new report,
// and a broken one fails the scan, naming the file, whatever the cache kept.
TEST(ScanMemo, AKeptReportNeedsNoRulesAndEveryRuleChangeIsSeen) {
    test::TempDir d;
    test::TempDir cache;
    const fs::path repo = d.path() / "repo";
    fs::copy(test::source_dir() / "corpus" / "light-lockin", repo, fs::copy_options::recursive);
    const fs::path rules = d.path() / "rules";
    fs::copy(test::source_dir() / "rules", rules, fs::copy_options::recursive);
    const std::string bin = MPSPORT_BINARY;
    const auto scan = [&](bool cached) {
        auto r = test::run_command(bin + " scan --format json --fail-on none --timings --rules " + quote(rules) + " " +
                                   (cached ? "--cache-dir " + quote(cache.path()) : std::string("--no-cache")) + " " + quote(repo) +
                                   " 2>" + quote(d.path() / "stderr"));
        r.output = std::regex_replace(r.output, std::regex("\"files_cached\": [0-9]+"), "\"files_cached\": 0");
        return r;
    };
    const auto rules_loaded = [&] { return read_file(d.path() / "stderr").find("mpsport: rules ") != std::string::npos; };
    const auto fresh = scan(false);
    ASSERT_EQ(fresh.exit_code, 0);
    EXPECT_TRUE(scan(true).output == fresh.output);  // cold
    EXPECT_TRUE(rules_loaded());
    EXPECT_TRUE(scan(true).output == fresh.output);  // the memo, rendered and kept
    EXPECT_TRUE(rules_loaded());
    EXPECT_TRUE(scan(true).output == fresh.output);  // the kept report
    EXPECT_FALSE(rules_loaded()) << read_file(d.path() / "stderr");

    // An edited rule: the first finding's rule, made a blocker.
    const auto findings = nlohmann::json::parse(fresh.output)["findings"];
    ASSERT_FALSE(findings.empty());
    const std::string id = findings[0]["rule"];
    fs::path rule_file;
    for (const auto& e : fs::recursive_directory_iterator(rules))
        if (e.path().filename() == id + ".yaml") rule_file = e.path();
    ASSERT_FALSE(rule_file.empty()) << id;
    const std::string text = read_file(rule_file);
    const std::string edited = std::regex_replace(text, std::regex("\nseverity: [a-z]+\n"), "\nseverity: blocker\n");
    ASSERT_NE(edited, text);
    std::ofstream(rule_file, std::ios::trunc) << edited;
    const auto after_edit = scan(true);
    EXPECT_TRUE(rules_loaded());
    EXPECT_TRUE(after_edit.output == scan(false).output);
    EXPECT_TRUE(after_edit.output != fresh.output);
    const auto severities = [&](const std::string& report) {
        std::vector<std::string> out;
        const auto j = nlohmann::json::parse(report);
        for (const auto& f : j["findings"])
            if (f["rule"] == id) out.push_back(f["severity"]);
        return out;
    };
    EXPECT_NE(severities(after_edit.output), severities(fresh.output));
    scan(true);
    EXPECT_TRUE(scan(true).output == after_edit.output);
    EXPECT_FALSE(rules_loaded());

    // A broken rule, then the rule as it was: the kept report of the first rules is never served for
    // the broken ones.
    std::ofstream(rule_file, std::ios::trunc) << text << "\n  : [unclosed\n";
    const auto broken = scan(true);
    EXPECT_EQ(broken.exit_code, 2);
    EXPECT_NE(read_file(d.path() / "stderr").find(id + ".yaml"), std::string::npos) << read_file(d.path() / "stderr");
    std::ofstream(rule_file, std::ios::trunc) << text;
    EXPECT_TRUE(scan(true).output == fresh.output);
    EXPECT_FALSE(rules_loaded()) << "the first rules' report is still kept";
}

// What a warm scan keys its memo on before loading the rules is what loading them gives.
TEST(RuleCatalogue, DigestOfTheFilesIsTheLoadedCataloguesDigest) {
    const fs::path rules = test::source_dir() / "rules";
    EXPECT_EQ(RuleCatalogue::digest_of(rules), RuleCatalogue::load(rules).digest());
    test::TempDir d;
    fs::copy(rules, d.path() / "rules", fs::copy_options::recursive);
    std::ofstream(d.path() / "rules" / "device" / "cuda-amp-api.yaml", std::ios::app) << "# a comment changes the bytes\n";
    EXPECT_EQ(RuleCatalogue::digest_of(d.path() / "rules"), RuleCatalogue::load(d.path() / "rules").digest());
    EXPECT_NE(RuleCatalogue::digest_of(d.path() / "rules"), RuleCatalogue::digest_of(rules));
    EXPECT_THROW(RuleCatalogue::digest_of(d.path() / "nowhere"), RuleError);
}

// The rules cache (RuleCatalogue::load_cached) serves what loading the YAML gives, and only while
// the rule files, the schemas and the build are those it was made from.
std::vector<fs::path> rules_cache_files(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".cbor") out.push_back(it->path());
    return out;
}

void expect_same_catalogue(const RuleCatalogue& a, const RuleCatalogue& b) {
    ASSERT_EQ(a.rules().size(), b.rules().size());
    for (std::size_t i = 0; i < a.rules().size(); ++i) {
        const Rule& x = a.rules()[i];
        const Rule& y = b.rules()[i];
        EXPECT_EQ(x.id, y.id);
        EXPECT_EQ(x.engine, y.engine);
        EXPECT_EQ(x.severity, y.severity) << x.id;
        EXPECT_EQ(x.impact, y.impact) << x.id;
        EXPECT_EQ(x.effort.high, y.effort.high) << x.id;
        EXPECT_EQ(x.effort.cap_high, y.effort.cap_high) << x.id;
        EXPECT_EQ(x.message, y.message) << x.id;
        EXPECT_EQ(x.docs.why, y.docs.why) << x.id;
        EXPECT_EQ(x.triggers, y.triggers) << x.id;
        EXPECT_EQ(x.query, y.query) << x.id;
        EXPECT_EQ(x.matchers, y.matchers) << x.id;
        EXPECT_EQ(x.line_pattern, y.line_pattern) << x.id;
        EXPECT_EQ(x.line_skip_comments, y.line_skip_comments) << x.id;
        EXPECT_EQ(x.params, y.params) << x.id;
        EXPECT_EQ(x.source, y.source) << x.id;
    }
    ASSERT_EQ(a.packages().size(), b.packages().size());
    for (std::size_t i = 0; i < a.packages().size(); ++i) {
        EXPECT_EQ(a.packages()[i].import_name, b.packages()[i].import_name);
        EXPECT_EQ(a.packages()[i].distributions, b.packages()[i].distributions);
        EXPECT_EQ(a.packages()[i].mps, b.packages()[i].mps);
        EXPECT_EQ(a.packages()[i].impact, b.packages()[i].impact);
        EXPECT_EQ(a.packages()[i].effort_high, b.packages()[i].effort_high);
    }
    const ProgramVocabulary& p = a.program();
    const ProgramVocabulary& q = b.program();
    EXPECT_EQ(p.guards.device_calls, q.guards.device_calls);
    EXPECT_EQ(p.guards.training_methods, q.guards.training_methods);
    EXPECT_EQ(p.tooling_dirs, q.tooling_dirs);
    ASSERT_EQ(p.guard_weights.size(), q.guard_weights.size());
    for (const auto& [kind, w] : p.guard_weights) {
        ASSERT_TRUE(q.guard_weights.count(kind));
        EXPECT_EQ(w.severity_drop, q.guard_weights.at(kind).severity_drop);
        EXPECT_EQ(w.max_severity, q.guard_weights.at(kind).max_severity);
        EXPECT_EQ(w.impact_cap, q.guard_weights.at(kind).impact_cap);
        EXPECT_EQ(w.why, q.guard_weights.at(kind).why);
    }
    EXPECT_EQ(p.reach_weights_for.size(), q.reach_weights_for.size());
    ASSERT_EQ(p.readers.checkpoint_loads.size(), q.readers.checkpoint_loads.size());
    for (std::size_t i = 0; i < p.readers.checkpoint_loads.size(); ++i) {
        EXPECT_EQ(p.readers.checkpoint_loads[i].call, q.readers.checkpoint_loads[i].call);
        EXPECT_EQ(p.readers.checkpoint_loads[i].remap_position, q.readers.checkpoint_loads[i].remap_position);
        EXPECT_EQ(p.readers.checkpoint_loads[i].on_cpu, q.readers.checkpoint_loads[i].on_cpu);
    }
    EXPECT_EQ(p.kernel_detail.has_value(), q.kernel_detail.has_value());
    EXPECT_EQ(p.file_kind_weights.size(), q.file_kind_weights.size());
    EXPECT_EQ(a.digest(), b.digest());
    EXPECT_EQ(a.root(), b.root());
}

TEST(RuleCatalogueCache, ServesTheLoadedRulesUntilARuleFileOrSchemaChanges) {
    test::TempDir d;
    const fs::path rules = d.path() / "rules";
    const fs::path cache = d.path() / "cache";
    fs::copy(test::source_dir() / "rules", rules, fs::copy_options::recursive);
    const RuleCatalogue loaded = RuleCatalogue::load(rules);

    const RuleCatalogue first = RuleCatalogue::load_cached(rules, cache);
    EXPECT_FALSE(first.from_cache());
    ASSERT_EQ(rules_cache_files(cache).size(), 1u);
    const RuleCatalogue second = RuleCatalogue::load_cached(rules, cache);
    EXPECT_TRUE(second.from_cache());
    expect_same_catalogue(loaded, second);

    // A comment in a rule file: loaded again, and the new digest kept.
    std::ofstream(rules / "device" / "cuda-amp-api.yaml", std::ios::app) << "# a comment changes the bytes\n";
    const RuleCatalogue edited = RuleCatalogue::load_cached(rules, cache);
    EXPECT_FALSE(edited.from_cache());
    EXPECT_NE(edited.digest(), loaded.digest());
    EXPECT_EQ(edited.digest(), RuleCatalogue::digest_of(rules));
    EXPECT_TRUE(RuleCatalogue::load_cached(rules, cache).from_cache());
    // A schema is no rule file, and still decides what loads.
    std::ofstream(rules / "rule.schema.json", std::ios::app) << "\n";
    EXPECT_FALSE(RuleCatalogue::load_cached(rules, cache).from_cache());
    EXPECT_TRUE(RuleCatalogue::load_cached(rules, cache).from_cache());
    EXPECT_EQ(rules_cache_files(cache).size(), 1u) << "one file per rules folder and build";

    // A broken rule fails as it does without the cache, naming its file.
    const std::string text = read_file(rules / "device" / "cuda-amp-api.yaml");
    std::ofstream(rules / "device" / "cuda-amp-api.yaml", std::ios::trunc) << text << "\n  : [unclosed\n";
    try {
        RuleCatalogue::load_cached(rules, cache);
        ADD_FAILURE() << "a broken rule file loaded from the cache";
    } catch (const RuleError& e) {
        EXPECT_NE(std::string(e.what()).find("cuda-amp-api.yaml"), std::string::npos) << e.what();
    }
    std::ofstream(rules / "device" / "cuda-amp-api.yaml", std::ios::trunc) << text;
    EXPECT_TRUE(RuleCatalogue::load_cached(rules, cache).from_cache());
}

TEST(RuleCatalogueCache, ADamagedOrUnwritableCacheOnlyCostsTime) {
    test::TempDir d;
    const fs::path rules = test::source_dir() / "rules";
    const fs::path cache = d.path() / "cache";
    const RuleCatalogue loaded = RuleCatalogue::load(rules);
    RuleCatalogue::load_cached(rules, cache);
    ASSERT_EQ(rules_cache_files(cache).size(), 1u);
    const fs::path file = rules_cache_files(cache).front();
    std::string bytes = read_file(file);
    const std::string good = bytes;
    // One byte of the payload flipped, then the file cut short, then emptied: each is a miss.
    for (int damage = 0; damage < 3; ++damage) {
        std::string bad = good;
        if (damage == 0) bad[bad.size() - 100] = static_cast<char>(bad[bad.size() - 100] ^ 0x20);
        if (damage == 1) bad.resize(bad.size() / 2);
        if (damage == 2) bad.clear();
        std::ofstream(file, std::ios::binary | std::ios::trunc) << bad;
        const RuleCatalogue again = RuleCatalogue::load_cached(rules, cache);
        EXPECT_FALSE(again.from_cache()) << damage;
        expect_same_catalogue(loaded, again);
        EXPECT_EQ(read_file(file), good) << "written again";
        EXPECT_TRUE(RuleCatalogue::load_cached(rules, cache).from_cache()) << damage;
    }
    // A file where the cache folder should be: the rules load, nothing is written.
    std::ofstream(d.path() / "not-a-folder") << "x";
    const RuleCatalogue unwritable = RuleCatalogue::load_cached(rules, d.path() / "not-a-folder");
    EXPECT_FALSE(unwritable.from_cache());
    expect_same_catalogue(loaded, unwritable);
    // The folder keeps the newest eight files of its rules folders.
    for (int i = 0; i < 10; ++i) {
        const fs::path copy = d.path() / ("rules" + std::to_string(i));
        fs::copy(rules, copy, fs::copy_options::recursive);
        RuleCatalogue::load_cached(copy, cache);
        EXPECT_LE(rules_cache_files(cache).size(), 8u);
    }
    EXPECT_EQ(rules_cache_files(cache).size(), 8u);
}

// A scan with the rules from the cache reports what a scan with the rules from the YAML reports.
TEST(RuleCatalogueCache, CorpusReportsAreTheSameWithTheCachedRules) {
    test::TempDir d;
    const std::string bin = MPSPORT_BINARY;
    const std::string corpus = quote((test::source_dir() / "corpus").string());
    const std::string cache = quote((d.path() / "cache").string());
    const std::string scan = " report --no-cache --format json --fail-on none " + corpus;
    const auto without = test::run_command("MPSPORT_RULES_CACHE=off " + bin + scan + " 2>/dev/null");
    ASSERT_EQ(without.exit_code, 0);
    EXPECT_TRUE(rules_cache_files(d.path() / "cache").empty());
    const auto filling = test::run_command("MPSPORT_RULES_CACHE=" + cache + " " + bin + scan + " --timings 2>" + quote((d.path() / "t1").string()));
    const auto cached = test::run_command("MPSPORT_RULES_CACHE=" + cache + " " + bin + scan + " --timings 2>" + quote((d.path() / "t2").string()));
    EXPECT_EQ(rules_cache_files(d.path() / "cache").size(), 1u);
    EXPECT_EQ(read_file(d.path() / "t1").find("rules (cached)"), std::string::npos);
    EXPECT_NE(read_file(d.path() / "t2").find("rules (cached)"), std::string::npos) << read_file(d.path() / "t2");
    EXPECT_TRUE(filling.output == without.output);
    EXPECT_TRUE(cached.output == without.output);
    EXPECT_GT(cached.output.size(), 1000u);
}

TEST(CommandLine, RulesListsAndExplains) {
    const std::string bin = MPSPORT_BINARY;
    const auto list = test::run_command(bin + " rules");
    EXPECT_EQ(list.exit_code, 0);
    EXPECT_NE(list.output.find("hardcoded-cuda-device"), std::string::npos);
    const auto one = test::run_command(bin + " rules float64-dtype");
    EXPECT_EQ(one.exit_code, 0);
    EXPECT_NE(one.output.find("## Why is this bad?"), std::string::npos);
    EXPECT_NE(one.output.find("Metal has no 64-bit"), std::string::npos);
    EXPECT_EQ(test::run_command(bin + " rules no-such-rule 2>/dev/null").exit_code, 2);
}

}  // namespace

namespace {
TEST(WriteFileAtomically, ReplacesFilesButWritesThroughDevices) {
    test::TempDir d;
    const auto f = d.path() / "sub" / "report.json";
    write_file_atomically(f, "one");
    write_file_atomically(f, "two");
    EXPECT_EQ(read_file(f), "two");
    for (const auto& e : fs::directory_iterator(f.parent_path())) EXPECT_EQ(e.path().filename(), "report.json");
    write_file_atomically("/dev/null", "discarded");
    EXPECT_TRUE(fs::is_character_file("/dev/null")) << "/dev/null must stay a device";
}
}  // namespace

namespace {
TEST(ScanCacheFile, CorruptOrForeignCacheLoadsEmpty) {
    test::TempDir d;
    d.write("scan-cache-" + hex64(42) + ".bin", "garbage that is not a cache");
    EXPECT_EQ(ScanCache::load(d.path(), 42).size(), 0u);
    ScanCache c(42);
    ScanCache::Entry e;
    e.size = 3;
    e.outcome.lines = 7;
    Finding f;
    f.rule_id = "cuda-method-call";
    f.location = {"a.py", 2, 3, 2, 9, 4};
    f.note = "n";
    e.outcome.findings.push_back(f);
    c.put("a.py", e);
    c.save(d.path());
    const auto back = ScanCache::load(d.path(), 42);
    ASSERT_NE(back.find("a.py"), nullptr);
    EXPECT_EQ(back.find("a.py")->outcome.findings.at(0).location.cell, 4);
    EXPECT_EQ(back.find("a.py")->outcome.findings.at(0).note, "n");
    EXPECT_EQ(ScanCache::load(d.path(), 43).size(), 0u) << "another rules digest or version: cold";
}
}  // namespace

namespace {

// A message is one line even when what it quotes spans several (apex's setup.py nvcc lists).
TEST(Messages, MultiLineCapturesAreFoldedOntoOneLine) {
    const std::string flags = "[\n                    \"-O3\",\n                    \"--use_fast_math\",\n                ]";
    EXPECT_EQ(mpsport::expand_message("nvcc flags {finding}: only CUDA", {{"finding", flags}}),
              "nvcc flags [\"-O3\", \"--use_fast_math\",]: only CUDA");
    EXPECT_EQ(mpsport::expand_message("`{finding}`", {{"finding", "CUDAExtension(\n    \"ops\",\n    [\"a.cu\"]\n)"}}),
              "`CUDAExtension(\"ops\", [\"a.cu\"])`");
    EXPECT_EQ(mpsport::expand_message("{a} and {b}", {{"a", "x  y"}}), "x  y and {b}") << "single-line text and unknown names are kept";
}

}  // namespace
