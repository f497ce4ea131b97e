cmake_minimum_required(VERSION 3.18)
# ruleid: cmake-nvcc-flags
set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} --use_fast_math -lineinfo")
# ruleid: cmake-nvcc-flags
set(CMAKE_CUDA_ARCHITECTURES 80 86 90)
# ruleid: cmake-nvcc-flags
list(APPEND CUDA_NVCC_FLAGS "-gencode=arch=compute_80,code=sm_80")
# ruleid: cmake-nvcc-flags
target_compile_options(ops PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
# ruleid: cmake-nvcc-flags
set_target_properties(ops PROPERTIES CUDA_ARCHITECTURES "80;86")
# ok: cmake-nvcc-flags
set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -O3")
# ok: cmake-nvcc-flags
message(STATUS "nvcc flags: ${CMAKE_CUDA_FLAGS}")
# ok: cmake-nvcc-flags
# set(CMAKE_CUDA_ARCHITECTURES 70)   (commented out)
