#include <torch/extension.h>
#include <torch/library.h>

// Implemented in a .cu file of the same extension.
at::Tensor fused_gelu_cuda(const at::Tensor& x);
at::Tensor rms_norm_cuda(const at::Tensor& x, double eps);
at::Tensor ball_query_cuda(const at::Tensor& xyz, double radius);

at::Tensor rms_norm_cpu(const at::Tensor& x, double eps) { return x / (x * x).mean().sqrt(); }

TORCH_LIBRARY(labops, m) {
    // ruleid: cuda-only-extension-op
    m.def("fused_gelu(Tensor x) -> Tensor");
    // ok: cuda-only-extension-op
    m.def("rms_norm(Tensor x, float eps) -> Tensor");
}

TORCH_LIBRARY_IMPL(labops, CUDA, m) {
    m.impl("fused_gelu", &fused_gelu_cuda);
    m.impl("rms_norm", &rms_norm_cuda);
}

// The twin that makes rms_norm portable.
TORCH_LIBRARY_IMPL(labops, CPU, m) { m.impl("rms_norm", TORCH_FN(rms_norm_cpu)); }

at::Tensor ball_query(const at::Tensor& xyz, double radius) {
    TORCH_CHECK(xyz.is_cuda(), "xyz must be a CUDA tensor");
    return ball_query_cuda(xyz, radius);
}

at::Tensor group_points(const at::Tensor& points, const at::Tensor& idx) {
    if (points.is_cuda()) {
        return ball_query_cuda(points, 0.1);
    }
    AT_ERROR("group_points is not implemented on the CPU");
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    // ruleid: cuda-only-extension-op
    m.def("ball_query", &ball_query, "ball query (CUDA)");
    // ruleid: cuda-only-extension-op
    m.def("group_points", &group_points);
    // ok: cuda-only-extension-op
    m.def("scale", [](const at::Tensor& x, double a) { return x * a; });
}
