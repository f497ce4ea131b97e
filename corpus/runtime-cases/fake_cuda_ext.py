"""Stands in for a compiled CUDA extension (the Python side of a cpp_extension): it accepts CUDA tensors
only, and says so the way TORCH_CHECK(x.is_cuda(), ...) does."""


def fused_bias_gelu(x, bias):
    if not x.is_cuda:
        raise RuntimeError("fused_bias_gelu: input must be a CUDA tensor")
    return x + bias
