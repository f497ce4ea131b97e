#include <cuda.h>

CUfunction load(const char* ptx, const char* name) {
    CUmodule module;
    CUfunction fn;
    // ruleid: cuda-driver-api
    cuInit(0);
    // ruleid: cuda-driver-api
    cuModuleLoadData(&module, ptx);
    // ruleid: cuda-driver-api
    cuModuleGetFunction(&fn, module, name);
    // ok: cuda-driver-api
    int cuda_device_count = 0;
    return cuda_device_count ? fn : nullptr;
}
