// Small non-cryptographic hashes for fingerprints and the content cache.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mpsport {

std::uint64_t fnv1a64(std::string_view data);
// Fast 64-bit hash of file contents (XXH3); stable across runs and platforms.
std::uint64_t content_hash(std::string_view data);
std::string hex64(std::uint64_t v);

}  // namespace mpsport
