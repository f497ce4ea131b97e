// Run configs as the code reads them: which files Python names, which keys it reads, and findings
// linked to the consuming Python site. A config no code names is never read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "analyzer/configs/config_facts.hpp"
#include "analyzer/configs/hydra.hpp"
#include "analyzer/scanner.hpp"
#include "core/paths.hpp"
#include "core/rule_catalogue.hpp"
#include "test_support.hpp"

using namespace mpsport;
using namespace mpsport::configs;
namespace fs = std::filesystem;

namespace {

std::vector<Finding> findings_in(const ScanResult& r, const std::string& path) {
    std::vector<Finding> out;
    for (const auto& f : r.findings)
        if (f.location.path == path) out.push_back(f);
    return out;
}

// A script that loads the config its --config argument names (argparse; no path of its own) and
// reads `read` of it on line 8.
std::string argparse_reader(const std::string& read) {
    return "import argparse\nimport yaml\n\np = argparse.ArgumentParser()\np.add_argument('--config')\n"
           "args = p.parse_args()\ncfg = yaml.safe_load(open(args.config))\ndevice = " + read + "\n";
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
        "d = cfg['device']; b = cfg.get(\"backend\", 'gloo'); p = cfg.trainer.precision; x = other.device\n"
        // a runner keeps its config in an attribute (MiniGPT-4's self.config.run_cfg.device); a model's does not name one
        "r = self.config.run_cfg.device; m = self.model.device\n",
        {"device", "backend", "precision"}, test::bundled_catalogue().program().readers);
    std::vector<std::string> files, dirs;
    for (const auto& p : f.files) files.push_back(p.path + "@" + std::to_string(p.line));
    for (const auto& p : f.directories) dirs.push_back(p.path + "@" + std::to_string(p.line));
    EXPECT_EQ(files, (std::vector<std::string>{"configs/base.yaml@2", "configs/{name}.yml@3"}));
    EXPECT_EQ(dirs, (std::vector<std::string>{"conf@4"}));
    std::vector<std::string> reads;
    for (const auto& r : f.reads) reads.push_back(r.key + "@" + std::to_string(r.line) + ":" + r.text);
    EXPECT_EQ(reads, (std::vector<std::string>{"device@5:cfg['device']", "backend@5:cfg.get(\"backend\"", "precision@5:cfg.trainer.precision",
                                               "device@6:self.config.run_cfg.device"}));
    EXPECT_EQ(refers_to(f, "train.py", "configs/base.yaml"), 2);
    EXPECT_EQ(refers_to(f, "train.py", "configs/exp1.yml"), 3);
    EXPECT_FALSE(refers_to(f, "train.py", "configs/sub/exp1.yml").has_value());  // an f-string hole is one segment
    EXPECT_EQ(refers_to(f, "tools/train.py", "tools/conf/db/mysql.yaml"), 4);
    EXPECT_FALSE(refers_to(f, "train.py", "ignored.yaml").has_value());
    EXPECT_FALSE(refers_to(python_config_facts("p = root / f\"{split}.json\"\n", {}, test::bundled_catalogue().program().readers),
                           "data.py", "any/file.json")
                     .has_value());
}

