// Built when LibTorch was not found (or MPSPORT_WITH_TORCH=OFF): the native path says so plainly.
#include <stdexcept>

#include "auditor/native_step.hpp"

namespace mpsport {

bool native_step_available() { return false; }

nlohmann::json run_native_step(const NativeStepOptions&) {
    throw std::runtime_error("this mpsport was built without LibTorch; rebuild with -DCMAKE_PREFIX_PATH=<torch cmake prefix> "
                             "to use --torchscript (the Python audit works without it)");
}

std::string doctor_report() {
    return "mpsport was built without LibTorch: `doctor` needs it. Rebuild with LibTorch "
           "(Debian: libtorch-dev; pip torch: -DCMAKE_PREFIX_PATH=$(python3 -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')).\n";
}

}  // namespace mpsport
