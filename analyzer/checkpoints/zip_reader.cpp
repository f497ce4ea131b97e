#include "analyzer/checkpoints/zip_reader.hpp"

#include <algorithm>

namespace mpsport::checkpoints {
namespace {

std::uint64_t le(const std::string& s, std::size_t at, std::size_t n) {
    if (at + n > s.size()) throw FormatError("zip record cut short");
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[at + i])) << (8 * i);
    return v;
}

constexpr std::uint32_t kEndOfDirectory = 0x06054b50;
constexpr std::uint32_t kZip64Locator = 0x07064b50;
constexpr std::uint32_t kZip64End = 0x06064b50;
constexpr std::uint32_t kDirectoryEntry = 0x02014b50;
constexpr std::uint32_t kLocalHeader = 0x04034b50;

}  // namespace

std::string ZipReader::read_at(std::uint64_t offset, std::uint64_t n) {
    if (offset > m_size || n > m_size - offset)
        throw FormatError("truncated zip archive: a record at byte " + std::to_string(offset) + " runs past the end of the file (" +
                          std::to_string(m_size) + " bytes)");
    std::string buf(static_cast<std::size_t>(n), '\0');
    m_in.clear();
    m_in.seekg(static_cast<std::streamoff>(offset));
    m_in.read(buf.data(), static_cast<std::streamsize>(n));
    if (static_cast<std::uint64_t>(m_in.gcount()) != n) throw FormatError("read error at byte " + std::to_string(offset));
    return buf;
}

ZipReader::ZipReader(std::ifstream& in, std::uint64_t file_size, std::uint64_t max_directory_bytes) : m_in(in), m_size(file_size) {
    const std::uint64_t tail_size = std::min<std::uint64_t>(m_size, 22 + 65535);
    const std::string tail = read_at(m_size - tail_size, tail_size);
    std::size_t eocd = std::string::npos;
    for (std::size_t i = tail.size() >= 22 ? tail.size() - 22 + 1 : 0; i-- > 0;)
        if (le(tail, i, 4) == kEndOfDirectory) {
            eocd = i;
            break;
        }
    if (eocd == std::string::npos)
        throw FormatError("truncated zip archive: no end-of-central-directory record (the copy or download was cut short?)");
    std::uint64_t count = le(tail, eocd + 10, 2);
    std::uint64_t dir_size = le(tail, eocd + 12, 4);
    std::uint64_t dir_offset = le(tail, eocd + 16, 4);
    if (count == 0xFFFF || dir_size == 0xFFFFFFFF || dir_offset == 0xFFFFFFFF) {
        const std::uint64_t eocd_abs = m_size - tail_size + eocd;
        if (eocd_abs < 20) throw FormatError("zip64 archive without its locator");
        const std::string locator = read_at(eocd_abs - 20, 20);
        if (le(locator, 0, 4) != kZip64Locator) throw FormatError("zip64 archive without its locator");
        const std::string end64 = read_at(le(locator, 8, 8), 56);
        if (le(end64, 0, 4) != kZip64End) throw FormatError("zip64 end record not where its locator says");
        count = le(end64, 32, 8);
        dir_size = le(end64, 40, 8);
        dir_offset = le(end64, 48, 8);
    }
    if (dir_size > max_directory_bytes)
        throw FormatError("zip central directory of " + std::to_string(dir_size) + " bytes is over the header limit");
    const std::string dir = read_at(dir_offset, dir_size);
    std::size_t at = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
        if (le(dir, at, 4) != kDirectoryEntry) throw FormatError("corrupt zip central directory at entry " + std::to_string(i));
        ZipEntry e;
        e.method = static_cast<std::uint16_t>(le(dir, at + 10, 2));
        e.compressed_size = le(dir, at + 20, 4);
        e.size = le(dir, at + 24, 4);
        const std::size_t name_len = le(dir, at + 28, 2);
        const std::size_t extra_len = le(dir, at + 30, 2);
        const std::size_t comment_len = le(dir, at + 32, 2);
        e.local_header_offset = le(dir, at + 42, 4);
        if (at + 46 + name_len > dir.size()) throw FormatError("corrupt zip central directory: a name runs past its end");
        e.name = dir.substr(at + 46, name_len);
        // zip64 extra field: the 0xFFFFFFFF fields, in order.
        for (std::size_t x = at + 46 + name_len; x + 4 <= at + 46 + name_len + extra_len;) {
            const std::uint64_t id = le(dir, x, 2);
            const std::uint64_t len = le(dir, x + 2, 2);
            if (id == 1) {
                std::size_t f = x + 4;
                if (e.size == 0xFFFFFFFF) e.size = le(dir, f, 8), f += 8;
                if (e.compressed_size == 0xFFFFFFFF) e.compressed_size = le(dir, f, 8), f += 8;
                if (e.local_header_offset == 0xFFFFFFFF) e.local_header_offset = le(dir, f, 8);
            }
            x += 4 + len;
        }
        m_entries.push_back(std::move(e));
        at += 46 + name_len + extra_len + comment_len;
    }
}

std::uint64_t ZipReader::data_offset(const ZipEntry& entry) {
    const std::string header = read_at(entry.local_header_offset, 30);
    if (le(header, 0, 4) != kLocalHeader) throw FormatError("zip entry " + entry.name + ": no local header where the directory says");
    return entry.local_header_offset + 30 + le(header, 26, 2) + le(header, 28, 2);
}

bool ZipReader::complete(const ZipEntry& entry) {
    try {
        const std::uint64_t offset = data_offset(entry);
        return offset <= m_size && entry.compressed_size <= m_size - offset;
    } catch (const FormatError&) {
        return false;
    }
}

std::string ZipReader::read(const ZipEntry& entry, std::uint64_t limit) {
    if (entry.method != 0)
        throw FormatError("zip entry " + entry.name + " is compressed (method " + std::to_string(entry.method) +
                          "); torch.save stores entries uncompressed");
    if (entry.size > limit)
        throw FormatError("zip entry " + entry.name + " is " + std::to_string(entry.size) + " bytes, over the header limit of " +
                          std::to_string(limit) + " (raise --checkpoint-header-limit)");
    return read_at(data_offset(entry), entry.size);
}

}  // namespace mpsport::checkpoints
