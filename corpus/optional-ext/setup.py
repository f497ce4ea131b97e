from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="fastops",
    packages=["fastops"],
    ext_modules=[CUDAExtension(name="fastops._C", sources=["csrc/fused_gelu.cu", "csrc/bind.cpp"])],
    cmdclass={"build_ext": BuildExtension},
)