// The per-scan index of config names gives, file by file, what refers_to() gives: a plain name,
// an f-string hole, a glob, a Hydra folder, the first of several literals, and no match.
TEST(Configs, NamedFilesIndexAgreesWithRefersTo) {
    const auto& vocabulary = test::bundled_catalogue().program().readers;
    const std::vector<std::string> paths = {"train.py", "tools/sweep.py", "eval.py"};
    const std::vector<PythonConfigFacts> facts = {
        python_config_facts("a = open('configs/base.yaml')\nb = f\"configs/{name}.yml\"\nc = open('base.yaml')\n", {}, vocabulary),
        python_config_facts("import glob\nfor p in glob.glob('configs/sweeps/*.yaml'):\n    run(p)\n"
                            "@hydra.main(config_path=\"conf\", config_name=\"config\")\ndef main(cfg): pass\n",
                            {}, vocabulary),
        python_config_facts("x = 1\n", {}, vocabulary)};
    std::vector<PythonFile> files;
    for (std::size_t i = 0; i < paths.size(); ++i) files.push_back({&paths[i], &facts[i]});
    const NamedFiles index(files);
    for (const std::string config : {"configs/base.yaml", "base.yaml", "configs/exp1.yml", "configs/sub/exp1.yml", "configs/sweeps/lr.yaml",
                                     "tools/conf/db/mysql.yaml", "other/base.yaml", "nothing.json"}) {
        std::vector<std::pair<std::size_t, int>> expected;
        for (std::size_t i = 0; i < paths.size(); ++i)
            if (auto line = refers_to(facts[i], paths[i], config)) expected.emplace_back(i, *line);
        EXPECT_EQ(index.readers(config), expected) << config;
    }
    EXPECT_EQ(index.readers("configs/base.yaml"), (std::vector<std::pair<std::size_t, int>>{{0, 1}}));  // the first literal naming it
    EXPECT_EQ(index.readers("configs/sweeps/lr.yaml"), (std::vector<std::pair<std::size_t, int>>{{1, 2}}));
    EXPECT_EQ(index.readers("tools/conf/db/mysql.yaml"), (std::vector<std::pair<std::size_t, int>>{{1, 4}}));
    EXPECT_TRUE(index.readers("nothing.json").empty());
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
        // the site that reads the key, then the reader that loads the file
        ASSERT_EQ(f.related.size(), 2u);
        EXPECT_EQ(f.related[0].location.path, "train.py");
        EXPECT_EQ(f.related[0].location.line, 4);
        EXPECT_EQ(f.related[1].location.line, 2);
        EXPECT_EQ(f.related[1].label, "names experiments/run.json");
    }
    EXPECT_TRUE(findings_in(r, "unused/other.json").empty());
    for (const auto& s : r.skipped) EXPECT_NE(s.path, "unused/other.json");
}

TEST(Configs, DeviceKeyNoCodeReadsIsMinor) {
    // StyleTTS2's config_ft.yml sets `device: "cuda"`, which train_finetune.py never reads (it hard-codes
    // its own): the rule's major is for a device the code takes from its config.
    for (const bool reads : {false, true}) {
        test::TempDir d;
        d.write("Configs/config_ft.yml", "log_dir: Models/LJ\ndevice: cuda\nepochs: 50\n");
        d.write("train_finetune.py", std::string("import yaml\nconfig = yaml.safe_load(open('Configs/config_ft.yml'))\nlog_dir = config['log_dir']\n") +
                                         (reads ? "device = torch.device(config['device'])\n" : "device = 'cuda'\n"));
        const ScanResult r = scan_dir(d);
        const auto got = findings_in(r, "Configs/config_ft.yml");
        ASSERT_EQ(got.size(), 1u) << reads;
        EXPECT_EQ(got[0].severity, reads ? Severity::major : Severity::minor) << reads;
        EXPECT_EQ(got[0].note.find("no Python site reads `device`") != std::string::npos, !reads) << got[0].note;
    }
}

TEST(Configs, ANestedKeyReadElsewhereMustNameTheKeyAboveIt) {
    // EDVR: `dist_params: {backend: nccl}` goes to init_dist whole (**opt['dist_params']); the
    // `args.backend` of a metrics script is a dataset's IO backend, not this key. A file that does
    // write the key above the leaf still reads it.
    for (const bool named_in_full : {false, true}) {
        test::TempDir d;
        d.write("options/train/edsr.yml", "name: edsr\ndist_params:\n  backend: nccl\n  port: 29500\n");
        d.write("train.py", "import yaml\nopt = yaml.safe_load(open('options/train/edsr.yml'))\ninit_dist('slurm', **opt['dist_params'])\n");
        d.write("scripts/fid.py", "import argparse\nargs = argparse.ArgumentParser().parse_args()\nclient = FileClient(args.backend)\n");
        if (named_in_full) d.write("tools/launch.py", "def start(opt):\n    return opt['dist_params']['backend']\n");
        const ScanResult r = scan_dir(d);
        const auto got = findings_in(r, "options/train/edsr.yml");
        ASSERT_EQ(got.size(), 1u) << named_in_full;
        EXPECT_EQ(got[0].rule_id, "config-nccl-backend");
        const bool fid = std::any_of(got[0].related.begin(), got[0].related.end(), [](const RelatedLocation& l) { return l.location.path == "scripts/fid.py"; });
        const bool launch = std::any_of(got[0].related.begin(), got[0].related.end(), [](const RelatedLocation& l) { return l.location.path == "tools/launch.py"; });
        EXPECT_FALSE(fid) << got[0].message;
        EXPECT_EQ(launch, named_in_full) << got[0].message;
        EXPECT_EQ(got[0].message.find("no read of `backend` found") == std::string::npos, named_in_full) << got[0].message;
        // unread, the backend goes to the launcher's set-up whole, which one process never calls (the rule's `unread: info`)
        EXPECT_EQ(got[0].severity, named_in_full ? Severity::major : Severity::info) << named_in_full;
    }
}

