// .gitignore semantics: per-folder pattern files, anchoring, '**', negation, folder-only patterns.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <string_view>
#include <vector>

namespace mpsport {

// Matches a gitignore-style glob against a '/'-separated path: '*' and '?' stop at '/', '**' does not.
bool glob_match(std::string_view pattern, std::string_view path);

class IgnoreRules {
public:
    // Adds the patterns of one ignore file found in folder `base` ("" for the root).
    void add(std::string_view base, std::string_view file_text);
    // Last matching pattern wins, as in git. `path` is relative to the root.
    bool is_ignored(std::string_view path, bool is_dir) const;
    bool empty() const { return m_by_base.empty(); }

private:
    struct Pattern {
        std::string base;  // folder of the ignore file, "" or "a/b"
        std::string glob;
        bool negated = false;
        bool dir_only = false;
        bool anchored = false;  // contains a '/' before its end: matched from base, not by name
        enum class Kind { glob, literal, suffix } kind = Kind::glob;  // literal "build", suffix "*.pyc": no glob engine
        std::string fixed;  // the literal, or the suffix after '*'
    };
    // Patterns by the folder of their ignore file: a path only consults the files of its ancestors.
    std::unordered_map<std::string, std::vector<Pattern>> m_by_base;
};

// The git repository a folder lies in, as git itself sees it (libgit2: worktrees, submodules and
// `.git` files included), with the ignore files that hold for the whole work tree.
struct GitRepository {
    std::filesystem::path top;  // the work tree's top folder
    // core.excludesFile (or $XDG_CONFIG_HOME/git/ignore), then $GIT_COMMON_DIR/info/exclude: the
    // patterns every .gitignore of the tree overrides, in that order. Each is (file, text).
    std::vector<std::pair<std::filesystem::path, std::string>> global_ignores;
    // The paths git tracks (its index), '/'-separated from `top`: ignore patterns do not hold for
    // them, as in git (IDEA-Research/DINO tracks its scripts/ and ignores "scripts/").
    std::vector<std::string> tracked;
};
// nullopt when `dir` is in no work tree (or in a bare repository).
std::optional<GitRepository> find_git_repository(const std::filesystem::path& dir);

}  // namespace mpsport
