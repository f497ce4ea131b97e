import os

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension

# ruleid: nvcc-build-flags
NVCC_FLAGS = ["-O3", "--use_fast_math", "-gencode=arch=compute_80,code=sm_80"]

extra = {"cxx": ["-O3"]}
# ruleid: nvcc-build-flags
extra["nvcc"] = ["--expt-relaxed-constexpr", "-DWITH_CUDA"]

ext = CUDAExtension(
    "lab_ops._C",
    ["csrc/ops.cpp", "csrc/ops_kernel.cu"],
    # ruleid: nvcc-build-flags
    extra_compile_args={"cxx": ["-O3"], "nvcc": NVCC_FLAGS + ["-lineinfo"]},
)
# ok: nvcc-build-flags
cpu = CppExtension("lab_ops._cpu", ["csrc/ops.cpp"], extra_compile_args={"cxx": ["-O3", "-fopenmp"]})
# ok: nvcc-build-flags
uses_named_list = {"nvcc": NVCC_FLAGS}
# ok: nvcc-build-flags
nvcc_path = os.environ.get("NVCC", "nvcc")
# ok: nvcc-build-flags
extra["nvcc"] = []
# ok: nvcc-build-flags
# extra_compile_args={"nvcc": ["-O3"]}   (commented out)

setup(name="lab_ops", ext_modules=[ext, cpu], cmdclass={"build_ext": BuildExtension})
