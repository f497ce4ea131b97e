from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="pointnet-knn",
    ext_modules=[CUDAExtension("knn_cuda", ["ops/src/knn.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
