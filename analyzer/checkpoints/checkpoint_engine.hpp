// Rules over checkpoint files (engine: checkpoint): what read_checkpoint() found, turned into
// findings. A file that cannot be read throws FormatError; the scan lists it as skipped.
#pragma once

#include <string>
#include <vector>

#include "analyzer/checkpoints/checkpoint.hpp"
#include "core/finding.hpp"
#include "core/rule_catalogue.hpp"
#include "core/walker.hpp"

namespace mpsport::checkpoints {

// What a checkpoint rule checks (its `checkpoint.check`).
enum class Check {
    contents,         // info: format, tensor count, dtypes with bytes, devices, total size
    cuda_storage,     // storages saved on a CUDA device: torch.load needs map_location on a Mac
    float64,          // float64 / complex128 tensors: MPS has neither
    unknown_globals,  // pickled classes and functions outside torch / numpy / the stdlib containers
};

class CheckpointEngine {
public:
    explicit CheckpointEngine(const RuleCatalogue& catalogue);
    std::vector<Finding> analyze(const FileEntry& file, const Limits& limits) const;
    bool active() const { return !m_rules.empty(); }

private:
    std::vector<std::pair<const Rule*, Check>> m_rules;
};

// "44.6 MB", "1.2 kB", "512 B"
std::string human_bytes(std::uint64_t n);

}  // namespace mpsport::checkpoints
