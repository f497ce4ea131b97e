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
};

// Fills size and mtime; returns why the file must be skipped (unreadable, oversized), or nullopt.
// Checkpoints have no size limit here: only their headers are read (checkpoints::Limits); nor
// config files, which are read only when Python code names them (the limit applies then).
std::optional<std::string> stat_file(FileEntry& file, std::uintmax_t max_file_size);

// `roots` may name folders or files; paths in the result are relative to `base`.
WalkResult walk(const std::filesystem::path& base, const std::vector<std::filesystem::path>& roots,
                const WalkOptions& options);

}  // namespace mpsport
