#include <ATen/cuda/CUDAContext.h>
#include <torch/library.h>
#include <torch/extension.h>

namespace geomops {

// One thread per query point; a sorted insertion into the k best.
template <typename scalar_t, int kMaxK>
__global__ void knn_kernel(const scalar_t* __restrict__ x, int64_t* __restrict__ out, int n, int dim, int k) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    scalar_t best[kMaxK];
    int64_t best_i[kMaxK];
    for (int j = 0; j < k; ++j) best[j] = 1e30f, best_i[j] = -1;
    for (int j = 0; j < n; ++j) {
        scalar_t d = 0;
        for (int c = 0; c < dim; ++c) d += (x[i * dim + c] - x[j * dim + c]) * (x[i * dim + c] - x[j * dim + c]);
        for (int s = 0; s < k; ++s) {
            if (d < best[s]) {
                for (int t = k - 1; t > s; --t) best[t] = best[t - 1], best_i[t] = best_i[t - 1];
                best[s] = d, best_i[s] = j;
                break;
            }
        }
    }
    for (int j = 0; j < k; ++j) out[i * k + j] = best_i[j];
}

__global__ void ball_group_kernel(const float* x, const float* centers, int64_t* out, int n, int m, float r2, int nsample) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    int count = 0;
    for (int j = 0; j < n && count < nsample; ++j) {
        const float dx = x[j * 3] - centers[i * 3], dy = x[j * 3 + 1] - centers[i * 3 + 1], dz = x[j * 3 + 2] - centers[i * 3 + 2];
        if (dx * dx + dy * dy + dz * dz < r2) out[i * nsample + count++] = j;
    }
}

at::Tensor knn_cuda(const at::Tensor& x, int64_t k) {
    auto out = torch::empty({x.size(0), k}, x.options().dtype(at::kLong));
    const int n = static_cast<int>(x.size(0));
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "knn_cuda", [&] {
        knn_kernel<scalar_t, 32><<<(n + 127) / 128, 128, 0, at::cuda::getCurrentCUDAStream()>>>(
            x.data_ptr<scalar_t>(), out.data_ptr<int64_t>(), n, static_cast<int>(x.size(1)), static_cast<int>(k));
    });
    return out;
}

at::Tensor ball_group_cuda(const at::Tensor& x, const at::Tensor& centers, double radius, int64_t nsample) {
    auto out = torch::full({centers.size(0), nsample}, -1, x.options().dtype(at::kLong));
    const int m = static_cast<int>(centers.size(0));
    ball_group_kernel<<<(m + 255) / 256, 256>>>(x.data_ptr<float>(), centers.data_ptr<float>(), out.data_ptr<int64_t>(),
                                                static_cast<int>(x.size(0)), m, static_cast<float>(radius * radius),
                                                static_cast<int>(nsample));
    return out;
}

}  // namespace geomops

TORCH_LIBRARY_IMPL(geomops, CUDA, m) {
    m.impl("knn", &geomops::knn_cuda);
    m.impl("ball_group", &geomops::ball_group_cuda);
}
