#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

__global__ void relu_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

at::Tensor relu_cuda(const at::Tensor& x) {
    // ruleid: torch-cuda-cpp-api
    const at::cuda::OptionalCUDAGuard guard(x.device());
    // ruleid: torch-cuda-cpp-api
    c10::cuda::CUDAGuard other(x.device());
    auto y = at::empty_like(x);
    // ruleid: torch-cuda-cpp-api
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    const int n = static_cast<int>(x.numel());
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    // ruleid: torch-cuda-cpp-api
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    // ok: torch-cuda-cpp-api
    auto z = at::zeros_like(y);
    return y + z;
}
