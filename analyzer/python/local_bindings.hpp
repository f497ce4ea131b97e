// What a local name may hold, from the simple assignments `name = value` in its scope (the
// enclosing function's body, or the module): detectron2's `extension = CppExtension` then, under
// `if CUDA_HOME ...:`, `extension = CUDAExtension`, and later `extension("detectron2._C", ...)`. A
// conditional expression (`CUDAExtension if cuda else CppExtension`) gives both values, as conditional.
#pragma once

#include <string>
#include <vector>

#include "analyzer/python/syntax.hpp"

namespace mpsport::python {

struct Binding {
    TSNode value;
    std::string qualname;      // of the value, resolved through the file's imports ("" if not a dotted name)
    bool conditional = false;  // the assignment sits under an if / try / loop within the scope
};

// The values a plain identifier may hold where `use` reads it: every simple assignment to that name
// in the scope of `use` (nested functions and classes excluded), in document order. Empty if `use`
// is not an identifier or the scope never assigns it.
std::vector<Binding> bindings_of(TSNode use, const ModuleFacts& facts);

}  // namespace mpsport::python
