#define TILE 32

__global__ void transpose(const float* in, float* out, int n) {
    // ruleid: cuda-shared-memory
    __shared__ float tile[TILE][TILE + 1];
    // ok: cuda-shared-memory
    float not_shared = 0.f;
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x] + not_shared;
    // ruleid: cuda-shared-memory
    __syncthreads();
    if (x < n && y < n) out[x * n + y] = tile[threadIdx.x][threadIdx.y];
}

__global__ void dynamic_sum(const float* in, float* out) {
    // ruleid: cuda-shared-memory
    extern __shared__ float buffer[];
    buffer[threadIdx.x] = in[threadIdx.x];
    // ruleid: cuda-shared-memory
    if (__syncthreads_or(buffer[threadIdx.x] > 0.f)) out[0] = buffer[0];
}
