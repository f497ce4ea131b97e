#!/bin/bash
set -e
# ruleid: cuda-toolchain-call
nvidia-smi --query-gpu=name,memory.total --format=csv
# ruleid: cuda-toolchain-call
export PATH=/usr/local/cuda-12.1/bin:$PATH
# ruleid: cuda-toolchain-call
nvcc --version
# ok: cuda-toolchain-call
# nvidia-smi is how we check the GPUs on the cluster
# ok: cuda-toolchain-call
export PATH=$HOME/.local/bin:$PATH
# a message (jwyang/faster-rcnn.pytorch's lib/make.sh)
# ok: cuda-toolchain-call
echo "Compiling nms kernels by nvcc..."
# ruleid: cuda-toolchain-call
echo 'export PATH=/usr/local/cuda-11.8/bin:$PATH' >> ~/.bashrc
