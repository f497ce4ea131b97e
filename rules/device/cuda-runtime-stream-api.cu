#include <cuda_runtime.h>

float timed(cudaStream_t s) {
    cudaEvent_t start, stop;
    // ruleid: cuda-runtime-stream-api
    cudaEventCreate(&start);
    // ruleid: cuda-runtime-stream-api
    cudaEventCreate(&stop);
    // ruleid: cuda-runtime-stream-api
    cudaEventRecord(start, s);
    cudaGraph_t graph;
    // ruleid: cuda-runtime-stream-api
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    // ruleid: cuda-runtime-stream-api
    cudaStreamEndCapture(s, &graph);
    float ms = 0;
    // ruleid: cuda-runtime-stream-api
    cudaEventElapsedTime(&ms, start, stop);
    // ok: cuda-runtime-stream-api
    cudaStream_t copy_of_handle = s;
    (void)copy_of_handle;
    return ms;
}
