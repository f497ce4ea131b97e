#include <torch/extension.h>
#include "helpers/missing_everywhere.cuh"

template <typename scalar_t>
__global__ void scale_kernel(const scalar_t* x, scalar_t* y, scalar_t s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * s;
}

at::Tensor scale_cuda(at::Tensor x, double s) {
    auto y = torch::empty_like(x);
    const int n = x.numel();
    // ruleid: cuda-dtype-dispatch
    AT_DISPATCH_FLOATING_TYPES_AND_HALF(
        x.scalar_type(), "scale_cuda", ([&] {
            scale_kernel<scalar_t><<<(n + 255) / 256, 256>>>(x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(),
                                                              static_cast<scalar_t>(s), n);
        }));
    return y;
}

at::Tensor scale_all(at::Tensor x, double s) {
    auto y = torch::empty_like(x);
    const int n = x.numel();
    // ruleid: cuda-dtype-dispatch
    AT_DISPATCH_ALL_TYPES_AND2(at::ScalarType::Half, at::ScalarType::BFloat16, x.scalar_type(), "scale_all", [&] {
        scale_kernel<scalar_t><<<1, 256>>>(x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), static_cast<scalar_t>(s), n);
    });
    // ok: cuda-dtype-dispatch
    // AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "commented_out", [&] {});
    return y;
}

#if 0
at::Tensor old_scale(at::Tensor x) {
    // ok: cuda-dtype-dispatch
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "old_scale", [&] {});
    return x;
}
#endif
