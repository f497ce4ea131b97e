#include "core/paths.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

namespace fs = std::filesystem;

namespace mpsport {

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path.generic_string() + ": cannot open (" + std::strerror(errno) + ")");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_file_atomically(const fs::path& path, std::string_view data) {
    std::error_code ec;
    if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) {
        // /dev/stdout, a named pipe: renaming over it would replace the device, so write through it.
        std::ofstream out(path, std::ios::binary);
        out.write(data.data(), static_cast<std::streamsize>(data.size()));
        if (!out) throw std::runtime_error(path.generic_string() + ": write failed");
        return;
    }
    const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
    fs::create_directories(parent, ec);
    fs::path tmp = path;
    tmp += ".tmp-mpsport";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error(tmp.generic_string() + ": cannot write (" + std::strerror(errno) + ")");
        out.write(data.data(), static_cast<std::streamsize>(data.size()));
        if (!out) throw std::runtime_error(tmp.generic_string() + ": write failed (disk full?)");
    }
    fs::rename(tmp, path, ec);
    if (ec) throw std::runtime_error(path.generic_string() + ": cannot replace (" + ec.message() + ")");
}

fs::path executable_dir() {
#if defined(__linux__)
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) return self.parent_path();
#elif defined(__APPLE__)
    char buf[4096];
    uint32_t size = sizeof(buf);
    if (_NSGetExecutablePath(buf, &size) == 0) return fs::path(buf).parent_path();
#endif
    return fs::current_path();
}

fs::path source_dir() { return fs::path(MPSPORT_SOURCE_DIR); }

}  // namespace mpsport
