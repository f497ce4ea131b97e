// Run configurations (YAML, JSON, TOML) as the Python code uses them: which config files and
// Hydra config folders a Python file names, and where it reads keys such as `device`. Computed per
// Python file (cached with its outcome); joined with the config files after the scan (config_link).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mpsport::configs {

struct KeyRead {
    std::string key;   // the leaf key read: cfg["device"], cfg.get("device"), cfg.trainer.device -> device
    int line = 0;
    std::string text;  // the expression as written, for the message
};

struct PythonConfigFacts {
    std::vector<std::string> files;        // "configs/base.yaml", "configs/{name}.yaml" (f-string holes kept)
    std::vector<std::string> directories;  // Hydra config_path="conf"
    std::vector<KeyRead> reads;            // only of the keys some config rule looks at
    bool empty() const { return files.empty() && directories.empty() && reads.empty(); }
};

// Reads Python source text line by line (comment lines skipped); `keys` are the config keys the rules
// care about (every config rule's `keys`).
PythonConfigFacts python_config_facts(std::string_view text, const std::set<std::string>& keys);

// Whether a Python file at `python_path` naming `facts` refers to the config file `config_path`
// (both relative to the scanned root). A literal path matches the end of the config's path; an
// f-string hole matches one path segment; a Hydra folder matches any config below it.
bool refers_to(const PythonConfigFacts& facts, const std::string& python_path, const std::string& config_path);

}  // namespace mpsport::configs
