#include <cuda_runtime.h>

__global__ void ball_query_kernel(int b, int n, int m, float radius2, int nsample, const float* __restrict__ xyz,
                                  const float* __restrict__ new_xyz, int* __restrict__ idx) {
    const int batch = blockIdx.y;
    const int pt = blockIdx.x * blockDim.x + threadIdx.x;
    if (batch >= b || pt >= m) return;
    const float* q = new_xyz + (batch * m + pt) * 3;
    const float* points = xyz + batch * n * 3;
    int* out = idx + (batch * m + pt) * nsample;
    int count = 0;
    for (int k = 0; k < n && count < nsample; ++k) {
        const float dx = points[k * 3] - q[0], dy = points[k * 3 + 1] - q[1], dz = points[k * 3 + 2] - q[2];
        if (dx * dx + dy * dy + dz * dz < radius2) {
            if (count == 0)
                for (int l = 0; l < nsample; ++l) out[l] = k;
            out[count++] = k;
        }
    }
}

void ball_query_launcher(int b, int n, int m, float radius, int nsample, const float* xyz, const float* new_xyz, int* idx) {
    dim3 blocks((m + 255) / 256, b);
    ball_query_kernel<<<blocks, 256>>>(b, n, m, radius * radius, nsample, xyz, new_xyz, idx);
}
