#include "analyzer/manifests/includes.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "analyzer/manifests/dependencies.hpp"
#include "core/paths.hpp"

namespace fs = std::filesystem;

namespace mpsport::manifests {
namespace {

// Targets named by a requirements file, or nothing when it cannot be read (the scan reports that).
std::vector<Include> includes_of(const fs::path& file) {
    try {
        std::string text = read_file(file);
        if (text_problem(text)) return {};
        return read_requirements(SourceText(std::move(text))).includes;
    } catch (const std::exception&) {
        return {};
    }
}

}  // namespace

void follow_requirement_includes(const fs::path& base, WalkResult& walked) {
    const fs::path root = fs::absolute(base).lexically_normal();
    std::map<std::string, std::size_t> known;  // relative path -> index in walked.files
    for (std::size_t i = 0; i < walked.files.size(); ++i) known[walked.files[i].path] = i;
    std::set<std::string> done;
    std::vector<std::string> chain;  // the include path being followed, for cycle messages

    std::function<void(std::size_t)> follow = [&](std::size_t index) {
        const std::string from = walked.files[index].path;
        const fs::path from_abs = walked.files[index].absolute;
        chain.push_back(from);
        for (const Include& inc : includes_of(from_abs)) {
            const fs::path target = (from_abs.parent_path() / inc.target).lexically_normal();
            const std::string rel = target.lexically_relative(root).generic_string();
            const std::string option = std::string(inc.constraint ? "-c " : "-r ") + inc.target;
            if (rel.empty() || rel.rfind("..", 0) == 0) {
                walked.skipped.push_back({from, option + ": outside the scanned folder, not read"});
                continue;
            }
            if (std::find(chain.begin(), chain.end(), rel) != chain.end()) {
                std::string cycle;
                for (auto it = std::find(chain.begin(), chain.end(), rel); it != chain.end(); ++it) cycle += *it + " -> ";
                walked.skipped.push_back({from, option + ": include cycle (" + cycle + rel + "); each file is read once"});
                continue;
            }
            auto it = known.find(rel);
            if (it == known.end()) {
                std::error_code ec;
                if (!fs::is_regular_file(target, ec)) {
                    walked.skipped.push_back({rel, "named by " + option + " in " + from + " but not found"});
                    continue;
                }
                walked.files.push_back({rel, target, FileKind::requirements, 0, 0});
                it = known.emplace(rel, walked.files.size() - 1).first;
            }
            if (walked.files[it->second].kind == FileKind::requirements && done.insert(rel).second) follow(it->second);
        }
        chain.pop_back();
    };
    const std::size_t n = walked.files.size();
    for (std::size_t i = 0; i < n; ++i)
        if (walked.files[i].kind == FileKind::requirements && done.insert(walked.files[i].path).second) follow(i);
    std::sort(walked.files.begin(), walked.files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
}

}  // namespace mpsport::manifests