TEST(Configs, AnUnreadSeverityAboveMinorIsARuleError) {
    test::TempDir d;
    const fs::path rules = d.path() / "rules";
    fs::copy(test::source_dir() / "rules", rules, fs::copy_options::recursive);
    const fs::path file = rules / "config" / "config-nccl-backend.yaml";
    std::string text = read_file(file);
    const std::size_t at = text.find("unread: info");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 12, "unread: major");
    std::ofstream(file, std::ios::trunc) << text;
    try {
        RuleCatalogue::load(rules);
        ADD_FAILURE() << "a config rule with `unread: major` loaded";
    } catch (const RuleError& e) {
        EXPECT_NE(std::string(e.what()).find("config-nccl-backend.yaml"), std::string::npos) << e.what();
    }
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

// RWKV's 20B_tokenizer.json is JSON that YAML refuses (an implicit key over 1,024 characters): a
// .json file is read with the JSON parser, its keys placed in the file, and JSON that is broken says so.
TEST(Configs, JsonThatYamlRefusesIsReadAsJson) {
    test::TempDir d;
    const std::string long_key(1500, 'a');
    d.write("conf/run.json", "{\n  \"vocab\": {\"" + long_key + "\": 1, \"\\u0120x\": 2},\n  \"trainer\": {\n    \"device\": \"cuda\"\n  }\n}\n");
    d.write("conf/broken.json", "{\"device\": \"cuda\",\n \"" + long_key + "\": }\n");
    d.write("train.py", "import json\ncfg = json.load(open('conf/run.json'))\nb = json.load(open('conf/broken.json'))\n"
                        "dev = cfg['trainer']['device']\n");
    const ScanResult r = scan_dir(d);
    std::map<std::string, std::string> skipped;
    for (const auto& s : r.skipped) skipped[s.path] = s.reason;
    EXPECT_EQ(skipped.count("conf/run.json"), 0u) << skipped["conf/run.json"];
    EXPECT_NE(skipped["conf/broken.json"].find("invalid JSON at line 2"), std::string::npos) << skipped["conf/broken.json"];
    const auto got = findings_in(r, "conf/run.json");
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].rule_id, "config-cuda-device");
    EXPECT_EQ(got[0].location.line, 4);
}

// A .json file that is not strict JSON (bare keys, single quotes) but is YAML, as some hand-written
// configs are, is still read: as YAML, after the JSON parser refuses it.
TEST(Configs, LooseJsonIsReadAsYaml) {
    test::TempDir d;
    d.write("conf/loose.json", "{trainer: {device: 'cuda',\n  backend: nccl}}\n");
    d.write("train.py", "import json\ncfg = json.load(open('conf/loose.json'))\ndev = cfg['trainer']['device']\n");
    const ScanResult r = scan_dir(d);
    for (const auto& s : r.skipped) EXPECT_NE(s.path, "conf/loose.json") << s.reason;
    std::set<std::string> rules;
    for (const auto& f : findings_in(r, "conf/loose.json")) rules.insert(f.rule_id);
    EXPECT_EQ(rules, (std::set<std::string>{"config-cuda-device", "config-nccl-backend"}));
}

