// libFuzzer target: a checkpoint file (zip + pickle, legacy pickle, safetensors) read from its
// headers. Anything malformed must be a FormatError with a reason, never a crash or a huge read.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "analyzer/checkpoints/checkpoint.hpp"
#include "analyzer/checkpoints/zip_reader.hpp"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const fs::path file = fs::temp_directory_path() / ("mpsport-fuzz-" + std::to_string(::getpid()) + ".pt");
    std::ofstream(file, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    mpsport::checkpoints::Limits limits;
    limits.header_bytes = 1 << 20;
    try {
        (void)mpsport::checkpoints::read_checkpoint(file, limits);
    } catch (const mpsport::checkpoints::FormatError&) {
    }
    return 0;
}
