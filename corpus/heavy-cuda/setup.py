from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="pointops",
    ext_modules=[
        CUDAExtension(
            name="pointops._C",
            sources=["csrc/ball_query.cpp", "csrc/ball_query_kernel.cu"],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "--use_fast_math"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
