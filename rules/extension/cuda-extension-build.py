from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension, load, load_inline

setup(
    name="fused_ops",
    # ruleid: cuda-extension-build
    ext_modules=[CUDAExtension("fused_ops", ["csrc/fused.cpp", "csrc/fused_kernel.cu"])],
    cmdclass={"build_ext": BuildExtension},
)

# ruleid: cuda-extension-build
jit = load(name="jit_ops", sources=["csrc/jit.cpp", "csrc/jit_kernel.cu"])
# ruleid: cuda-extension-build
inline = load_inline(name="inline_ops", cpp_sources=["int f();"], cuda_sources=["__global__ void k() {}"])
# ok: cuda-extension-build
cpu_only = load(name="cpu_ops", sources=["csrc/cpu_ops.cpp"])