namespace {

const Finding* only(const ScanResult& r, const std::string& rule, const std::string& path) {
    const Finding* found = nullptr;
    for (const auto& f : r.findings)
        if (f.rule_id == rule && f.location.path == path) {
            EXPECT_EQ(found, nullptr) << "more than one " << rule << " in " << path;
            found = &f;
        }
    EXPECT_NE(found, nullptr) << "no " << rule << " in " << path;
    return found;
}

bool has_related(const Finding& f, const std::string& path, int line, const std::string& label_part) {
    return std::any_of(f.related.begin(), f.related.end(), [&](const RelatedLocation& r) {
        return r.location.path == path && r.location.line == line && r.label.find(label_part) != std::string::npos;
    });
}

}  // namespace

// A config is as needed as the code that reads it: the training entry's config is core (chain
// through the reader), one only a test reads is tooling, one only dead code reads is unreached.
TEST(ConfigReach, FindingsTakeTheReachOfTheirReader) {
    test::TempDir d;
    d.write("configs/train.yaml", "device: cuda:0\n");
    d.write("configs/test.yaml", "device: cuda\n");
    d.write("configs/legacy.yaml", "device: cuda\n");
    d.write("train.py", "import yaml\nfrom lab import loader\n\nif __name__ == \"__main__\":\n    cfg = loader.load()\n    run(cfg['device'])\n");
    d.write("lab/__init__.py", "");
    d.write("lab/loader.py", "import yaml\n\n\ndef load():\n    return yaml.safe_load(open('configs/train.yaml'))\n");
    d.write("lab/legacy.py", "import yaml\nCFG = yaml.safe_load(open('configs/legacy.yaml'))\n");
    d.write("tests/test_device.py", "import yaml\n\n\ndef test_device():\n    assert yaml.safe_load(open('configs/test.yaml'))['device']\n");
    const ScanResult r = scan_dir(d);

    const Finding* core = only(r, "config-cuda-device", "configs/train.yaml");
    ASSERT_NE(core, nullptr);
    EXPECT_EQ(core->reach, Reach::core);
    EXPECT_EQ(core->severity, Severity::major);
    EXPECT_EQ(core->chain, (std::vector<std::string>{"train.py:2", "lab/loader.py:5", "configs/train.yaml"}));
    EXPECT_TRUE(has_related(*core, "lab/loader.py", 5, "names configs/train.yaml"));
    EXPECT_TRUE(has_related(*core, "train.py", 6, "reads cfg['device']"));

    const Finding* tooling = only(r, "config-cuda-device", "configs/test.yaml");
    ASSERT_NE(tooling, nullptr);
    EXPECT_EQ(tooling->reach, Reach::tooling);
    EXPECT_LE(tooling->severity, Severity::minor) << tooling->note;

    const Finding* dead = only(r, "config-cuda-device", "configs/legacy.yaml");
    ASSERT_NE(dead, nullptr);
    EXPECT_EQ(dead->reach, Reach::unreached);
    EXPECT_LT(dead->severity, Severity::major) << dead->note;
    EXPECT_TRUE(dead->chain.empty());
}

// `python train.py --config configs/exp.yaml` in a launch script makes train.py the config's reader,
// though train.py names no config file itself (argparse).
TEST(ConfigReach, LaunchScriptArgumentMakesTheScriptTheReader) {
    test::TempDir d;
    d.write("configs/exp.yaml", "trainer:\n  device: cuda\n");
    d.write("configs/unused.yaml", "device: cuda\n");
    d.write("scripts/run.sh", "#!/bin/bash\nset -e\npython train.py \\\n  --config configs/exp.yaml --epochs 3\n");
    d.write("train.py", argparse_reader("cfg['trainer']['device']"));
    const ScanResult r = scan_dir(d);
    const Finding* f = only(r, "config-cuda-device", "configs/exp.yaml");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reach, Reach::core);
    EXPECT_TRUE(has_related(*f, "train.py", 1, "run by scripts/run.sh:3 with configs/exp.yaml")) << f->related.size();
    EXPECT_TRUE(has_related(*f, "train.py", 8, "reads cfg['trainer']['device']"));
    EXPECT_NE(f->message.find("read at train.py:8"), std::string::npos) << f->message;
    EXPECT_TRUE(findings_in(r, "configs/unused.yaml").empty());
}

