#include <torch/extension.h>

torch::Tensor gelu_cuda(torch::Tensor x);

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("gelu", &gelu_cuda, "fused GELU (CUDA)"); }
