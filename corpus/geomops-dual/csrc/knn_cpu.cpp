#include <torch/library.h>
#include <torch/extension.h>

#include <algorithm>
#include <vector>

namespace geomops {

at::Tensor knn_cpu(const at::Tensor& x, int64_t k) {
    const auto d = torch::cdist(x, x);
    return std::get<1>(d.topk(k, -1, false));
}

at::Tensor ball_group_cpu(const at::Tensor& x, const at::Tensor& centers, double radius, int64_t nsample) {
    auto d = torch::cdist(centers, x);
    auto idx = std::get<1>(d.masked_fill(d > radius, 1e10).topk(nsample, -1, false));
    return idx;
}

}  // namespace geomops

TORCH_LIBRARY_IMPL(geomops, CPU, m) {
    m.impl("knn", &geomops::knn_cpu);
    m.impl("ball_group", &geomops::ball_group_cpu);
}