// A launch line's arguments take the values of the variables its script set before it
// (`CONFIG=configs/exp.yaml` ... `--config=${CONFIG}`; a README's fenced block sets its own), and
// a variable nobody set is a placeholder that names the configs of its folder.
TEST(ConfigReach, LaunchArgumentsTakeTheScriptsVariables) {
    test::TempDir d;
    d.write("configs/exp.yaml", "trainer:\n  device: cuda\n");
    d.write("configs/sweep/a.yaml", "trainer:\n  device: cuda\n");
    d.write("configs/sweep/b.yaml", "trainer:\n  device: cuda\n");
    d.write("configs/unused.yaml", "trainer:\n  device: cuda\n");
    d.write("scripts/run.sh", "#!/bin/bash\nNAME=exp\nexport CONFIG=configs/${NAME}.yaml\npython train.py --config=${CONFIG} --epochs 3\n"
                              "python train.py --config configs/sweep/$RUN.yaml\n");
    // A variable set in one fenced block of a README is not set in the next one.
    d.write("README.md", "```bash\nCONFIG=configs/unused.yaml\n```\n\n```bash\npython train.py --config ${CONFIG}\n```\n");
    d.write("train.py", argparse_reader("cfg['trainer']['device']"));
    const ScanResult r = scan_dir(d);
    const Finding* f = only(r, "config-cuda-device", "configs/exp.yaml");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reach, Reach::core);
    EXPECT_TRUE(has_related(*f, "train.py", 1, "run by scripts/run.sh:4 with configs/exp.yaml")) << f->related.size();
    for (const char* option : {"configs/sweep/a.yaml", "configs/sweep/b.yaml"}) {
        const Finding* o = only(r, "config-cuda-device", option);
        ASSERT_NE(o, nullptr) << option;
        EXPECT_EQ(o->reach, Reach::core) << option;
        EXPECT_TRUE(has_related(*o, "train.py", 1, "run by scripts/run.sh:5 with configs/sweep/{RUN}.yaml")) << option;
    }
    EXPECT_TRUE(findings_in(r, "configs/unused.yaml").empty()) << "read by no launch";
}

// `python -m pkg.train --config configs/exp.yaml` makes pkg/train.py the reader (below a src/ root
// too); `python -m torch.distributed.run` is no file of ours and reads nothing.
TEST(ConfigReach, ModuleLaunchMakesTheModuleTheReader) {
    test::TempDir d;
    d.write("configs/exp.yaml", "device: cuda:0\n");
    d.write("configs/other.yaml", "device: cuda:0\n");
    d.write("src/pkg/__init__.py", "");
    d.write("src/pkg/train.py", argparse_reader("cfg['device']"));
    d.write("scripts/run.sh", "#!/bin/bash\npython -m pkg.train --config configs/exp.yaml\n"
                              "python -m torch.distributed.run --nproc_per_node 2 configs/other.yaml\n");
    const ScanResult r = scan_dir(d);
    const Finding* f = only(r, "config-cuda-device", "configs/exp.yaml");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reach, Reach::core);
    EXPECT_TRUE(has_related(*f, "src/pkg/train.py", 1, "run by scripts/run.sh:2 with configs/exp.yaml")) << f->related.size();
    EXPECT_TRUE(findings_in(r, "configs/other.yaml").empty());
}

