// The header Clang reads before every translation unit, in place of the CUDA toolkit and torch.
#pragma once

#include <string_view>

namespace mpsport::cuda {

std::string_view shim_header();

}  // namespace mpsport::cuda
