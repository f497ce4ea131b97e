#include <torch/extension.h>

__global__ void voxel_index_kernel(const float* points, int64_t* out, int n, float inv_size) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int64_t vx = static_cast<int64_t>(points[i * 3] * inv_size), vy = static_cast<int64_t>(points[i * 3 + 1] * inv_size),
                  vz = static_cast<int64_t>(points[i * 3 + 2] * inv_size);
    out[i] = (vx * 73856093) ^ (vy * 19349663) ^ (vz * 83492791);
}

at::Tensor voxelize_cuda(const at::Tensor& points, double size) {
    auto out = torch::empty({points.size(0)}, points.options().dtype(at::kLong));
    const int n = static_cast<int>(points.size(0));
    voxel_index_kernel<<<(n + 255) / 256, 256>>>(points.data_ptr<float>(), out.data_ptr<int64_t>(), n, static_cast<float>(1.0 / size));
    return out;
}
