// Just enough of the zip format to read a torch.save archive without loading it: the central
// directory (zip64 included) and the bytes of one stored (uncompressed) entry.
#pragma once

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace mpsport::checkpoints {

class FormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ZipEntry {
    std::string name;
    std::uint16_t method = 0;  // 0: stored
    std::uint64_t compressed_size = 0;
    std::uint64_t size = 0;
    std::uint64_t local_header_offset = 0;
};

class ZipReader {
public:
    // Throws FormatError ("truncated zip archive: ...") when the central directory is missing or
    // points past the end of the file.
    ZipReader(std::ifstream& in, std::uint64_t file_size, std::uint64_t max_directory_bytes);
    const std::vector<ZipEntry>& entries() const { return m_entries; }
    // The bytes of a stored entry; FormatError if it is compressed, truncated or over `limit`.
    std::string read(const ZipEntry& entry, std::uint64_t limit);
    // Whether the entry's data lies inside the file (a cut-off download fails this).
    bool complete(const ZipEntry& entry);

private:
    std::string read_at(std::uint64_t offset, std::uint64_t n);
    std::uint64_t data_offset(const ZipEntry& entry);

    std::ifstream& m_in;
    std::uint64_t m_size;
    std::vector<ZipEntry> m_entries;
};

}  // namespace mpsport::checkpoints
