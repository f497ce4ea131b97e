#include <torch/extension.h>

template <typename scalar_t>
__global__ void gelu_kernel(const scalar_t* x, scalar_t* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = static_cast<scalar_t>(0.5f * float(x[i]) * (1.0f + erff(float(x[i]) * 0.70710678f)));
}

torch::Tensor gelu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "gelu_cuda", [&] {
        gelu_kernel<scalar_t><<<(n + 255) / 256, 256>>>(x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
    });
    return y;
}
