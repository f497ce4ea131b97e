// ruleid: cuda-library-use
#include <cublas_v2.h>
// ruleid: cuda-library-use
#include <thrust/sort.h>
// ruleid: cuda-library-use
#include "cub/block/block_reduce.cuh"
// ok: cuda-library-use
#include <cuda_runtime.h>
#if 0
// ok: cuda-library-use
#include <cudnn.h>
#endif
// ok: cuda-library-use
// #include <cufft.h>

__global__ void noop() {}
