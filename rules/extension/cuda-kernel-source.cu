#include <cuda_runtime.h>

// ruleid: cuda-kernel-source
__global__ void scale_kernel(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}

// ok: cuda-kernel-source
__device__ float square(float v) { return v * v; }

// ok: cuda-kernel-source
void launch(const float* x, float* y, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(x, y, 2.0f, n); }
