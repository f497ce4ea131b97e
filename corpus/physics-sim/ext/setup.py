from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

setup(
    name="boundary",
    ext_modules=[CppExtension("boundary", ["boundary.cpp"], extra_compile_args=["-O3", "-fopenmp"])],
    cmdclass={"build_ext": BuildExtension},
)
