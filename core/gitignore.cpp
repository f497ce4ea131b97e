#include "core/gitignore.hpp"

#include <algorithm>
#include <vector>

#include <git2.h>

#include <cstdlib>
#include <memory>

#include "core/paths.hpp"

namespace mpsport {
namespace {

bool class_match(std::string_view pattern, std::size_t& pi, char c) {
    // pattern[pi] == '['; on return pi is past ']'
    std::size_t i = pi + 1;
    bool negate = false;
    if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
        negate = true;
        ++i;
    }
    bool matched = false;
    bool first = true;
    for (; i < pattern.size() && (pattern[i] != ']' || first); ++i) {
        first = false;
        if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
            if (c >= pattern[i] && c <= pattern[i + 2]) matched = true;
            i += 2;
        } else if (pattern[i] == c) {
            matched = true;
        }
    }
    pi = i < pattern.size() ? i + 1 : i;
    return matched != negate;
}

// Results of match_from by (pi, si) for patterns with several stars: without it, a pattern of many
// '*' backtracks exponentially (the fuzzer found one that took minutes on a short path).
struct Memo {
    std::size_t width = 0;
    std::vector<signed char> seen;  // -1 unknown, 0 no, 1 yes
};

bool match_from(std::string_view p, std::size_t pi, std::string_view s, std::size_t si, Memo* memo);

bool match_at(std::string_view p, std::size_t pi, std::string_view s, std::size_t si, Memo* memo) {
    if (!memo) return match_from(p, pi, s, si, nullptr);
    signed char& r = memo->seen[pi * memo->width + si];
    if (r < 0) r = match_from(p, pi, s, si, memo) ? 1 : 0;
    return r == 1;
}

bool match_from(std::string_view p, std::size_t pi, std::string_view s, std::size_t si, Memo* memo) {
    while (pi < p.size()) {
        const char pc = p[pi];
        if (pc == '*') {
            const bool double_star = pi + 1 < p.size() && p[pi + 1] == '*';
            if (double_star) {
                std::size_t next = pi + 2;
                // "**/" matches zero or more whole folders
                if (next < p.size() && p[next] == '/') {
                    for (std::size_t k = si;; ) {
                        if (match_at(p, next + 1, s, k, memo)) return true;
                        std::size_t slash = s.find('/', k);
                        if (slash == std::string_view::npos) return false;
                        k = slash + 1;
                    }
                }
                for (std::size_t k = si; k <= s.size(); ++k)
                    if (match_at(p, next, s, k, memo)) return true;
                return false;
            }
            for (std::size_t k = si; k <= s.size(); ++k) {
                if (match_at(p, pi + 1, s, k, memo)) return true;
                if (k < s.size() && s[k] == '/') return false;
            }
            return false;
        }
        if (si >= s.size()) return false;
        if (pc == '?') {
            if (s[si] == '/') return false;
            ++pi;
            ++si;
        } else if (pc == '[') {
            if (s[si] == '/' || !class_match(p, pi, s[si])) return false;
            ++si;
        } else {
            if (pc == '\\' && pi + 1 < p.size()) ++pi;
            if (p[pi] != s[si]) return false;
            ++pi;
            ++si;
        }
    }
    return si == s.size();
}

std::string_view trim_trailing_spaces(std::string_view line) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) {
        if (line.size() >= 2 && line[line.size() - 2] == '\\') break;
        line.remove_suffix(1);
    }
    return line;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
    if (std::count(pattern.begin(), pattern.end(), '*') < 2) return match_from(pattern, 0, path, 0, nullptr);
    Memo memo;
    memo.width = path.size() + 1;
    memo.seen.assign((pattern.size() + 1) * memo.width, -1);
    return match_from(pattern, 0, path, 0, &memo);
}

void IgnoreRules::add(std::string_view base, std::string_view text) {
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = trim_trailing_spaces(text.substr(pos, end - pos));
        pos = end + 1;
        if (line.empty() || line.front() == '#') continue;
        Pattern p;
        p.base = std::string(base);
        if (line.front() == '!') {
            p.negated = true;
            line.remove_prefix(1);
        } else if (line.front() == '\\') {
            line.remove_prefix(1);
        }
        if (!line.empty() && line.back() == '/') {
            p.dir_only = true;
            line.remove_suffix(1);
        }
        if (line.empty()) continue;
        p.anchored = line.find('/') != std::string_view::npos;
        if (line.front() == '/') line.remove_prefix(1);
        p.glob = std::string(line);
        const auto special = [](std::string_view g) { return g.find_first_of("*?[\\") != std::string_view::npos; };
        if (!special(p.glob)) {
            p.kind = Pattern::Kind::literal;
            p.fixed = p.glob;
        } else if (!p.anchored && p.glob.size() > 1 && p.glob[0] == '*' && !special(std::string_view(p.glob).substr(1))) {
            p.kind = Pattern::Kind::suffix;
            p.fixed = p.glob.substr(1);
        }
        m_by_base[p.base].push_back(std::move(p));
    }
}

