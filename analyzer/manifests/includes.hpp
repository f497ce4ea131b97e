// `-r other.txt` / `-c constraints.txt` in requirements files: the files they name are scanned too,
// whatever their names, each once. Cycles and missing targets are listed as skipped, never followed.
#pragma once

#include <filesystem>

#include "core/walker.hpp"

namespace mpsport::manifests {

void follow_requirement_includes(const std::filesystem::path& base, WalkResult& walked);

}  // namespace mpsport::manifests
