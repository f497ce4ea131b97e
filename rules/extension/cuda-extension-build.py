from setuptools import setup
import torch
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension, load, load_inline

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


def build(params):
    # gsplat's sensors build: the sources come from a list, the nvcc flags say it is CUDA
    # ruleid: cuda-extension-build
    ops = load(name=params.name, sources=params.sources, extra_cuda_cflags=params.cuda_flags)
    # ruleid: cuda-extension-build
    more = load(name="more", sources=params.sources, with_cuda=True)
    # ok: cuda-extension-build
    cpu = load(name="cpu", sources=params.sources, with_cuda=False)
    return ops, more, cpu


def get_extensions():
    # detectron2's layout: a C++ build, CUDA when the machine has it
    extension = CppExtension
    if torch.cuda.is_available() and CUDA_HOME is not None:
        extension = CUDAExtension
    # ruleid: cuda-extension-build
    return [extension("detected._C", ["csrc/vision.cpp"])]


def cpu_extensions():
    builder = CppExtension
    # ok: cuda-extension-build
    return [builder("cpu_only._C", ["csrc/cpu.cpp"])]


def other_scope():
    # `extension` is bound in get_extensions, not here
    # ok: cuda-extension-build
    return [extension("elsewhere._C", [])]
