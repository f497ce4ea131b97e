#include <torch/extension.h>

at::Tensor rasterize_cuda(const at::Tensor& uv, int64_t size);
at::Tensor rasterize_cpu(const at::Tensor& uv, int64_t size);
at::Tensor rasterize_mps(const at::Tensor& uv, int64_t size);
at::Tensor interpolate_cuda(const at::Tensor& attr, const at::Tensor& index);
at::Tensor interpolate_cpu(const at::Tensor& attr, const at::Tensor& index);

// Stability-AI/stable-fast-3d's texture baker: CUDA, CPU and (in an Objective-C++ file) MPS kernels.
TORCH_LIBRARY(baker, m) {
    // ruleid: extension-op-with-mps-kernel
    m.def("rasterize(Tensor uv, int size) -> Tensor");
    // ok: extension-op-with-mps-kernel
    m.def("interpolate(Tensor attr, Tensor index) -> Tensor");
}
TORCH_LIBRARY_IMPL(baker, CUDA, m) {
    m.impl("rasterize", rasterize_cuda);
    m.impl("interpolate", interpolate_cuda);
}
TORCH_LIBRARY_IMPL(baker, CPU, m) {
    m.impl("rasterize", rasterize_cpu);
    m.impl("interpolate", interpolate_cpu);
}
TORCH_LIBRARY_IMPL(baker, MPS, m) { m.impl("rasterize", rasterize_mps); }
