// libFuzzer target: requirements*.txt parsing (PEP 508 lines, options, includes, markers).
#include <cstdint>
#include <string>

#include "analyzer/manifests/dependencies.hpp"
#include "core/source_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const mpsport::SourceText source(std::string(reinterpret_cast<const char*>(data), size));
    try {
        (void)mpsport::manifests::read_requirements(source);
    } catch (const std::runtime_error&) {
        // a malformed manifest is an error naming the line: expected
    }
    return 0;
}
