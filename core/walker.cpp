#include "core/walker.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <atomic>
#include <thread>
#include <chrono>
#include <memory>
#include <set>
#include <unordered_set>

#include "core/gitignore.hpp"
#include "core/hash.hpp"

#include <cerrno>
#include <cstring>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/stat.h>
#endif
#include "core/parallel.hpp"
#include "core/paths.hpp"

namespace fs = std::filesystem;

namespace mpsport {
namespace {

// Folders that hold other people's code or generated output, never the lab's own sources.
// .ipynb_checkpoints: Jupyter's autosaved copies of the notebooks beside it.
constexpr std::array<std::string_view, 17> kSkippedDirs = {
    ".git", ".hg", ".svn", "node_modules", "site-packages", "dist-packages", "__pycache__", ".venv", "venv",
    ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".eggs", "build", ".mpsport_cache", ".ipynb_checkpoints"};

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool starts_with(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// Size and modification time with one stat() where POSIX has it (the warm scan's main cost is stat).
bool size_and_mtime(const fs::path& p, std::uintmax_t& size, std::int64_t& mtime_ns) {
#if defined(__unix__) || defined(__APPLE__)
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return false;
    size = static_cast<std::uintmax_t>(st.st_size);
#if defined(__APPLE__)
    mtime_ns = static_cast<std::int64_t>(st.st_mtimespec.tv_sec) * 1000000000 + st.st_mtimespec.tv_nsec;
#else
    mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
#endif
    return true;
#else
    std::error_code ec;
    size = fs::file_size(p, ec);
    if (ec) return false;
    const auto t = fs::last_write_time(p, ec);
    mtime_ns = ec ? 0 : std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
    return true;
#endif
}

const char* special_file_type(const fs::directory_entry& entry, std::error_code& ec) {
    if (entry.is_fifo(ec)) return "a FIFO";
    if (entry.is_socket(ec)) return "a socket";
    if (entry.is_block_file(ec) || entry.is_character_file(ec)) return "a device";
    return "not a file";
}

// Absolute, without "." / ".." / a trailing separator: comparable folder by folder.
fs::path normal(const fs::path& p) {
    std::error_code ec;
    fs::path n = fs::absolute(p, ec).lexically_normal();
    if (!n.has_filename() && n.has_parent_path() && n != n.root_path()) n = n.parent_path();
    return n;
}

class Walker {
public:
    Walker(const fs::path& base, const WalkOptions& options) : m_base(base), m_top(normal(base)), m_options(options) {
        // Ignore files hold for the whole work tree: a scan of a subfolder honours the top's
        // .gitignore, info/exclude and core.excludesFile. Patterns are keyed by folder from the top.
        if (options.respect_gitignore) {
            std::error_code ec;
            if (auto repo = find_git_repository(fs::absolute(base, ec))) {
                const fs::path rel = normal(base).lexically_relative(repo->top);
                if (!rel.empty() && *rel.begin() != "..") {
                    m_top = repo->top;
                    m_prefix = rel == "." ? "" : rel.generic_string();
                    if (!m_prefix.empty() && m_prefix.back() == '/') m_prefix.pop_back();
                    for (const auto& [file, text] : repo->global_ignores) m_ignore.add("", text);
                    if (!repo->tracked.empty()) {
                        auto tracked = std::make_shared<Tracked>();
                        for (const auto& path : repo->tracked) {
                            tracked->files.insert(path);
                            for (auto slash = path.rfind('/'); slash != std::string::npos && slash > 0; slash = path.rfind('/', slash - 1))
                                if (!tracked->dirs.insert(path.substr(0, slash)).second) break;
                        }
                        m_tracked = std::move(tracked);
                    }
                }
            }
        }
        if (!options.exclude.empty()) {
            std::string text;
            for (const auto& e : options.exclude) text += e + "\n";
            m_ignore.add(m_prefix, text);
            m_own_ignore.add(m_prefix, text);
        }
    }

    void visit_root(const fs::path& root) {
        std::error_code ec;
        const fs::path abs = fs::absolute(root, ec);
        const std::string rel = relative_of(abs);
        auto status = fs::status(abs, ec);
        if (ec || !fs::exists(status)) {
            m_result.skipped.push_back({rel.empty() ? root.generic_string() : rel, "does not exist or cannot be read"});
            return;
        }
        if (fs::is_directory(status)) {
            load_ignore_files_above(abs);
            visit_dir(abs, rel);
        } else if (!fs::is_regular_file(status)) {
            m_result.skipped.push_back({rel.empty() ? abs.filename().generic_string() : rel, "not a regular file; not opened"});
        } else {
            add_file(abs, rel.empty() ? abs.filename().generic_string() : rel, /*explicit_file=*/true);
            licensed_parents(rel);
        }
    }

    WalkResult take() { return std::move(m_result); }

    // While set, the subfolders of a root go here instead of being walked, for other threads.
    void defer_root_subfolders(std::vector<std::pair<fs::path, std::string>>* pending) { m_defer = pending; }
    // A walker for one deferred subfolder: the ignore rules so far, an empty result.
    Walker fork() const {
        Walker w(*this);
        w.m_result = WalkResult{};
        w.m_defer = nullptr;
        return w;
    }
    void visit_subfolder(const fs::path& dir, const std::string& rel) { visit_dir(dir, rel); }

private:
    // For a file given by name (`check`), the folders above it that hold a licence, up to the base.
    void licensed_parents(const std::string& rel) {
        if (rel.empty() || starts_with(rel, "/")) return;  // the base itself, or outside it
        for (fs::path dir = fs::path(rel).parent_path();; dir = dir.parent_path()) {
            if (!m_licence_looked.insert(dir.generic_string()).second) break;  // a file beside: looked from here up
            std::error_code ec;
            for (fs::directory_iterator it(m_base / dir, ec), end; !ec && it != end; it.increment(ec)) {
                if (!is_licence_file_name(it->path().filename().string()) || !it->is_regular_file(ec)) continue;
                m_result.licensed_dirs.push_back({dir.generic_string(), licence_digest(it->path())});
            }
            if (dir.empty()) break;
        }
    }

    std::string relative_of(const fs::path& abs) const {
        std::error_code ec;
        fs::path rel = fs::relative(abs, m_base, ec);
        if (ec || rel.empty() || rel == ".") return "";
        std::string s = rel.generic_string();
        if (starts_with(s, "..")) return abs.generic_string();
        return s;
    }

    // The path the ignore patterns see: relative to the work tree's top, not to the scan base.
    std::string ignore_path(const std::string& rel) const {
        return m_prefix.empty() ? rel : rel.empty() ? m_prefix : m_prefix + "/" + rel;
    }
    // A path git tracks (or a folder holding one) is ignored only by mpsport's own patterns
    // (.mpsportignore, --exclude): git's do not hold for what it tracks.
    bool ignored(const std::string& rel, bool is_dir) const {
        if (m_ignore.empty()) return false;
        const std::string path = ignore_path(rel);
        const bool tracked = m_tracked && (is_dir ? m_tracked->dirs.count(path) : m_tracked->files.count(path));
        if (tracked) return !m_own_ignore.empty() && m_own_ignore.is_ignored(path, is_dir);
        if (m_ignore.is_ignored(path, is_dir)) return true;
        // An untracked path below an ignored folder that is walked for the files git tracks in it. Only
        // tracked folders can be such: up from the path's folder while they are tracked (an untracked
        // folder was weighed so when the walk entered it, and its ancestors are all tracked).
        if (m_tracked)
            for (auto slash = path.rfind('/'); slash != std::string::npos && slash > 0; slash = path.rfind('/', slash - 1)) {
                const std::string dir = path.substr(0, slash);
                if (!m_tracked->dirs.count(dir)) break;
                if (m_ignore.is_ignored(dir, true)) return true;
            }
        return false;
    }

    // The .gitignore files of the folders from the work tree's top down to the scanned root.
    void load_ignore_files_above(const fs::path& dir) {
        if (!m_options.respect_gitignore) return;
        const fs::path from_top = normal(dir).lexically_relative(m_top);
        if (from_top.empty() || *from_top.begin() == "..") {  // a root outside the tree: its own files only
            load_ignore_file(dir, relative_of(dir));
            return;
        }
        fs::path p = m_top;
        std::string rel;
        load_ignore_file(p, rel, /*from_top=*/true);
        for (const auto& part : from_top) {
            if (part == ".") continue;
            p /= part;
            rel = rel.empty() ? part.generic_string() : rel + "/" + part.generic_string();
            load_ignore_file(p, rel, true);
        }
    }

    // `rel`: the folder relative to the scan base, or to the top when `from_top`.
    void load_ignore_file(const fs::path& dir, const std::string& base_rel, bool from_top = false) {
        if (!m_options.respect_gitignore) return;
        const std::string rel = from_top ? base_rel : ignore_path(base_rel);
        const std::string key = normal(dir).generic_string();
        if (!m_loaded.insert(key).second) return;
        for (const char* name : {".gitignore", ".mpsportignore"}) {
            std::error_code ec;
            const fs::path f = dir / name;
            if (!fs::is_regular_file(f, ec)) continue;
            try {
                const std::string text = read_file(f);
                m_ignore.add(rel, text);
                if (std::string_view(name) == ".mpsportignore") m_own_ignore.add(rel, text);
            } catch (const std::exception& e) {
                m_result.skipped.push_back({rel.empty() ? name : rel + "/" + name, std::string("ignore file unreadable: ") + e.what()});
            }
        }
    }

    void visit_dir(const fs::path& dir, const std::string& rel) {
        std::error_code ec;
        if (m_options.follow_symlinks) {
            const fs::path canonical = fs::canonical(dir, ec);
            if (!ec && !m_active.insert(canonical.generic_string()).second) {
                m_result.skipped.push_back({rel, "symbolic link loop: folder already being walked"});
                return;
            }
        }
        load_ignore_file(dir, rel);
        fs::directory_iterator it(dir, fs::directory_options::none, ec);
        if (ec) {
            m_result.skipped.push_back({rel.empty() ? "." : rel, "folder unreadable: " + ec.message()});
            return;
        }
        std::vector<fs::directory_entry> entries;
        for (; it != fs::directory_iterator(); it.increment(ec)) {
            if (ec) break;
            entries.push_back(*it);
        }
        std::sort(entries.begin(), entries.end(),
                  [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
        for (const auto& entry : entries) {
            const std::string name = entry.path().filename().string();
            const std::string child_rel = rel.empty() ? name : rel + "/" + name;
            const bool is_link = entry.is_symlink(ec);
            if (is_link && !m_options.follow_symlinks) {
                // Links are not followed, but one that can never resolve is named, not passed over in silence.
                std::error_code link_ec;
                (void)fs::status(entry.path(), link_ec);
                if (link_ec == std::errc::too_many_symbolic_link_levels)
                    m_result.skipped.push_back({child_rel, "symbolic link loop; not followed"});
                continue;
            }
            const bool is_dir = entry.is_directory(ec);
            if (is_link && ec) {
                std::error_code link_ec;
                (void)fs::status(entry.path(), link_ec);
                m_result.skipped.push_back({child_rel, link_ec == std::errc::too_many_symbolic_link_levels ? "symbolic link loop; not followed"
                                                                                                          : "broken symbolic link"});
                continue;
            }
            if (is_dir) {
                if (skip_dir(entry.path(), name, child_rel)) {
                    ++m_result.ignored_dirs;
                    continue;
                }
                if (m_defer) m_defer->emplace_back(entry.path(), child_rel);
                else visit_dir(entry.path(), child_rel);
            } else if (entry.is_regular_file(ec)) {
                if (ignored(child_rel, false)) continue;
                if (is_licence_file_name(name)) m_result.licensed_dirs.push_back({rel, licence_digest(entry.path())});
                add_file(entry.path(), child_rel, false);
            } else if (FileKind kind; classify_file(child_rel, kind) && !ignored(child_rel, false)) {
                // A FIFO or device named like a source file: opening it could block the scan forever.
                m_result.skipped.push_back({child_rel, std::string("not a regular file (") + special_file_type(entry, ec) + "); not opened"});
            }
        }
        if (m_options.follow_symlinks) {
            const fs::path canonical = fs::canonical(dir, ec);
            if (!ec) m_active.erase(canonical.generic_string());
        }
    }

    bool skip_dir(const fs::path& path, const std::string& name, const std::string& rel) const {
        if (std::find(kSkippedDirs.begin(), kSkippedDirs.end(), name) != kSkippedDirs.end()) return true;
        if (ends_with(name, ".egg-info")) return true;
        std::error_code ec;
        if (fs::exists(path / "pyvenv.cfg", ec)) return true;  // a virtualenv under any name
        return ignored(rel, true);
    }

    void add_file(const fs::path& path, const std::string& rel, bool explicit_file) {
        FileKind kind;
        if (!classify_file(rel, kind)) {
            if (explicit_file) m_result.skipped.push_back({rel, "not a file type mpsport reads"});
            return;
        }
        FileEntry entry{rel, path, kind, 0, 0};
        if (m_options.stat_files) {
            if (auto problem = stat_file(entry, m_options.max_file_size)) {
                m_result.skipped.push_back({rel, *problem});
                return;
            }
        }
        m_result.files.push_back(std::move(entry));
    }

    fs::path m_base;
    fs::path m_top;        // the git work tree's top, or the base outside one
    std::string m_prefix;  // the base relative to m_top ("" when they are the same)
    WalkOptions m_options;
    std::vector<std::pair<fs::path, std::string>>* m_defer = nullptr;
    IgnoreRules m_ignore;      // git's patterns and mpsport's own
    IgnoreRules m_own_ignore;  // .mpsportignore and --exclude alone
    struct Tracked {
        std::unordered_set<std::string> files, dirs;
    };
    std::shared_ptr<const Tracked> m_tracked;  // what git tracks, from the top; null outside a repository
    std::set<std::string> m_loaded;
    std::set<std::string> m_licence_looked;  // folders licensed_parents() has listed
    std::set<std::string> m_active;
    WalkResult m_result;
};

}  // namespace

std::string_view to_string(FileKind kind) {
    switch (kind) {
        case FileKind::python: return "python";
        case FileKind::notebook: return "notebook";
        case FileKind::requirements: return "requirements";
        case FileKind::pyproject: return "pyproject";
        case FileKind::conda_env: return "conda";
        case FileKind::setup_cfg: return "setup-cfg";
        case FileKind::setup_py: return "setup-py";
        case FileKind::dockerfile: return "dockerfile";
        case FileKind::shell: return "shell";
        case FileKind::cuda: return "cuda";
        case FileKind::cpp: return "cpp";
        case FileKind::makefile: return "makefile";
        case FileKind::cmake: return "cmake";
        case FileKind::markdown: return "markdown";
        case FileKind::checkpoint: return "checkpoint";
        case FileKind::config: return "config";
    }
    return "python";
}

std::optional<FileKind> parse_file_kind(std::string_view name) {
    for (FileKind k : {FileKind::python, FileKind::notebook, FileKind::requirements, FileKind::pyproject, FileKind::conda_env,
                       FileKind::setup_cfg, FileKind::setup_py, FileKind::dockerfile, FileKind::shell, FileKind::makefile,
                       FileKind::cmake, FileKind::markdown, FileKind::cuda, FileKind::cpp, FileKind::checkpoint, FileKind::config})
        if (to_string(k) == name) return k;
    return std::nullopt;
}

bool classify_file(std::string_view rel, FileKind& kind) {
    const std::size_t slash = rel.rfind('/');
    const std::string_view name = slash == std::string_view::npos ? rel : rel.substr(slash + 1);
    const std::string_view parent = slash == std::string_view::npos ? std::string_view() : rel.substr(0, slash);
    if (ends_with(name, ".py")) return kind = FileKind::python, true;
    if (ends_with(name, ".ipynb")) return kind = FileKind::notebook, true;
    if (name == "pyproject.toml") return kind = FileKind::pyproject, true;
    if (name == "setup.cfg") return kind = FileKind::setup_cfg, true;
    if (((name.find("requirements") != std::string_view::npos || starts_with(name, "constraints")) &&
         (ends_with(name, ".txt") || ends_with(name, ".in"))) ||
        (ends_with(parent, "requirements") && ends_with(name, ".txt")))
        return kind = FileKind::requirements, true;
    if ((starts_with(name, "environment") || starts_with(name, "conda")) && (ends_with(name, ".yml") || ends_with(name, ".yaml")))
        return kind = FileKind::conda_env, true;
    if (name == "Dockerfile" || starts_with(name, "Dockerfile.") || ends_with(name, ".Dockerfile") || ends_with(name, ".dockerfile"))
        return kind = FileKind::dockerfile, true;
    if (ends_with(name, ".sh") || ends_with(name, ".bash") || ends_with(name, ".slurm") || ends_with(name, ".sbatch"))
        return kind = FileKind::shell, true;
    if (ends_with(name, ".cu") || ends_with(name, ".cuh")) return kind = FileKind::cuda, true;
    if (name == "Makefile" || name == "makefile" || name == "GNUmakefile" || ends_with(name, ".mk")) return kind = FileKind::makefile, true;
    if (name == "CMakeLists.txt" || ends_with(name, ".cmake")) return kind = FileKind::cmake, true;
    // READMEs and docs name how a repository is run (`python train.py config/…`): entry points only.
    if (ends_with(name, ".md") || ends_with(name, ".rst")) return kind = FileKind::markdown, true;
    // .mm: Objective-C++, where an extension's MPS kernels register (read as C++: the registrations
    // parse, the Objective-C in function bodies is recovered from)
    if (ends_with(name, ".cpp") || ends_with(name, ".cc") || ends_with(name, ".cxx") || ends_with(name, ".hpp") || ends_with(name, ".h") ||
        ends_with(name, ".mm"))
        return kind = FileKind::cpp, true;
    if (ends_with(name, ".pt") || ends_with(name, ".pth") || ends_with(name, ".ckpt") || ends_with(name, ".bin") ||
        ends_with(name, ".safetensors"))
        return kind = FileKind::checkpoint, true;
    if (ends_with(name, ".yaml") || ends_with(name, ".yml") || ends_with(name, ".json") || ends_with(name, ".toml"))
        return kind = FileKind::config, true;
    return false;
}

bool is_licence_file_name(std::string_view name) {
    std::string lower(name.substr(0, 8));
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto stem_is = [&](std::string_view stem) {
        return starts_with(lower, stem) && (name.size() == stem.size() || name[stem.size()] == '.' || name[stem.size()] == '-' || name[stem.size()] == '_');
    };
    return stem_is("license") || stem_is("licence") || stem_is("copying");
}

std::uint64_t licence_digest(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return 0;
    std::string text(64 << 10, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    text.erase(std::remove_if(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); }), text.end());
    return fnv1a64(text);
}

std::optional<std::string> stat_file(FileEntry& file, std::uintmax_t max_file_size) {
    if (!size_and_mtime(file.absolute, file.size, file.mtime_ns)) return std::string("unreadable: ") + std::strerror(errno);
    if (file.size > max_file_size && file.kind != FileKind::checkpoint && file.kind != FileKind::config)
        return "oversized: " + std::to_string(file.size) + " bytes (limit " + std::to_string(max_file_size) + "; raise --max-file-size)";
    return std::nullopt;
}

WalkResult walk(const fs::path& base, const std::vector<fs::path>& roots, const WalkOptions& options) {
    Walker walker(fs::absolute(base), options);
    // The roots' own entries here; their subfolders on every core. Following symbolic links stays on
    // one thread, where loop detection sees the whole path from the root.
    std::vector<std::pair<fs::path, std::string>> pending;
    if (!options.follow_symlinks) walker.defer_root_subfolders(&pending);
    for (const auto& r : roots) walker.visit_root(r);
    walker.defer_root_subfolders(nullptr);
    const unsigned jobs = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(pending.size())));
    std::vector<WalkResult> parts(jobs);
    std::atomic<std::size_t> next{0};
    auto work = [&](std::size_t slot) {
        Walker sub = walker.fork();
        for (std::size_t i = next++; i < pending.size(); i = next++) sub.visit_subfolder(pending[i].first, pending[i].second);
        parts[slot] = sub.take();
    };
    if (!pending.empty()) parallel_for(jobs, work, jobs);  // one slot per thread, each a Walker fork
    WalkResult result = walker.take();
    for (auto& part : parts) {
        result.files.insert(result.files.end(), std::make_move_iterator(part.files.begin()), std::make_move_iterator(part.files.end()));
        result.skipped.insert(result.skipped.end(), part.skipped.begin(), part.skipped.end());
        result.ignored_dirs += part.ignored_dirs;
        result.licensed_dirs.insert(result.licensed_dirs.end(), part.licensed_dirs.begin(), part.licensed_dirs.end());
    }
    std::sort(result.licensed_dirs.begin(), result.licensed_dirs.end());
    result.licensed_dirs.erase(std::unique(result.licensed_dirs.begin(), result.licensed_dirs.end()), result.licensed_dirs.end());
    std::sort(result.files.begin(), result.files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    result.files.erase(std::unique(result.files.begin(), result.files.end(),
                                   [](const auto& a, const auto& b) { return a.path == b.path; }),
                       result.files.end());
    return result;
}

}  // namespace mpsport