// The reader vocabulary is data: a glob literal names every config it matches, a literal made only
// of holes names none, and a call of a variable names nothing.
TEST(ConfigFacts, GlobsAndCheckpointLoads) {
    const auto& vocabulary = test::bundled_catalogue().program().readers;
    const auto f = python_config_facts(
        "import glob, torch\n"
        "for path in glob.glob('configs/sweeps/*.yaml'):\n    run(path)\n"
        "sd = torch.load(\n    'weights/model.pt',\n    map_location='cpu')\n"
        "CKPT = \"weights/best.ckpt\"\n"
        "m = Net.load_from_checkpoint(CKPT)\n"
        "# torch.load('weights/commented.pt')\n"
        "x = mytorch.load('weights/other.pt')\n"
        "enc = AutoModel.from_pretrained('./weights/hf', device_map=device)\n"
        "torch.save(sd, 'weights/saved.pt')\n"
        "opt = torch.load(opt_path, device, weights_only=True)\n",
        {}, vocabulary);
    EXPECT_EQ(refers_to(f, "sweep.py", "configs/sweeps/lr.yaml"), 2);
    EXPECT_FALSE(refers_to(f, "sweep.py", "configs/base.yaml").has_value());
    std::vector<std::string> loads;
    for (const auto& l : f.loads) loads.push_back(l.call + "@" + std::to_string(l.line) + ":" + l.path + "|" + l.remap.value_or("-") + (l.folder ? "|dir" : ""));
    std::sort(loads.begin(), loads.end());
    EXPECT_EQ(loads, (std::vector<std::string>{"from_pretrained@11:./weights/hf|device_map=device|dir", "load_from_checkpoint@8:weights/best.ckpt|-",
                                               "torch.load@13:|device", "torch.load@4:weights/model.pt|map_location='cpu'"}));
    std::vector<std::string> named;  // what a save writes is not a read
    for (const auto& c : f.checkpoints) named.push_back(c.path);
    EXPECT_EQ(named, (std::vector<std::string>{"weights/model.pt", "weights/best.ckpt", "weights/other.pt"}));
}

// `import torch as T`: T.load is torch.load, with its map_location; MyT.load is not.
TEST(ConfigFacts, ALoadThroughAModuleAliasIsALoad) {
    const auto f = python_config_facts("import torch as T\nimport numpy as np\n"
                                       "sd = T.load('weights/a.pt', map_location='cpu')\nx = MyT.load('weights/b.pt')\n",
                                       {}, test::bundled_catalogue().program().readers);
    std::vector<std::string> loads;
    for (const auto& l : f.loads) loads.push_back(l.call + "@" + std::to_string(l.line) + ":" + l.path + "|" + l.remap.value_or("-"));
    EXPECT_EQ(loads, (std::vector<std::string>{"torch.load@3:weights/a.pt|map_location='cpu'"}));
}

// A config's findings come from the cache on a warm scan; its readers do not (they decide its reach),
// and a changed launch script is a changed reader.
TEST(ConfigReach, WarmScanKeepsTheReachAndFollowsTheLaunchScript) {
    test::TempDir d;
    test::TempDir cache;
    d.write("configs/exp.yaml", "device: cuda\n");
    d.write("run.sh", "python train.py --config configs/exp.yaml\n");
    d.write("train.py", "import yaml, sys\ncfg = yaml.safe_load(open(sys.argv[2]))\nprint(cfg['device'])\n");
    ScanOptions o;
    o.cache_dir = cache.path();
    const auto reach_of_config = [&](const ScanResult& r) {
        const auto got = findings_in(r, "configs/exp.yaml");
        return got.size() == 1 ? std::string(to_string(got[0].reach)) : std::to_string(got.size()) + " findings";
    };
    EXPECT_EQ(reach_of_config(test::bundled_scanner().scan(d.path(), {d.path()}, o)), "core");
    const ScanResult warm = test::bundled_scanner().scan(d.path(), {d.path()}, o);
    EXPECT_EQ(warm.files_cached, warm.files_scanned);
    EXPECT_EQ(reach_of_config(warm), "core");
    d.write("run.sh", "python train.py --epochs 3\n");  // no longer passes the config
    EXPECT_EQ(reach_of_config(test::bundled_scanner().scan(d.path(), {d.path()}, o)), "0 findings");
}

