#include "core/hash.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace mpsport {

std::uint64_t fnv1a64(std::string_view data) {
    std::uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : data) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return h;
}

// XXH3 (libxxhash, inlined: no library to link): about ten times the speed of a word-at-a-time
// mix on a warm scan's largest input, the kept report it checks before printing again.
std::uint64_t content_hash(std::string_view data) { return XXH3_64bits(data.data(), data.size()); }

std::string hex64(std::uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i) {
        out[static_cast<std::size_t>(i)] = digits[v & 0xF];
        v >>= 4;
    }
    return out;
}

}  // namespace mpsport
