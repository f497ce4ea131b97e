__device__ unsigned lane_id() {
    unsigned lane;
    // ruleid: cuda-inline-ptx
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

__global__ void stamp(unsigned long long* out) {
    unsigned long long t;
    // ruleid: cuda-inline-ptx
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    out[lane_id()] = t;
}

// Host code may hold asm for the CPU: that is not PTX.
void host_pause() {
    // ok: cuda-inline-ptx
    asm volatile("" ::: "memory");
}