// A Hydra folder's configs: the primary one and what its defaults list selects (through the
// selected configs' own defaults, relative to their group; `override`, `optional`, `@package`,
// `_self_`, `???`, Hydra's own groups) are what a bare run loads; a launch script's overrides pick
// more. The rest are options a run loads only when its command line picks them.
TEST(Configs, HydraLoadsThePrimaryConfigAndWhatItsDefaultsSelect) {
    test::TempDir d;
    d.write("src/conf/train.yaml", "defaults:\n  - trainer: default\n  - optional model: small\n  - override hydra/launcher: basic\n"
                                   "  - data@loader: ???\n  - paths\n  - _self_\nlr: 0.1\n");
    d.write("src/conf/paths.yaml", "root: /data\n");
    d.write("src/conf/trainer/default.yaml", "defaults:\n  - optim: adam\n  - /callbacks: [ckpt, log]\ndevice: cpu\n");
    d.write("src/conf/trainer/optim/adam.yaml", "lr: 0.1\n");
    d.write("src/conf/trainer/gpu.yaml", "device: cuda\n");
    d.write("src/conf/callbacks/ckpt.yaml", "every: 1\n");
    d.write("src/conf/callbacks/log.yml", "every: 10\n");
    d.write("src/conf/model/small.yaml", "width: 8\n");
    d.write("src/conf/model/big.yaml", "width: 800\n");
    d.write("src/conf/data/cifar.yaml", "name: cifar\n");
    const HydraSelection hydra(d.path());
    EXPECT_EQ(hydra.loaded("src/conf/", "train", {}),
              (std::set<std::string>{"src/conf/train.yaml", "src/conf/paths.yaml", "src/conf/trainer/default.yaml",
                                     "src/conf/trainer/optim/adam.yaml", "src/conf/callbacks/ckpt.yaml", "src/conf/callbacks/log.yml",
                                     "src/conf/model/small.yaml"}));
    EXPECT_TRUE(hydra.selected("src/conf/", "train.yaml", {"trainer=gpu", "+data=cifar"}, "src/conf/trainer/gpu.yaml"));
    EXPECT_TRUE(hydra.selected("src/conf/", "train.yaml", {"trainer=gpu", "+data=cifar"}, "src/conf/data/cifar.yaml"));
    EXPECT_FALSE(hydra.selected("src/conf/", "train", {}, "src/conf/trainer/gpu.yaml"));
    EXPECT_FALSE(hydra.selected("src/conf/", "train", {}, "src/conf/model/big.yaml"));
}

TEST(Configs, AHydraOptionNoRunSelectsIsOptionalOneALaunchScriptPicksIsCore) {
    test::TempDir d;
    d.write("train.py", "import hydra\nimport torch\n\n\n@hydra.main(config_path=\"conf\",\n            config_name=\"config\")\n"
                        "def main(cfg):\n    return torch.nn.Linear(2, 2).to(torch.device(cfg.trainer.device))\n\n\n"
                        "if __name__ == \"__main__\":\n    main()\n");
    d.write("conf/config.yaml", "defaults:\n  - trainer: default\n  - _self_\n");
    d.write("conf/trainer/default.yaml", "device: cuda\n");
    d.write("conf/trainer/gpu.yaml", "device: cuda:0\n");
    d.write("conf/trainer/multi.yaml", "device: cuda:1\n");
    d.write("scripts/cluster.sh", "#!/bin/bash\npython train.py trainer=multi lr=0.2\n");
    const ScanResult r = scan_dir(d);
    auto device_finding = [&](const std::string& path) {
        const auto got = findings_in(r, path);
        EXPECT_EQ(got.size(), 1u) << path;
        return got.empty() ? Finding{} : got.front();
    };
    const Finding by_default = device_finding("conf/trainer/default.yaml");
    EXPECT_EQ(by_default.reach, Reach::core);
    EXPECT_EQ(by_default.severity, Severity::major);
    const Finding picked = device_finding("conf/trainer/multi.yaml");
    EXPECT_EQ(picked.reach, Reach::core);
    EXPECT_EQ(picked.severity, Severity::major);
    const Finding option = device_finding("conf/trainer/gpu.yaml");
    EXPECT_EQ(option.reach, Reach::optional);
    EXPECT_EQ(option.severity, Severity::minor);
    EXPECT_EQ(option.impact, std::min(option.rule_impact, VerdictImpact::dual));
    ASSERT_FALSE(option.related.empty());
    EXPECT_EQ(option.related.back().label, "Hydra option below conf/, not selected by conf/config.yaml");
}

