#include <torch/extension.h>

#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x) TORCH_CHECK(x.is_contiguous(), #x " must be contiguous")
#define CHECK_INPUT(x) \
    CHECK_CUDA(x);     \
    CHECK_CONTIGUOUS(x)

void furthest_point_sampling_launcher(int b, int n, int m, const float* dataset, float* temp, int* idxs);
void three_nn_launcher(int b, int n, int m, const float* unknown, const float* known, float* dist2, int* idx);

at::Tensor furthest_point_sampling(at::Tensor points, int64_t nsamples) {
    CHECK_INPUT(points);
    auto output = torch::zeros({points.size(0), nsamples}, points.options().dtype(at::kInt));
    auto tmp = torch::full({points.size(0), points.size(1)}, 1e10, points.options());
    furthest_point_sampling_launcher(points.size(0), points.size(1), nsamples, points.data_ptr<float>(), tmp.data_ptr<float>(),
                                     output.data_ptr<int>());
    return output;
}

at::Tensor three_interpolate(at::Tensor unknown, at::Tensor known, at::Tensor feats) {
    CHECK_INPUT(unknown);
    CHECK_INPUT(known);
    auto dist2 = torch::zeros({unknown.size(0), unknown.size(1), 3}, unknown.options());
    auto idx = torch::zeros({unknown.size(0), unknown.size(1), 3}, unknown.options().dtype(at::kInt));
    three_nn_launcher(unknown.size(0), unknown.size(1), known.size(1), unknown.data_ptr<float>(), known.data_ptr<float>(),
                      dist2.data_ptr<float>(), idx.data_ptr<int>());
    return feats.index_select(1, idx.flatten().to(at::kLong)).mul(dist2.flatten().unsqueeze(0));
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("furthest_point_sampling", &furthest_point_sampling, "FPS (CUDA)");
    m.def("three_interpolate", &three_interpolate, "three-NN interpolation (CUDA)");
}
