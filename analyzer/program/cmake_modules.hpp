// The Python modules a CMake project builds (pybind11_add_module, nanobind_add_module,
// Python_add_library, or add_library with pybind11_extension), as extensions of the program model:
// instant-ngp's `add_library(pyngp SHARED src/python_api.cu)` then `pybind11_extension(pyngp)`, which
// scripts/run.py imports as `import pyngp`. A module is CUDA when a source of its own, or of a target
// of the same file it links, is a .cu file.
#pragma once

#include <string_view>

#include "core/program_facts.hpp"

namespace mpsport::program {

// Appends to out.extensions one ExtensionFact per Python module the CMake file builds, at the line of
// the command that makes it a Python module; sources relative to the file's folder.
void cmake_module_facts(std::string_view text, FileFacts& out);

}  // namespace mpsport::program
