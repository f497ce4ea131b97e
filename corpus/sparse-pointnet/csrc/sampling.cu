#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cub/block/block_reduce.cuh>
#include <torch/extension.h>

#include "cuda_utils.cuh"

// Furthest point sampling: one block per batch element, a max-reduction per step through shared memory.
template <unsigned int block_size>
__global__ void __launch_bounds__(block_size)
furthest_point_sampling_kernel(int b, int n, int m, const float* __restrict__ dataset,
                               float* __restrict__ temp, int* __restrict__ idxs) {
    if (m <= 0) return;
    __shared__ float dists[block_size];
    __shared__ int dists_i[block_size];

    const int batch_index = blockIdx.x;
    dataset += batch_index * n * 3;
    temp += batch_index * n;
    idxs += batch_index * m;
    const int tid = threadIdx.x;
    int old = 0;
    if (tid == 0) idxs[0] = old;
    __syncthreads();
    for (int j = 1; j < m; j++) {
        int besti = 0;
        float best = -1;
        for (int k = tid; k < n; k += block_size) {
            const float d = dist2(dataset + k * 3, dataset + old * 3);
            const float d2 = min(d, temp[k]);
            temp[k] = d2;
            besti = d2 > best ? k : besti;
            best = d2 > best ? d2 : best;
        }
        dists[tid] = best;
        dists_i[tid] = besti;
        __syncthreads();
        for (unsigned int s = block_size / 2; s > 32; s >>= 1) {
            if (tid < s && dists[tid + s] > dists[tid]) {
                dists[tid] = dists[tid + s];
                dists_i[tid] = dists_i[tid + s];
            }
            __syncthreads();
        }
        if (tid < 32) {
            float v = dists[tid];
            int vi = dists_i[tid];
            for (int offset = 16; offset > 0; offset /= 2) {
                const float other = __shfl_down_sync(0xffffffff, v, offset);
                const int other_i = __shfl_down_sync(0xffffffff, vi, offset);
                if (other > v) v = other, vi = other_i;
            }
            if (tid == 0) dists_i[0] = vi;
        }
        __syncthreads();
        old = dists_i[0];
        if (tid == 0) idxs[j] = old;
    }
}

#if 0
// The first version, kept for reference: one thread per batch element.
__global__ void furthest_point_sampling_naive(int b, int n, int m, const float* dataset, int* idxs) {}
#endif

void furthest_point_sampling_launcher(int b, int n, int m, const float* dataset, float* temp, int* idxs) {
    const at::cuda::OptionalCUDAGuard guard(at::cuda::current_device());
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    switch (opt_n_threads(n)) {
        case 1024: furthest_point_sampling_kernel<1024><<<b, 1024, 0, stream>>>(b, n, m, dataset, temp, idxs); break;
        case 512: furthest_point_sampling_kernel<512><<<b, 512, 0, stream>>>(b, n, m, dataset, temp, idxs); break;
        default: furthest_point_sampling_kernel<256><<<b, 256, 0, stream>>>(b, n, m, dataset, temp, idxs); break;
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
}
