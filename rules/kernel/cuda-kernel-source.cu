// A CUDA file whose includes exist nowhere on this machine: Clang still parses what it can.
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include "generated/kernel_config.h"

// ruleid: cuda-kernel-source
__global__ void scale_kernel(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}

// The name is what is reported, not __launch_bounds__.
__global__ void __launch_bounds__(256)
// ruleid: cuda-kernel-source
bounded_kernel(float* x, int n) {
    if (threadIdx.x < n) x[threadIdx.x] = 0.f;
}

template <typename scalar_t, int kBlock>
__global__ void
// ruleid: cuda-kernel-source
templated_kernel(const scalar_t* __restrict__ in, scalar_t* __restrict__ out, int n) {
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i < n) out[i] = in[i];
}

#if 0
// ok: cuda-kernel-source
__global__ void disabled_kernel(float* x) { x[0] = 1.f; }
#endif

// ok: cuda-kernel-source
// __global__ void commented_kernel(float* x) { x[0] = 1.f; }

// A declaration is not a definition: the definition elsewhere is reported where it is.
// ok: cuda-kernel-source
__global__ void declared_kernel(float* x);

// ok: cuda-kernel-source
__device__ float square(float v) { return v * v; }

// ok: cuda-kernel-source
void launch(const float* x, float* y, int n) {
    scale_kernel<<<(n + 255) / 256, 256>>>(x, y, 2.0f, n);
    templated_kernel<float, 256><<<(n + 255) / 256, 256>>>(x, y, n);
    templated_kernel<double, 128><<<(n + 127) / 128, 128>>>(nullptr, nullptr, n);
}
