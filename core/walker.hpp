// Finds the files a scan reads: gitignore-aware, skips vendored/virtualenv/build folders,
// and reports every file it had to pass over with the reason.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mpsport {

// setup_py is never produced by the walker (setup.py is python to it): it is the kind the manifest
// rules read setup.py as (see manifests::manifest_kind).
enum class FileKind { python, notebook, requirements, pyproject, conda_env, setup_cfg, setup_py, dockerfile, shell, makefile, markdown, cuda, cpp, checkpoint, config, cmake };

std::string_view to_string(FileKind kind);
std::optional<FileKind> parse_file_kind(std::string_view name);
// Classifies by name; returns false for files no engine reads.
bool classify_file(std::string_view relative_path, FileKind& kind);

struct FileEntry {
    std::string path;  // relative to the root, '/' separated (the file name itself for a single-file root)
    std::filesystem::path absolute;
    FileKind kind = FileKind::python;
    std::uintmax_t size = 0;
    std::int64_t mtime_ns = 0;
};

struct SkippedFile {
    std::string path;
    std::string reason;
};

struct LicensedDir {
    std::string dir;
    std::uint64_t licence = 0;  // digest of the licence text without its white space (licence_digest)
    bool operator<(const LicensedDir& o) const { return dir < o.dir || (dir == o.dir && licence < o.licence); }
    bool operator==(const LicensedDir& o) const { return dir == o.dir && licence == o.licence; }
};

struct WalkOptions {
    bool respect_gitignore = true;
    bool follow_symlinks = false;
    std::uintmax_t max_file_size = 4u << 20;
    std::vector<std::string> exclude;  // extra gitignore-style patterns (--exclude)
    // false: leave size and mtime for the caller to fill with stat_file(), e.g. on several threads.
    bool stat_files = true;
};

struct WalkResult {
    std::vector<FileEntry> files;
    std::vector<SkippedFile> skipped;
    std::size_t ignored_dirs = 0;  // by .gitignore or the built-in list: expected, not reported one by one
    // Folders that hold a licence file (LICENSE*, LICENCE*, COPYING*), "" for the base: the roots of
    // projects, for the program model (a folder inside another project, under another licence, is
    // vendored code). Sorted by folder. For a file given by name, its parent folders up to the base
    // are looked at.
    std::vector<LicensedDir> licensed_dirs;
};

// Whether a file name is a licence's (LICENSE, LICENSE.txt, Licence.md, COPYING, ...).
bool is_licence_file_name(std::string_view name);
// The digest of a licence file's first 64 KB without white space (a copy indented differently is the
// same licence); 0 when it cannot be read.
std::uint64_t licence_digest(const std::filesystem::path& file);

// Fills size and mtime; returns why the file must be skipped (unreadable, oversized), or nullopt.
// Checkpoints have no size limit here: only their headers are read (checkpoints::Limits); nor
// config files, which are read only when Python code names them (the limit applies then).
std::optional<std::string> stat_file(FileEntry& file, std::uintmax_t max_file_size);

// `roots` may name folders or files; paths in the result are relative to `base`.
WalkResult walk(const std::filesystem::path& base, const std::vector<std::filesystem::path>& roots,
                const WalkOptions& options);

}  // namespace mpsport
