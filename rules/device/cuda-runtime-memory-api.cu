#include <cuda_runtime.h>

void roundtrip(const float* host, float* back, int n) {
    float* dev = nullptr;
    // ruleid: cuda-runtime-memory-api
    cudaMalloc(&dev, n * sizeof(float));
    // ruleid: cuda-runtime-memory-api
    cudaMemcpy(dev, host, n * sizeof(float), cudaMemcpyHostToDevice);
    // ruleid: cuda-runtime-memory-api
    cudaMemcpy(back, dev, n * sizeof(float), cudaMemcpyDeviceToHost);
    // ruleid: cuda-runtime-memory-api
    cudaFree(dev);
    // ok: cuda-runtime-memory-api
    cudaDeviceSynchronize();
}
