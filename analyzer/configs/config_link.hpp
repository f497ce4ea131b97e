// The config pass, after every Python file is analysed: config files that some Python file names
// are read (YAML / JSON via yaml-cpp, TOML via toml++), their values checked by the config rules,
// and each finding linked to the Python sites that read the key. Config files no code names are
// never read and never reported (a `device: cuda` nobody loads changes nothing).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "analyzer/configs/config_facts.hpp"
#include "core/finding.hpp"
#include "core/rule_catalogue.hpp"
#include "core/walker.hpp"

namespace mpsport::configs {

// Every key some config rule looks at (what python_config_facts() records reads of).
std::set<std::string> rule_keys(const RuleCatalogue& catalogue);

struct PythonFile {
    const std::string* path;
    const PythonConfigFacts* facts;
};

struct ConfigOutcome {
    bool referenced = false;  // false: no Python file names it; not read
    std::vector<Finding> findings;
    std::optional<std::string> skip_reason;
    std::size_t lines = 0;
};

ConfigOutcome analyze_config(const FileEntry& file, const std::vector<PythonFile>& python, const RuleCatalogue& catalogue,
                             std::uintmax_t max_file_size);

}  // namespace mpsport::configs
