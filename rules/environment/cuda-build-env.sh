#!/bin/bash
# ruleid: cuda-build-env
export CUDA_HOME=/usr/local/cuda-12.1
# ok: cuda-build-env
# export TORCH_CUDA_ARCH_LIST="8.0"   (commented out)
# ok: cuda-build-env
if [ -z "$CUDA_HOME" ]; then echo "no CUDA"; fi
# ok: cuda-build-env
export FORCE_CUDA=0
# ruleid: cuda-build-env
export FORCE_CUDA=1
# ok: cuda-build-env
FORCE_CUDA="false" pip install -e .
