#include <torch/extension.h>

#ifdef WITH_CUDA
at::Tensor voxelize_cuda(const at::Tensor& points, double size);
#endif

at::Tensor voxelize_cpu(const at::Tensor& points, double size) {
    auto v = (points / size).floor().to(at::kLong);
    return v.select(1, 0) * 73856093 + v.select(1, 1) * 19349663 + v.select(1, 2) * 83492791;
}

at::Tensor voxelize(const at::Tensor& points, double size) {
    if (points.is_cuda()) {
#ifdef WITH_CUDA
        return voxelize_cuda(points, size);
#else
        AT_ERROR("geomops was built without CUDA");
#endif
    }
    return voxelize_cpu(points, size);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("voxelize", &voxelize, "voxel hashes (CPU or CUDA)"); }