// `check` of a changed config (a partial scan with the repository's cache): its readers are found
// among every file the cache knows, the Python file that names it and the launch script that picks
// a Hydra option, not only among the files checked (it found none, and reported nothing).
TEST(ConfigReach, ACheckOfAConfigFindsItsReadersInTheCache) {
    test::TempDir d, cache;
    d.write("train.py", "import json\nimport torch\n\nif __name__ == \"__main__\":\n    cfg = json.load(open('configs/run.json'))\n"
                        "    dev = torch.device(cfg['device'])\n");
    d.write("configs/run.json", "{\"device\": \"cuda:0\"}\n");
    d.write("hydra_train.py", "import hydra\n\n\n@hydra.main(config_path=\"conf\", config_name=\"config\")\n"
                              "def main(cfg):\n    return cfg.trainer.device\n\n\nif __name__ == \"__main__\":\n    main()\n");
    d.write("conf/config.yaml", "defaults:\n  - trainer: default\n");
    d.write("conf/trainer/default.yaml", "device: cpu\n");
    d.write("conf/trainer/gpu.yaml", "device: cuda\n");
    d.write("run.sh", "python hydra_train.py trainer=gpu\n");
    ScanOptions o;
    o.jobs = 2;
    o.cache_dir = cache.path();
    test::bundled_scanner().scan(d.path(), {d.path()}, o);
    o.partial = true;
    for (const std::string config : {"configs/run.json", "conf/trainer/gpu.yaml"}) {
        const ScanResult r = test::bundled_scanner().scan(d.path(), {d.path() / config}, o);
        const auto got = findings_in(r, config);
        ASSERT_EQ(got.size(), 1u) << config;
        EXPECT_EQ(got[0].rule_id, "config-cuda-device");
        EXPECT_EQ(got[0].reach, Reach::core) << config;
        EXPECT_EQ(got[0].severity, Severity::major) << config;
    }
}

// A config read only under a guard (the distributed gate of a multi-process launch) is as optional
// as that read: its finding carries the guard and drops a level; the same config read without one
// keeps the rule's severity.
TEST(ConfigReach, AConfigReadOnlyUnderAGuardTakesTheGuard) {
    test::TempDir d;
    d.write("configs/ddp.yaml", "backend: nccl\n");
    d.write("configs/base.yaml", "backend: nccl\n");
    d.write("train.py",
            "import os, yaml\n\n\ndef main():\n    cfg = yaml.safe_load(open('configs/base.yaml'))\n"
            "    if int(os.environ.get('WORLD_SIZE', 1)) > 1:\n        ddp = yaml.safe_load(open('configs/ddp.yaml'))\n"
            "        init(ddp['backend'])\n    run(cfg['backend'])\n\n\nif __name__ == '__main__':\n    main()\n");
    const ScanResult r = scan_dir(d);
    const Finding* gated = only(r, "config-nccl-backend", "configs/ddp.yaml");
    const Finding* plain = only(r, "config-nccl-backend", "configs/base.yaml");
    ASSERT_NE(gated, nullptr);
    ASSERT_NE(plain, nullptr);
    EXPECT_EQ(gated->guard, GuardKind::distributed_gate) << gated->guard_note;
    EXPECT_NE(gated->guard_note.find("train.py:7"), std::string::npos) << gated->guard_note;
    EXPECT_EQ(plain->guard, GuardKind::none);
    EXPECT_LT(gated->severity, plain->severity);
}

// Loads and names carry the guard of their site (a load under a device check with a CPU load beside it).
TEST(ConfigFacts, LoadsCarryTheGuardOfTheirSite) {
    const auto& program = test::bundled_catalogue().program();
    const auto f = python_config_facts("import torch\n"
                                       "if torch.cuda.is_available():\n    sd = torch.load('weights/a.pt')\n"
                                       "else:\n    sd = torch.load('weights/a.pt', map_location='cpu')\n"
                                       "cfg = open('configs/x.yaml')\n",
                                       {}, program.readers, program.guards);
    ASSERT_EQ(f.loads.size(), 2u);
    EXPECT_EQ(f.loads[0].guard, GuardKind::device_check) << f.loads[0].guard_note;
    EXPECT_EQ(f.loads[0].line, 3);
    ASSERT_EQ(f.files.size(), 1u);
    EXPECT_EQ(f.files[0].guard, GuardKind::none);
}
