from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="pointnet2",
    packages=["pointnet2"],
    ext_modules=[
        CUDAExtension(
            name="pointnet2._ext",
            sources=["csrc/bindings.cpp", "csrc/sampling.cu", "csrc/interpolate.cu", "csrc/ptx_cache.cpp"],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "-Xptxas=-v"]},
            libraries=["cublas", "cuda"],
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
