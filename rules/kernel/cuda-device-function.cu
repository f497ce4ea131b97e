// ruleid: cuda-device-function
__device__ float square(float v) { return v * v; }

template <typename T>
// ruleid: cuda-device-function
__device__ __forceinline__ T clamp01(T v) {
    return v < T(0) ? T(0) : (v > T(1) ? T(1) : v);
}

// ok: cuda-device-function
__host__ __device__ inline float lerp(float a, float b, float t) { return a + t * (b - a); }

// ok: cuda-device-function
__device__ float declared_only(float v);

// ok: cuda-device-function
__global__ void use(float* x) { x[0] = clamp01(square(x[0])); }
