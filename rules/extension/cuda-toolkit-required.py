import os
import sys

import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension

if CUDA_HOME is None:
    # ruleid: cuda-toolkit-required
    raise RuntimeError("CUDA_HOME is not set: install the CUDA toolkit")

if "CUDA_PATH" not in os.environ:
    # ruleid: cuda-toolkit-required
    sys.exit("set CUDA_PATH to the toolkit")

if not torch.cuda.is_available():
    # ok: cuda-toolkit-required
    raise SystemExit("a GPU is required to train")

# ruleid: cuda-toolkit-required
assert CUDA_HOME is not None, "nvcc not found"

# ruleid: cuda-toolkit-required
nvcc = os.path.join(os.environ["CUDA_HOME"], "bin", "nvcc")

# ok: cuda-toolkit-required
cuda_home = os.environ.get("CUDA_HOME")

ext_modules = []
if torch.cuda.is_available() and CUDA_HOME is not None:
    # ok: cuda-toolkit-required
    ext_modules.append(CUDAExtension("ops", ["ops.cpp", "ops_kernel.cu"]))
else:
    # ok: cuda-toolkit-required
    ext_modules.append(CppExtension("ops_cpu", ["ops.cpp"]))

if CUDA_HOME is None:
    # ok: cuda-toolkit-required
    print("no CUDA toolkit: building the CPU extension only")

setup(name="ops", ext_modules=ext_modules, cmdclass={"build_ext": BuildExtension})
