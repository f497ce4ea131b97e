#include <cuda_runtime.h>

__global__ void add_one(float* x, int n) {
    if (threadIdx.x < n) x[threadIdx.x] += 1.f;
}

template <typename T>
__global__ void fill(T* x, T v, int n) {
    if (threadIdx.x < n) x[threadIdx.x] = v;
}

void run(float* x, int n, cudaStream_t stream) {
    // ruleid: cuda-kernel-launch
    add_one<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
    // ruleid: cuda-kernel-launch
    fill<float><<<1, 32>>>(x, 0.f, n);
    void* args[] = {&x, &n};
    // ruleid: cuda-kernel-launch
    cudaLaunchKernel(add_one, dim3(1), dim3(256), args, 0, stream);
    // ok: cuda-kernel-launch
    add_one(x, n);
#if 0
    // ok: cuda-kernel-launch
    add_one<<<1, 1>>>(x, n);
#endif
}
