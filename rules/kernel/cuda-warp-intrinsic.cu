#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2)
        // ruleid: cuda-warp-intrinsic
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

template <typename T>
__device__ T warp_max(T v) {
    for (int offset = 16; offset > 0; offset /= 2)
        // ruleid: cuda-warp-intrinsic
        v = max(v, __shfl_xor_sync(0xffffffff, v, offset));
    return v;
}

__global__ void vote(const float* x, unsigned* out) {
    // ruleid: cuda-warp-intrinsic
    unsigned mask = __ballot_sync(0xffffffff, x[threadIdx.x] > 0.f);
    // ok: cuda-warp-intrinsic
    cg::thread_block block = cg::this_thread_block();
    block.sync();
    // ruleid: cuda-warp-intrinsic
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    mask += tile.ballot(x[threadIdx.x] > 1.f);
    // ok: cuda-warp-intrinsic
    out[threadIdx.x] = mask + static_cast<unsigned>(warp_sum(x[threadIdx.x]));
    // ok: cuda-warp-intrinsic
    out[0] = warp_max(out[0]);
}
