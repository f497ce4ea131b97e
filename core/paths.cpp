#include "core/paths.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif
#if defined(__linux__)
#include <elf.h>
#include <link.h>
#endif

namespace fs = std::filesystem;

namespace mpsport {

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path.generic_string() + ": cannot open (" + std::strerror(errno) + ")");
    // One read into a buffer of the file's size (a stringstream copies twice and grows as it goes);
    // a file that grows meanwhile, or a pipe, is read on to its end.
    std::string out;
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (!ec && size > 0) {
        out.resize(static_cast<std::size_t>(size));
        in.read(out.data(), static_cast<std::streamsize>(size));
        out.resize(static_cast<std::size_t>(in.gcount()));
        if (static_cast<std::uintmax_t>(in.gcount()) < size) return out;
    }
    char buf[65536];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) out.append(buf, static_cast<std::size_t>(in.gcount()));
    return out;
}

MappedFile::MappedFile(const fs::path& path) {
#if defined(__unix__) || defined(__APPLE__)
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error(path.generic_string() + ": cannot open (" + std::strerror(errno) + ")");
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        void* map = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED) {
            m_map = map;
            m_size = static_cast<std::size_t>(st.st_size);
        }
    }
    ::close(fd);
    if (m_map) return;
#endif
    m_read = read_file(path);  // empty, a pipe, or a system that cannot map it
}

MappedFile::~MappedFile() {
#if defined(__unix__) || defined(__APPLE__)
    if (m_map) ::munmap(m_map, m_size);
#endif
}

namespace {

long current_pid() {
#if defined(__unix__) || defined(__APPLE__)
    return static_cast<long>(::getpid());
#else
    return 0;
#endif
}

#if defined(__linux__)
// The GNU build id of the main program (a hash of its contents the linker writes into a note).
int find_build_id(struct dl_phdr_info* info, size_t, void* out) {
    auto& id = *static_cast<std::string*>(out);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_NOTE) continue;
        const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
        const char* end = p + ph.p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
            const char* name = p + sizeof(ElfW(Nhdr));
            const char* desc = name + ((note->n_namesz + 3) & ~3u);
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
                static const char* digits = "0123456789abcdef";
                for (unsigned k = 0; k < note->n_descsz; ++k) {
                    const auto b = static_cast<unsigned char>(desc[k]);
                    id.push_back(digits[b >> 4]);
                    id.push_back(digits[b & 15]);
                }
                return 1;
            }
            p = desc + ((note->n_descsz + 3) & ~3u);
        }
    }
    return 1;  // only the first object: the main program
}
#endif

}  // namespace

std::string build_identity() {
    static const std::string identity = [] {
        std::string id;
#if defined(__linux__)
        dl_iterate_phdr(find_build_id, &id);
#endif
        if (!id.empty()) return "build-id:" + id;
        // No build id: the executable's size and modification time stand for its contents.
        std::error_code ec;
        const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
        std::string fallback = "exe:" + exe.generic_string();
        if (!ec) fallback += ":" + std::to_string(fs::file_size(exe, ec)) + "@" + std::to_string(fs::last_write_time(exe, ec).time_since_epoch().count());
        return fallback;
    }();
    return identity;
}

bool matches_any_glob(const std::vector<std::string>& globs, std::string_view name) {
    const std::string n(name);
    return std::any_of(globs.begin(), globs.end(), [&](const std::string& g) { return fnmatch(g.c_str(), n.c_str(), 0) == 0; });
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
    // A name of this process and call: two mpsport processes writing the same file (a shared
    // cache) must never write into one temporary file.
    static std::atomic<unsigned> counter{0};
    fs::path tmp = path;
    tmp += ".tmp-mpsport-" + std::to_string(current_pid()) + "-" + std::to_string(counter++);
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

std::string normalise_relative(const std::string& path) {
    std::vector<std::string> parts;
    std::size_t pos = 0;
    while (pos <= path.size()) {
        std::size_t next = path.find('/', pos);
        if (next == std::string::npos) next = path.size();
        const std::string part = path.substr(pos, next - pos);
        if (part == "..") {
            if (parts.empty()) return {};
            parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        pos = next + 1;
    }
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
    return out;
}

}  // namespace mpsport
