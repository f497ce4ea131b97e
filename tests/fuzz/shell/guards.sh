#!/bin/bash
if [ "$(uname)" = "Darwin" ]; then
  echo mac
elif [ -n "$CUDA_HOME" ]; then
  nvcc --version
else
  export CUDA_HOME=/usr/local/cuda
fi
case $CU_VERSION in
  cu118) export FORCE_CUDA=1 ;;
  cpu) export FORCE_CUDA=0 ;;
esac
command -v nvidia-smi >/dev/null && nvidia-smi || echo none
