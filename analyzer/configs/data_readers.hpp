// Who reads a data file: the Python files that name a run config or load a checkpoint, and the
// scripts a shell, Slurm or Docker line runs with the file as an argument
// (`python train.py --config configs/x.yaml`). The data file then takes the reach of its readers
// (analyzer/program/data_reach.cpp).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "analyzer/configs/config_facts.hpp"
#include "core/program_facts.hpp"

namespace mpsport::configs {

// A command line that runs a Python script of the repository with file paths as arguments.
struct Launch {
    std::string script;  // the Python file run, resolved in the repository
    std::string via;     // "scripts/train.sh:3"
    std::vector<std::string> args;
    std::vector<std::string> overrides;  // Hydra `group=option` arguments
};

struct FileWithFacts {
    const std::string* path;
    const FileFacts* facts;
};

// The launches in shell, Slurm, Docker and Make files whose script is one of `python_paths`.
std::vector<Launch> launches_with_paths(const std::vector<FileWithFacts>& files, const std::set<std::string>& python_paths);

// The scripts run with `data_path` as an argument.
std::vector<DataReader> launch_readers(const std::string& data_path, const std::vector<Launch>& launches);

// The Python files that load the checkpoint at `checkpoint_path` (a load call whose literal path, or
// folder for from_pretrained, names it; or a literal naming it beside a load call of a variable, as
// an argparse default does), and the scripts launched with it.
std::vector<DataReader> checkpoint_readers(const std::string& checkpoint_path, const std::vector<PythonFile>& python,
                                           const std::vector<Launch>& launches);

}  // namespace mpsport::configs
