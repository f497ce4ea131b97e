// A repository's own settings for the program model, in `.mpsport.toml` at the scanned folder:
//
//   entry = ["tools/train.py"]        # entry points of the training run (as --entry)
//   tooling_dirs = ["experiments"]    # more folders that hold tests, benchmarks or examples
//   tooling_files = ["check_*.py"]    # more file-name globs of the same
//   not_tooling_dirs = ["examples"]   # folders the bundled vocabulary calls tooling, but are not here
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
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

// The predictor a Cog container runs (`predict: "predict.py:Predictor"` in a cog.yaml): a path
// relative to the repository, resolved against the cog.yaml's folder, then the repository's top
// (`existing` says which paths the scan holds). nullopt when the file names none that exists; throws
// std::runtime_error naming the file for YAML that does not parse.
std::optional<std::string> cog_predictor(const std::string& cog_yaml_path, const std::string& text,
                                         const std::function<bool(const std::string&)>& existing);

}  // namespace mpsport::program
