// libFuzzer target: Jupyter notebook JSON to Python text with the cell/line map.
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "analyzer/notebooks/notebook.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const auto nb = mpsport::notebooks::notebook_to_python(std::string_view(reinterpret_cast<const char*>(data), size));
        (void)nb;
    } catch (const std::runtime_error&) {
        // not a notebook: the scan lists it as skipped with this reason
    }
    return 0;
}
