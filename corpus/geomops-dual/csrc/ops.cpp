#include <torch/library.h>

// The op schemas; each backend registers its kernels in its own file.
TORCH_LIBRARY(geomops, m) {
    m.def("knn(Tensor x, int k) -> Tensor");
    m.def("ball_group(Tensor x, Tensor centers, float radius, int nsample) -> Tensor");
}
