from torch.utils import cpp_extension
from torch.utils.cpp_extension import CppExtension

# ruleid: cpp-extension-use
ext = CppExtension("ops_cpu", ["csrc/ops.cpp"])
# ruleid: cpp-extension-use
jit = cpp_extension.load(name="jit_cpu", sources=["csrc/jit.cpp"])
# ok: cpp-extension-use
gpu = cpp_extension.load(name="jit_gpu", sources=["csrc/jit.cpp", "csrc/jit_kernel.cu"])