bool IgnoreRules::is_ignored(std::string_view path, bool is_dir) const {
    bool ignored = false;
    // Ancestors from the root down, so deeper ignore files (loaded later) win, as in git.
    std::size_t end = 0;
    std::size_t search_from = 0;
    for (;;) {
        const std::string base(path.substr(0, end));
        if (auto it = m_by_base.find(base); it != m_by_base.end()) {
            const std::string_view rel = base.empty() ? path : path.substr(base.size() + 1);
            const std::size_t slash = rel.rfind('/');
            const std::string_view name = slash == std::string_view::npos ? rel : rel.substr(slash + 1);
            for (const auto& p : it->second) {
                if (p.dir_only && !is_dir) continue;
                if (ignored != p.negated) continue;  // this pattern cannot change the outcome
                const std::string_view subject = p.anchored ? rel : name;
                bool hit;
                switch (p.kind) {
                    case Pattern::Kind::literal: hit = subject == p.fixed; break;
                    case Pattern::Kind::suffix:
                        hit = subject.size() >= p.fixed.size() &&
                              subject.compare(subject.size() - p.fixed.size(), p.fixed.size(), p.fixed) == 0;
                        break;
                    default: hit = glob_match(p.glob, subject);
                }
                if (hit) ignored = !p.negated;
            }
        }
        const std::size_t next = path.find('/', search_from);
        if (next == std::string_view::npos) break;
        end = next;
        search_from = next + 1;
        if (end == 0) continue;  // a leading '/': the root's patterns were already consulted
    }
    return ignored;
}

}  // namespace mpsport

namespace mpsport {
namespace {

struct GitInit {
    GitInit() { git_libgit2_init(); }
    ~GitInit() { git_libgit2_shutdown(); }
};

// Whether `dir` or a folder above it holds a `.git` (a folder, or a file naming one): where none
// does, git_repository_open_ext finds no work tree either, and libgit2 is not started (its start
// reads the system's TLS certificates, a third of the walk of a small repository).
bool maybe_in_work_tree(const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    for (fs::path d = dir;; d = d.parent_path()) {
        if (fs::exists(d / ".git", ec)) return true;
        if (!d.has_relative_path()) return false;
    }
}

std::filesystem::path default_excludes_file() {
    // git's default when core.excludesFile is unset.
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "git" / "ignore";
    if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".config" / "git" / "ignore";
    return {};
}

}  // namespace

std::optional<GitRepository> find_git_repository(const std::filesystem::path& dir) {
    if (!maybe_in_work_tree(dir)) return std::nullopt;
    static const GitInit init;
    git_repository* raw = nullptr;
    if (git_repository_open_ext(&raw, dir.c_str(), 0, nullptr) != 0) return std::nullopt;
    const std::unique_ptr<git_repository, void (*)(git_repository*)> repo(raw, git_repository_free);
    const char* workdir = git_repository_workdir(repo.get());
    if (!workdir) return std::nullopt;
    GitRepository out;
    out.top = std::filesystem::path(workdir).lexically_normal();
    if (!out.top.has_filename()) out.top = out.top.parent_path();  // "/repo/" -> "/repo"
    std::filesystem::path excludes = default_excludes_file();
    git_config* config = nullptr;
    if (git_repository_config_snapshot(&config, repo.get()) == 0) {
        git_buf buf = GIT_BUF_INIT;
        if (git_config_get_path(&buf, config, "core.excludesfile") == 0) excludes = buf.ptr;
        git_buf_dispose(&buf);
        git_config_free(config);
    }
    git_index* index = nullptr;
    if (git_repository_index(&index, repo.get()) == 0) {
        const std::size_t n = git_index_entrycount(index);
        out.tracked.reserve(n);
        for (std::size_t i = 0; i < n; ++i)
            if (const git_index_entry* e = git_index_get_byindex(index, i)) out.tracked.emplace_back(e->path);
        git_index_free(index);
    }
    const std::filesystem::path info_exclude = std::filesystem::path(git_repository_commondir(repo.get())) / "info" / "exclude";
    for (const auto& f : {excludes, info_exclude}) {
        std::error_code ec;
        if (f.empty() || !std::filesystem::is_regular_file(f, ec)) continue;
        try {
            out.global_ignores.emplace_back(f, read_file(f));
        } catch (const std::exception&) {
            // unreadable: as git, go on without it
        }
    }
    return out;
}

}  // namespace mpsport
