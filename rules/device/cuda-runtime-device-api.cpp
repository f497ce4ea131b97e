#include <cuda_runtime.h>

int pick_device() {
    int count = 0;
    // ruleid: cuda-runtime-device-api
    cudaGetDeviceCount(&count);
    cudaDeviceProp prop;
    // ruleid: cuda-runtime-device-api
    cudaGetDeviceProperties(&prop, 0);
    // ruleid: cuda-runtime-device-api
    cudaSetDevice(count - 1);
    // ruleid: cuda-runtime-device-api
    cudaDeviceSynchronize();
    // ok: cuda-runtime-device-api
    cudaError_t err = cudaGetLastError();
    return prop.multiProcessorCount + err;
}
