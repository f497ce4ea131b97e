// libFuzzer target: the scan cache's two readers, as a warm scan runs them on what is in the cache
// folder. The first byte picks the reader (even: the per-file entries of scan-*.bin, odd: the body of
// the scan memo); the rest is that body, past the header and checksum a real file carries. Any bytes
// must give an empty cache or no memo, never a crash or a sanitizer report.
#include <cstdint>
#include <string_view>

#include "analyzer/scan_cache.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
    if (data[0] % 2 == 0) {
        const mpsport::ScanCache cache = mpsport::ScanCache::parse_entries(body, 0);
        (void)cache.find("train.py");
    } else {
        (void)mpsport::ScanCache::parse_result(body);
    }
    return 0;
}
