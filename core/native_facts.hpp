// What the C++/CUDA engine learns about a compiled extension, for the program model to join with the
// Python side: `CUDAExtension(name=..., sources=[...])` in setup.py and the imports that load it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/finding.hpp"

namespace mpsport {

// The device paths an op can have. Composite: written with other PyTorch ops (a catch-all
// `m.def("op", fn)`, CompositeImplicitAutograd / CompositeExplicitAutograd, or a binding that calls
// no kernel of its own), so it runs wherever PyTorch runs.
enum class NativeDevice { CUDA, CPU, MPS, Composite };
inline std::string_view to_string(NativeDevice d) {
    switch (d) {
        case NativeDevice::CUDA: return "CUDA";
        case NativeDevice::CPU: return "CPU";
        case NativeDevice::MPS: return "MPS";
        case NativeDevice::Composite: return "Composite";
    }
    return "?";
}

// One op or binding a native module exports.
struct NativeOp {
    // `ns::op` for TORCH_LIBRARY / TORCH_LIBRARY_IMPL ops, the Python name for a PYBIND11_MODULE m.def.
    std::string name;
    // Sorted, unique. CUDA alone: the op cannot run on a Mac (stay-on-CUDA if the model needs it).
    // Empty: not determined (the binding dispatches through a registry or calls functions no
    // scanned file defines); no finding is made for it.
    std::vector<NativeDevice> devices;
    Location location;  // the m.def / first registration of the op
};

// One native module: a PYBIND11_MODULE, or the TORCH_LIBRARY namespace of a set of sources.
struct NativeModule {
    std::string source_path;  // the file holding PYBIND11_MODULE / TORCH_LIBRARY, relative to the root
    // The PYBIND11_MODULE name as written (often the macro TORCH_EXTENSION_NAME, which setup.py's
    // CUDAExtension(name=...) fills in), or "torch.ops.<ns>" for a TORCH_LIBRARY namespace.
    std::string module_name;
    std::vector<NativeOp> ops;
};

}  // namespace mpsport
