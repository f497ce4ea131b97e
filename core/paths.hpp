// File-system helpers shared by every layer.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mpsport {

// Reads a whole file; throws std::runtime_error naming the file when it cannot.
std::string read_file(const std::filesystem::path& path);
// A whole file's bytes, mapped read-only where the system can map it (no copy, nothing zeroed: a
// warm scan prints a kept report of megabytes straight from here), read into memory otherwise.
// Throws as read_file does. The bytes stay valid while the object lives.
class MappedFile {
public:
    explicit MappedFile(const std::filesystem::path& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    std::string_view bytes() const { return m_map ? std::string_view(static_cast<const char*>(m_map), m_size) : std::string_view(m_read); }

private:
    void* m_map = nullptr;
    std::size_t m_size = 0;
    std::string m_read;
};
// A path relative to the repository with "." and ".." resolved ("a/./b/../c" -> "a/c"); empty when
// it leaves the repository.
std::string normalise_relative(const std::string& path);
// Whether `name` (a file name, a function's name) matches one of the shell globs (`test_*.py`,
// `is_*_available`): fnmatch, no path rules.
bool matches_any_glob(const std::vector<std::string>& globs, std::string_view name);
// Writes through a temporary file and a rename, so a reader never sees half a report.
void write_file_atomically(const std::filesystem::path& path, std::string_view data);
// What identifies the running build beyond its version string: the executable's GNU build id
// (a hash of its contents), else the sizes and times of the files beside it. Part of cache keys.
std::string build_identity();
// The folder holding the running executable (falls back to the current folder).
std::filesystem::path executable_dir();
// The repository's source folder as configured at build time (for bundled rules and corpus).
std::filesystem::path source_dir();

}  // namespace mpsport
