from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CUDAExtension

if CUDA_HOME is None:
    raise RuntimeError("pointops needs the CUDA toolkit (nvcc) to build")

setup(
    name="pointops",
    install_requires=["numpy", "spconv-cu118>=2.3"],
    ext_modules=[
        CUDAExtension(
            name="pointops._C",
            sources=["csrc/ball_query.cpp", "csrc/ball_query_kernel.cu"],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "--use_fast_math"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
