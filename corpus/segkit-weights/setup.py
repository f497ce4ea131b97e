import glob

import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension


def get_extensions():
    sources = glob.glob("segkit/csrc/*.cpp")
    extension = CppExtension
    define_macros = []
    if torch.cuda.is_available() and CUDA_HOME is not None:
        extension = CUDAExtension
        sources += glob.glob("segkit/csrc/*.cu")
        define_macros += [("WITH_CUDA", None)]
    return [extension("segkit._C", sources, define_macros=define_macros)]


setup(
    name="segkit",
    packages=["segkit"],
    ext_modules=get_extensions(),
    cmdclass={"build_ext": BuildExtension},
)
