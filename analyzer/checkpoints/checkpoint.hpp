// What a checkpoint file holds, read from its headers only (the zip directory and data.pkl of a
// torch.save archive, the pickles at the front of a legacy file, a safetensors JSON header) without
// executing or importing anything.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace mpsport::checkpoints {

enum class Format { torch_zip, torchscript_zip, torch_legacy, plain_pickle, safetensors };
std::string_view to_string(Format f);

struct Limits {
    // The most bytes read from any one header (zip directory, data.pkl, legacy pickles, safetensors
    // JSON). Tensor data is never read.
    std::uint64_t header_bytes = 64u << 20;
};

struct Storage {
    std::string key;
    std::string dtype;     // float32, float64, complex128, ...
    std::uint64_t bytes = 0;
    std::string location;  // cpu, cuda:0, mps (safetensors: empty)
};

struct Summary {
    Format format = Format::torch_zip;
    std::uint64_t file_size = 0;
    std::size_t tensors = 0;
    std::vector<Storage> storages;  // one per distinct storage
    std::vector<std::string> unknown_globals;  // classes and functions outside torch / numpy / the stdlib containers
    std::size_t missing_storages = 0;  // listed in data.pkl but absent or cut off in the archive

    std::uint64_t total_bytes() const;
    std::map<std::string, std::uint64_t> bytes_by_dtype() const;
    std::map<std::string, std::uint64_t> bytes_by_location() const;
};

// Throws FormatError with the reason a file is not a readable checkpoint (garbage, truncated, over
// the header limit): the scan lists it as skipped with that reason.
Summary read_checkpoint(const std::filesystem::path& path, const Limits& limits);

}  // namespace mpsport::checkpoints
