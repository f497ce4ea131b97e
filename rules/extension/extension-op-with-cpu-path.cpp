#include <torch/extension.h>

at::Tensor knn_cuda(const at::Tensor& x, int64_t k);
at::Tensor knn_cpu(const at::Tensor& x, int64_t k);
at::Tensor voxelize_cuda(const at::Tensor& points, double size);
at::Tensor voxelize_cpu(const at::Tensor& points, double size);
at::Tensor sample_cuda(const at::Tensor& points, int64_t n);

// The binding dispatches on the tensor's device: the CPU branch is a real implementation.
at::Tensor knn(const at::Tensor& x, int64_t k) {
    if (x.is_cuda()) {
        return knn_cuda(x, k);
    }
    return knn_cpu(x, k);
}

at::Tensor voxelize(const at::Tensor& points, double size) {
    return points.device().is_cuda() ? voxelize_cuda(points, size) : voxelize_cpu(points, size);
}

at::Tensor sample(const at::Tensor& points, int64_t n) {
    if (!points.is_cuda()) {
        AT_ERROR("sample: CUDA only");
    }
    return sample_cuda(points, n);
}

// A device test on the type, with a CPU side that calls the C library (declared by torch's headers).
void copy_ids(const at::Tensor& from, at::Tensor& to, size_t bytes) {
    if (from.device().type() == c10::DeviceType::CUDA) {
        cudaMemcpyAsync(to.data_ptr<int>(), from.data_ptr<int>(), bytes, cudaMemcpyDeviceToDevice, 0);
    } else {
        memcpy(to.data_ptr<int>(), from.data_ptr<int>(), bytes);
    }
}

void copy_back(const at::Tensor& from, at::Tensor& to, size_t bytes) {
    if (from.device().type() != at::kCUDA) {
        memcpy(to.data_ptr<int>(), from.data_ptr<int>(), bytes);
        return;
    }
    cudaMemcpy(to.data_ptr<int>(), from.data_ptr<int>(), bytes, cudaMemcpyDeviceToDevice);
}

at::Tensor fused_add_cuda(const at::Tensor& a, const at::Tensor& b);
at::Tensor fused_add_composite(const at::Tensor& a, const at::Tensor& b) { return a + b; }

TORCH_LIBRARY(pcops, m) {
    // ruleid: extension-op-with-cpu-path
    m.def("fused_add(Tensor a, Tensor b) -> Tensor");
}
TORCH_LIBRARY_IMPL(pcops, CUDA, m) { m.impl("fused_add", fused_add_cuda); }
TORCH_LIBRARY_IMPL(pcops, CompositeExplicitAutograd, m) { m.impl("fused_add", fused_add_composite); }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    // ruleid: extension-op-with-cpu-path
    m.def("knn", &knn);
    // ruleid: extension-op-with-cpu-path
    m.def("voxelize", &voxelize);
    // ok: extension-op-with-cpu-path
    m.def("sample", &sample);
    // ruleid: extension-op-with-cpu-path
    m.def("copy_ids", &copy_ids);
    // ruleid: extension-op-with-cpu-path
    m.def("copy_back", &copy_back);
}
