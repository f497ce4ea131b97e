from torch.utils import cpp_extension
from torch.utils.cpp_extension import CppExtension

# ruleid: cpp-extension-use
ext = CppExtension("ops_cpu", ["csrc/ops.cpp"])
# ruleid: cpp-extension-use
jit = cpp_extension.load(name="jit_cpu", sources=["csrc/jit.cpp"])
# ok: cpp-extension-use
gpu = cpp_extension.load(name="jit_gpu", sources=["csrc/jit.cpp", "csrc/jit_kernel.cu"])


def build(sources):
    # the nvcc flags say the listed sources are CUDA (cuda-extension-build reports it)
    # ok: cpp-extension-use
    return cpp_extension.load(name="jit_any", sources=sources, extra_cuda_cflags=["-O3"])
