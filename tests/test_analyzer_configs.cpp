// Run configs as the code reads them: which files Python names, which keys it reads, and findings
// linked to the consuming Python site. A config no code names is never read.
#include <gtest/gtest.h>

#include "analyzer/configs/config_facts.hpp"
#include "analyzer/scanner.hpp"
#include "test_support.hpp"

using namespace mpsport;
using namespace mpsport::configs;

namespace {

std::vector<Finding> findings_in(const ScanResult& r, const std::string& path) {
    std::vector<Finding> out;
    for (const auto& f : r.findings)
        if (f.location.path == path) out.push_back(f);
    return out;
}

ScanResult scan_dir(const test::TempDir& d) {
    ScanOptions o;
    o.jobs = 2;
    return test::bundled_scanner().scan(d.path(), {d.path()}, o);
}

}  // namespace

TEST(ConfigFacts, FilesFoldersAndKeyReads) {
    const auto f = python_config_facts(
        "# open('ignored.yaml') in a comment\n"
        "cfg = yaml.safe_load(open('configs/base.yaml'))\n"
        "exp = OmegaConf.load(f\"configs/{name}.yml\")\n"
        "@hydra.main(config_path=\"conf\", config_name=\"config\")\n"
        "d = cfg['device']; b = cfg.get(\"backend\", 'gloo'); p = cfg.trainer.precision; x = other.device\n",
        {"device", "backend", "precision"});
    EXPECT_EQ(f.files, (std::vector<std::string>{"configs/base.yaml", "configs/{name}.yml"}));
    EXPECT_EQ(f.directories, (std::vector<std::string>{"conf"}));
    std::vector<std::string> reads;
    for (const auto& r : f.reads) reads.push_back(r.key + "@" + std::to_string(r.line) + ":" + r.text);
    EXPECT_EQ(reads, (std::vector<std::string>{"device@5:cfg['device']", "backend@5:cfg.get(\"backend\"", "precision@5:cfg.trainer.precision"}));
    EXPECT_TRUE(refers_to(f, "train.py", "configs/base.yaml"));
    EXPECT_TRUE(refers_to(f, "train.py", "configs/exp1.yml"));
    EXPECT_FALSE(refers_to(f, "train.py", "configs/sub/exp1.yml"));  // an f-string hole is one segment
    EXPECT_TRUE(refers_to(f, "tools/train.py", "tools/conf/db/mysql.yaml"));
    EXPECT_FALSE(refers_to(f, "train.py", "ignored.yaml"));
    EXPECT_FALSE(refers_to(python_config_facts("p = root / f\"{split}.json\"\n", {}), "data.py", "any/file.json"));
}

TEST(Configs, JsonConfigWithConsumerSiteInTheMessage) {
    test::TempDir d;
    d.write("experiments/run.json", "{\"model\": {\"dtype\": \"float64\"}, \"device\": \"cuda:1\", \"dist\": {\"backend\": \"nccl\"}}\n");
    d.write("unused/other.json", "{\"device\": \"cuda\"}\n");
    d.write("train.py", "import json\ncfg = json.load(open('experiments/run.json'))\nmodel = build(cfg['model'])\n"
                        "dev = torch.device(cfg.get('device', 'cpu'))\n");
    const ScanResult r = scan_dir(d);
    const auto got = findings_in(r, "experiments/run.json");
    ASSERT_EQ(got.size(), 3u);
    std::map<std::string, std::string> by_rule;
    for (const auto& f : got) by_rule[f.rule_id] = f.message;
    EXPECT_NE(by_rule["config-cuda-device"].find("read at train.py:4 (`cfg.get('device'`)"), std::string::npos) << by_rule["config-cuda-device"];
    EXPECT_NE(by_rule["config-float64-dtype"].find("`model.dtype: float64`"), std::string::npos) << by_rule["config-float64-dtype"];
    EXPECT_NE(by_rule["config-nccl-backend"].find("no read of `backend` found"), std::string::npos) << by_rule["config-nccl-backend"];
    for (const auto& f : got) {
        if (f.rule_id != "config-cuda-device") continue;
        ASSERT_EQ(f.related.size(), 1u);
        EXPECT_EQ(f.related[0].location.path, "train.py");
        EXPECT_EQ(f.related[0].location.line, 4);
    }
    EXPECT_TRUE(findings_in(r, "unused/other.json").empty());
    for (const auto& s : r.skipped) EXPECT_NE(s.path, "unused/other.json");
}

TEST(Configs, MalformedLoadedConfigIsSkippedUnloadedOneIsNotRead) {
    test::TempDir d;
    d.write("conf/broken.yaml", "device: cuda\n\tbackend: nccl\n");
    d.write("conf/broken.toml", "device = \n");
    d.write("notes/also-broken.yaml", "a: [\n");
    d.write("train.py", "cfg = load('conf/broken.yaml'); s = load('conf/broken.toml')\n");
    const ScanResult r = scan_dir(d);
    std::map<std::string, std::string> skipped;
    for (const auto& s : r.skipped) skipped[s.path] = s.reason;
    EXPECT_NE(skipped["conf/broken.yaml"].find("invalid YAML/JSON at line 2"), std::string::npos) << skipped["conf/broken.yaml"];
    EXPECT_NE(skipped["conf/broken.toml"].find("invalid TOML at line 1"), std::string::npos) << skipped["conf/broken.toml"];
    EXPECT_EQ(skipped.count("notes/also-broken.yaml"), 0u);
}
