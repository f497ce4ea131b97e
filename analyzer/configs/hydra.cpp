#include "analyzer/configs/hydra.hpp"

#include <yaml-cpp/yaml.h>

#include <deque>


namespace fs = std::filesystem;

namespace mpsport::configs {
namespace {

std::string without_extension(std::string name) {
    for (const char* ext : {".yaml", ".yml"})
        if (name.size() > std::string(ext).size() && name.compare(name.size() - std::string(ext).size(), std::string::npos, ext) == 0)
            return name.substr(0, name.size() - std::string(ext).size());
    return name;
}

std::string folder_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// `override trainer`, `optional trainer`, `trainer@model.trainer` -> `trainer`
std::string group_of(std::string key) {
    for (const char* word : {"override ", "optional "})
        if (key.rfind(word, 0) == 0) key = key.substr(std::string(word).size());
    if (const auto at = key.find('@'); at != std::string::npos) key = key.substr(0, at);
    return key;
}

}  // namespace

std::set<std::string> HydraSelection::loaded(const std::string& folder, const std::string& name, const std::vector<std::string>& overrides) const {
    std::string key = folder + "|" + name;
    for (const auto& o : overrides) key += "|" + o;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (auto it = m_loaded.find(key); it != m_loaded.end()) return it->second;
    }
    std::set<std::string> out;
    std::deque<std::string> todo;
    // `relative`: a config's path below the folder, without its extension ("trainer/gpu")
    auto add = [&](const std::string& relative) {
        for (const char* ext : {".yaml", ".yml"}) {
            const std::string path = folder + relative + ext;
            std::error_code ec;
            if (!fs::is_regular_file(m_root / path, ec)) continue;
            if (out.insert(path).second) todo.push_back(path);
            return;
        }
    };
    add(without_extension(name));
    for (std::string o : overrides) {
        while (!o.empty() && o.front() == '+') o.erase(0, 1);
        const auto eq = o.find('=');
        if (eq == std::string::npos) continue;
        add(group_of(o.substr(0, eq)) + "/" + o.substr(eq + 1));
    }
    while (!todo.empty()) {
        const std::string path = todo.front();
        todo.pop_front();
        // A group's defaults are relative to the group's folder; a leading '/' to the primary's.
        const std::string here = folder_of(path.substr(folder.size()));
        auto relative = [&](const std::string& written) { return written.front() == '/' ? written.substr(1) : here + written; };
        YAML::Node defaults;
        try {
            defaults = YAML::LoadFile((m_root / path).string())["defaults"];
        } catch (const std::exception&) {
            continue;  // a config that does not parse says so as its own skipped file
        }
        if (!defaults || !defaults.IsSequence()) continue;
        for (const auto& item : defaults) {
            if (item.IsScalar()) {
                const std::string s = item.as<std::string>();
                if (!s.empty() && s != "_self_") add(relative(without_extension(s)));
            } else if (item.IsMap()) {
                for (const auto& kv : item) {
                    if (!kv.first.IsScalar()) continue;
                    const std::string group = group_of(kv.first.as<std::string>());
                    if (group.empty() || group.rfind("hydra", 0) == 0) continue;  // Hydra's own launcher, logging, sweeper
                    std::vector<std::string> options;
                    if (kv.second.IsScalar()) options.push_back(kv.second.as<std::string>());
                    else if (kv.second.IsSequence())
                        for (const auto& v : kv.second)
                            if (v.IsScalar()) options.push_back(v.as<std::string>());
                    for (const auto& option : options)
                        if (!option.empty() && option != "???" && option != "null") add(relative(group) + "/" + without_extension(option));
                }
            }
        }
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_loaded.emplace(key, std::move(out)).first->second;
}

std::set<std::string> HydraSelection::files_read() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::set<std::string> out;
    for (const auto& [key, files] : m_loaded) out.insert(files.begin(), files.end());
    return out;
}

bool HydraSelection::selected(const std::string& folder, const std::string& name, const std::vector<std::string>& overrides,
                              const std::string& config_path) const {
    return loaded(folder, name, overrides).count(config_path) > 0;
}

}  // namespace mpsport::configs
