// Is a match inside code that first checks which accelerator exists? Such code is not lock-in:
// `"cuda" if torch.cuda.is_available() else "cpu"` runs on a Mac (on the CPU), and anything under
// `if torch.backends.mps.is_available():` already knows about MPS.
#pragma once

#include <string>

#include "analyzer/python/syntax.hpp"

namespace mpsport::python {

enum class GuardKind { none, cuda_check, mps_aware };

struct Guard {
    GuardKind kind = GuardKind::none;
    std::string note;
};

Guard availability_guard(TSNode node, const ModuleFacts& facts);

}  // namespace mpsport::python
