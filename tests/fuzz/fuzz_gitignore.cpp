// libFuzzer target: .gitignore patterns (first part of the input) matched against paths (the rest,
// one per line), as the walker does for every file and folder.
#include <cstdint>
#include <string_view>

#include "core/gitignore.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view in(reinterpret_cast<const char*>(data), size);
    const std::size_t split = in.find('\0');
    mpsport::IgnoreRules rules;
    rules.add("", in.substr(0, split));
    rules.add("sub/dir", in.substr(0, split));
    if (split == std::string_view::npos) return 0;
    std::string_view paths = in.substr(split + 1);
    while (!paths.empty()) {
        const std::size_t nl = paths.find('\n');
        const std::string_view p = paths.substr(0, nl);
        (void)rules.is_ignored(p, false);
        (void)rules.is_ignored(p, true);
        (void)mpsport::glob_match(in.substr(0, std::min<std::size_t>(split, 64)), p);
        if (nl == std::string_view::npos) break;
        paths.remove_prefix(nl + 1);
    }
    return 0;
}
