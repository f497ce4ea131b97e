cmake_minimum_required(VERSION 3.18)
# ruleid: cmake-cuda-build
project(lab_ops LANGUAGES CXX CUDA)
# ruleid: cmake-cuda-build
find_package(CUDAToolkit REQUIRED)
# ruleid: cmake-cuda-build
enable_language(CUDA)
# ruleid: cmake-cuda-build
cuda_add_library(legacy_ops src/legacy.cu)
project(
	lab_kernels
	VERSION 1.0
	# ruleid: cmake-cuda-build
	LANGUAGES CXX CUDA
)
# ruleid: cmake-cuda-build
FIND_PACKAGE(CUDA 11.0 REQUIRED)
# ok: cmake-cuda-build
include(CheckLanguage)
# ok: cmake-cuda-build
check_language(CUDA)
# ok: cmake-cuda-build
project(cpu_only LANGUAGES CXX)
# ok: cmake-cuda-build
# enable_language(CUDA)   (commented out)
# ok: cmake-cuda-build
message(STATUS "CUDA_ARCHITECTURES not set")
