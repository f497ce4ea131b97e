#pragma once
#include <cuda_runtime.h>

#define TOTAL_THREADS 1024

inline int opt_n_threads(int work_size) {
    int pow_2 = 1;
    while (pow_2 < work_size && pow_2 < TOTAL_THREADS) pow_2 *= 2;
    return pow_2;
}

__device__ __forceinline__ float dist2(const float* a, const float* b) {
    const float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

__device__ __forceinline__ unsigned lane_id() {
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}
