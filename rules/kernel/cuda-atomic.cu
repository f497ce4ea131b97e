__global__ void histogram(const int* bins, int* hist, float* total, const float* w, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    // ruleid: cuda-atomic
    atomicAdd(&hist[bins[i]], 1);
    // ruleid: cuda-atomic
    atomicAdd(total, w[i]);
    // ok: cuda-atomic
    int local_atomic_count = bins[i] + 1;
    hist[0] = local_atomic_count;
}

template <typename T>
__global__ void scatter_max(const T* v, const int* idx, T* out, int n) {
    int i = threadIdx.x;
    // ruleid: cuda-atomic
    if (i < n) atomicMax(&out[idx[i]], v[i]);
}
