// The config pass, after every Python file is analysed: config files that some Python file names
// (or that a launch script passes to one) are read (YAML / JSON via yaml-cpp, TOML via toml++), their
// values checked by the config rules, and each finding linked to the Python sites that read the key.
// Config files no code names are never read and never reported (a `device: cuda` nobody loads
// changes nothing); the outcome lists the readers, whose reach the findings take.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "analyzer/configs/config_facts.hpp"
#include "analyzer/configs/data_readers.hpp"
#include "analyzer/configs/hydra.hpp"
#include "core/finding.hpp"
#include "core/program_facts.hpp"
#include "core/rule_catalogue.hpp"
#include "core/walker.hpp"

namespace mpsport::configs {

// Every key some config rule looks at (what python_config_facts() records reads of).
std::set<std::string> rule_keys(const RuleCatalogue& catalogue);

struct ConfigOutcome {
    bool referenced = false;  // false: no Python file names it; not read
    std::vector<Finding> findings;
    std::optional<std::string> skip_reason;
    std::size_t lines = 0;
    std::vector<DataReader> readers;  // the Python files that name it, and the scripts launched with it
    // The repository code it names for instantiation (`target:`, `_target_:`), as imports of its readers.
    std::vector<ImportFact> targets;
};

// The Python files that name the config at `config_path` (`names`: NamedFiles(python)), and the
// scripts launched with it. A file that names it only through a Hydra folder whose primary config
// neither selects it nor is made to by a launch script's overrides reads it `unselected`.
std::vector<DataReader> config_readers(const std::string& config_path, const NamedFiles& names, const std::vector<PythonFile>& python,
                                       const std::vector<Launch>& launches, const HydraSelection& hydra);

// `readers`: config_readers() of the file. `dispatch_keys`: the key paths from which the code imports
// a module by name (ImportFact::config_key of the Python files): their dotted values become targets.
ConfigOutcome analyze_config(const FileEntry& file, std::vector<DataReader> readers, const std::vector<PythonFile>& python,
                             const RuleCatalogue& catalogue, std::uintmax_t max_file_size, const std::set<std::string>& dispatch_keys = {});

}  // namespace mpsport::configs
