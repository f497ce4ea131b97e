// A repository's own settings for the program model, in `.mpsport.toml` at the scanned folder:
//
//   entry = ["tools/train.py"]        # entry points of the training run (as --entry)
//   tooling_dirs = ["experiments"]    # more folders that hold tests, benchmarks or examples
//   tooling_files = ["check_*.py"]    # more file-name globs of the same
//   not_tooling_dirs = ["examples"]   # folders the bundled vocabulary calls tooling, but are not here
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace mpsport::program {

inline constexpr const char* kProjectConfigFile = ".mpsport.toml";

struct ProjectConfig {
    std::vector<std::string> entries;
    std::vector<std::string> tooling_dirs;
    std::vector<std::string> tooling_files;
    std::vector<std::string> not_tooling_dirs;
};

// Empty when the file does not exist; throws std::runtime_error naming the file and the key for a
// file that does not parse or holds an unknown key.
ProjectConfig load_project_config(const std::filesystem::path& folder);

}  // namespace mpsport::program
