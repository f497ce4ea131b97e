// Loads the kernels precompiled for the lab's A100s at import time, to skip the JIT on the cluster.
#include <cuda.h>

#include <stdexcept>
#include <string>

static CUfunction cached_kernel = nullptr;

CUfunction load_cached_kernel(const std::string& ptx, const char* name) {
    if (cached_kernel) return cached_kernel;
    CUmodule module;
    cuInit(0);
    if (cuModuleLoadData(&module, ptx.c_str()) != 0) throw std::runtime_error("cannot load the cached PTX");
    cuModuleGetFunction(&cached_kernel, module, name);
    return cached_kernel;
}
