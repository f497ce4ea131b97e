#include "analyzer/scan_cache.hpp"

#include <cstring>

#include "core/hash.hpp"
#include "core/paths.hpp"

namespace fs = std::filesystem;

namespace mpsport {
namespace {

constexpr const char* kFile = "scan-cache.bin";
constexpr std::uint32_t kMagic = 0x4d505343;  // "MPSC"
constexpr std::uint32_t kFormat = 2;

// A flat little binary format: loading it is most of a warm scan, and a JSON/msgpack DOM of every
// finding costs several times more than reading the fields straight into place.
class Writer {
public:
    void u64(std::uint64_t v) { m_out.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
    void str(const std::string& s) {
        u64(s.size());
        m_out += s;
    }
    const std::string& bytes() const { return m_out; }

private:
    std::string m_out;
};

class Reader {
public:
    explicit Reader(std::string_view in) : m_in(in) {}
    std::uint64_t u64() {
        need(8);
        std::uint64_t v;
        std::memcpy(&v, m_in.data() + m_pos, 8);
        m_pos += 8;
        return v;
    }
    std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
    std::string str() {
        const std::uint64_t n = u64();
        need(n);
        std::string s(m_in.substr(m_pos, n));
        m_pos += n;
        return s;
    }
    bool done() const { return m_pos == m_in.size(); }

private:
    void need(std::uint64_t n) const {
        if (n > m_in.size() - m_pos) throw std::runtime_error("truncated cache");
    }
    std::string_view m_in;
    std::size_t m_pos = 0;
};

void write_finding(Writer& w, const Finding& f) {
    w.str(f.rule_id);
    w.u64(static_cast<std::uint64_t>(f.severity));
    w.str(f.category);
    w.u64(static_cast<std::uint64_t>(f.impact));
    w.str(f.location.path);
    for (int v : {f.location.line, f.location.col, f.location.end_line, f.location.end_col, f.location.cell}) w.i64(v);
    w.str(f.snippet);
    w.str(f.matched);
    w.str(f.message);
    w.str(f.fix);
    w.str(f.source);
    w.str(f.note);
}

Finding read_finding(Reader& r) {
    Finding f;
    f.rule_id = r.str();
    f.severity = static_cast<Severity>(r.u64());
    f.category = r.str();
    f.impact = static_cast<VerdictImpact>(r.u64());
    f.location.path = r.str();
    for (int* v : {&f.location.line, &f.location.col, &f.location.end_line, &f.location.end_col, &f.location.cell})
        *v = static_cast<int>(r.i64());
    f.snippet = r.str();
    f.matched = r.str();
    f.message = r.str();
    f.fix = r.str();
    f.source = r.str();
    f.note = r.str();
    return f;
}

}  // namespace

ScanCache ScanCache::load(const fs::path& dir, std::uint64_t key) {
    ScanCache cache(key);
    std::error_code ec;
    if (!fs::exists(dir / kFile, ec)) return cache;
    try {
        const std::string bytes = read_file(dir / kFile);
        Reader r(bytes);
        if (r.u64() != kMagic || r.u64() != kFormat || r.u64() != key) return cache;
        for (std::uint64_t files = r.u64(); files > 0; --files) {
            std::string path = r.str();
            Entry e;
            e.size = r.u64();
            e.mtime_ns = r.i64();
            e.hash = r.u64();
            e.outcome.lines = r.u64();
            if (r.u64()) e.outcome.skip_reason = r.str();
            for (std::uint64_t n = r.u64(); n > 0; --n) e.outcome.findings.push_back(read_finding(r));
            cache.m_entries.emplace(std::move(path), std::move(e));
        }
        if (!r.done()) throw std::runtime_error("trailing bytes");
    } catch (const std::exception&) {
        cache.m_entries.clear();  // corrupt or from another version: start cold
    }
    return cache;
}

void ScanCache::save(const fs::path& dir) const {
    Writer w;
    w.u64(kMagic);
    w.u64(kFormat);
    w.u64(m_key);
    w.u64(m_entries.size());
    for (const auto& [path, e] : m_entries) {
        w.str(path);
        w.u64(e.size);
        w.i64(e.mtime_ns);
        w.u64(e.hash);
        w.u64(e.outcome.lines);
        w.u64(e.outcome.skip_reason ? 1 : 0);
        if (e.outcome.skip_reason) w.str(*e.outcome.skip_reason);
        w.u64(e.outcome.findings.size());
        for (const auto& f : e.outcome.findings) write_finding(w, f);
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    // Like other tools' caches: ignore ourselves so the cache never shows up in `git status`.
    if (!fs::exists(dir / ".gitignore", ec)) write_file_atomically(dir / ".gitignore", "# created by mpsport\n*\n");
    write_file_atomically(dir / kFile, w.bytes());
}

const ScanCache::Entry* ScanCache::find(const std::string& path) const {
    auto it = m_entries.find(path);
    return it == m_entries.end() ? nullptr : &it->second;
}

void ScanCache::put(const std::string& path, Entry entry) { m_entries[path] = std::move(entry); }

}  // namespace mpsport
