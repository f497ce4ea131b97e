FROM python:3.11-slim
# ruleid: cuda-build-env
ENV CUDA_HOME=/usr/local/cuda
# ruleid: cuda-build-env
ENV TORCH_CUDA_ARCH_LIST="8.0;8.6;9.0"
# ruleid: cuda-build-env
ARG FORCE_CUDA=1
# ruleid: cuda-build-env
RUN TORCH_CUDA_ARCH_LIST="8.0" pip install -e .
# ok: cuda-build-env
RUN echo "toolkit at ${CUDA_HOME}"
# ok: cuda-build-env
ENV PYTHONUNBUFFERED=1
# ok: cuda-build-env
ENV FORCE_CUDA=0
# ok: cuda-build-env
ENV FORCE_CUDA="false"
