#include "analyzer/program/project_config.hpp"

#include <algorithm>
#include <stdexcept>
#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>
#include <yaml-cpp/yaml.h>

namespace mpsport::program {

ProjectConfig load_project_config(const std::filesystem::path& folder) {
    const std::filesystem::path file = folder / kProjectConfigFile;
    ProjectConfig config;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) return config;
    toml::table doc;
    try {
        doc = toml::parse_file(file.string());
    } catch (const toml::parse_error& e) {
        throw std::runtime_error(file.generic_string() + ":" + std::to_string(e.source().begin.line) + ": invalid TOML: " +
                                 std::string(e.description()));
    }
    const std::pair<const char*, std::vector<std::string>*> keys[] = {{"entry", &config.entries},
                                                                      {"tooling_dirs", &config.tooling_dirs},
                                                                      {"tooling_files", &config.tooling_files},
                                                                      {"not_tooling_dirs", &config.not_tooling_dirs}};
    for (const auto& [key, node] : doc) {
        const std::string_view name = key.str();  // a structured binding cannot be captured before C++20 (clang)
        const auto it = std::find_if(std::begin(keys), std::end(keys), [&](const auto& k) { return name == k.first; });
        if (it == std::end(keys))
            throw std::runtime_error(file.generic_string() + ": unknown key '" + std::string(key.str()) +
                                     "' (known: entry, tooling_dirs, tooling_files, not_tooling_dirs)");
        const toml::array* list = node.as_array();
        if (!list) throw std::runtime_error(file.generic_string() + ": '" + std::string(key.str()) + "' must be a list of strings");
        for (const auto& item : *list) {
            const auto value = item.value<std::string>();
            if (!value) throw std::runtime_error(file.generic_string() + ": '" + std::string(key.str()) + "' must be a list of strings");
            it->second->push_back(*value);
        }
    }
    return config;
}

std::optional<std::string> cog_predictor(const std::string& cog_yaml_path, const std::string& text,
                                         const std::function<bool(const std::string&)>& existing) {
    YAML::Node doc;
    try {
        doc = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        throw std::runtime_error(cog_yaml_path + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
    }
    if (!doc.IsMap() || !doc["predict"] || !doc["predict"].IsScalar()) return std::nullopt;
    std::string target = doc["predict"].Scalar();
    target = target.substr(0, target.find(':'));
    while (target.rfind("./", 0) == 0) target.erase(0, 2);
    if (target.empty()) return std::nullopt;
    const std::size_t slash = cog_yaml_path.rfind('/');
    if (slash != std::string::npos) {
        const std::string beside = cog_yaml_path.substr(0, slash + 1) + target;
        if (existing(beside)) return beside;
    }
    if (existing(target)) return target;
    return std::nullopt;
}

}  // namespace mpsport::program
