FROM nvidia/cuda:12.1.0-devel-ubuntu22.04
# ruleid: cuda-toolchain-call
RUN nvcc -O3 -arch=sm_80 -o kernels kernels.cu
# ok: cuda-toolchain-call
RUN python3 -m pip install numpy
