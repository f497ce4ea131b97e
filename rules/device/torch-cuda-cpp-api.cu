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

// flash-attention's static_switch.h: the launch check inside the lambda a switch macro runs is
// reported on its own line, not on the switch's.
#define BOOL_SWITCH(COND, CONST_NAME, ...)          \
    [&] {                                           \
        if (COND) {                                 \
            constexpr static bool CONST_NAME = true;  \
            return __VA_ARGS__();                   \
        } else {                                    \
            constexpr static bool CONST_NAME = false; \
            return __VA_ARGS__();                   \
        }                                           \
    }()

void relu_switched(const at::Tensor& x, bool even) {
    // ok: torch-cuda-cpp-api
    BOOL_SWITCH(even, IsEven, [&] {
        relu_kernel<<<1, 1>>>(x.data_ptr<float>(), nullptr, IsEven ? 1 : 2);
        // ruleid: torch-cuda-cpp-api
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
}
