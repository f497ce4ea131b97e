// Which configs of a Hydra folder a run loads when its command line picks nothing: the primary
// config (`config_name`) and what its defaults list selects, followed through the defaults lists of
// the configs it selects; and the options that launch scripts pick with overrides (`trainer=gpu`).
// The other configs of the folder are options a run loads only when its command line picks them.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace mpsport::configs {

class HydraSelection {
public:
    explicit HydraSelection(std::filesystem::path root) : m_root(std::move(root)) {}
    // Whether the config at `config_path` (relative to the root) is loaded by a run whose primary
    // config is `name` in `folder` ('/'-terminated, relative to the root), with `overrides` on its
    // command line. Thread-safe; each (folder, name, overrides) is worked out once.
    bool selected(const std::string& folder, const std::string& name, const std::vector<std::string>& overrides,
                  const std::string& config_path) const;
    // The configs such a run loads (relative to the root).
    std::set<std::string> loaded(const std::string& folder, const std::string& name, const std::vector<std::string>& overrides) const;

    // Every config a `loaded` call found and read so far (relative to the root).
    std::set<std::string> files_read() const;

private:
    std::filesystem::path m_root;
    mutable std::mutex m_mutex;
    mutable std::map<std::string, std::set<std::string>> m_loaded;
};

}  // namespace mpsport::configs
