#include <torch/extension.h>

void ball_query_launcher(int b, int n, int m, float radius, int nsample, const float* xyz, const float* new_xyz, int* idx);

at::Tensor ball_query(at::Tensor xyz, at::Tensor new_xyz, double radius, int64_t nsample) {
    TORCH_CHECK(xyz.is_cuda(), "xyz must be a CUDA tensor");
    auto idx = torch::zeros({new_xyz.size(0), new_xyz.size(1), nsample}, xyz.options().dtype(torch::kInt32));
    ball_query_launcher(xyz.size(0), xyz.size(1), new_xyz.size(1), static_cast<float>(radius), static_cast<int>(nsample),
                        xyz.data_ptr<float>(), new_xyz.data_ptr<float>(), idx.data_ptr<int>());
    return idx;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("ball_query", &ball_query, "ball query (CUDA)"); }
