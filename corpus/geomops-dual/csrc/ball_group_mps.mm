// ball_group on Apple GPUs: a Metal compute kernel, dispatched on the tensor's MPS command stream.
#import <Foundation/Foundation.h>
#import <Metal/Metal.h>
#include <ATen/mps/MPSStream.h>
#include <torch/extension.h>

namespace geomops {

static const char* kBallGroupSource = R"(
#include <metal_stdlib>
using namespace metal;
kernel void ball_group(device const float* x [[buffer(0)]], device const float* centers [[buffer(1)]],
                       device long* out [[buffer(2)]], constant uint& n [[buffer(3)]], constant float& r2 [[buffer(4)]],
                       constant uint& nsample [[buffer(5)]], uint c [[thread_position_in_grid]]) {
    uint found = 0;
    for (uint i = 0; i < n && found < nsample; ++i) {
        float3 d = float3(x[3 * i], x[3 * i + 1], x[3 * i + 2]) - float3(centers[3 * c], centers[3 * c + 1], centers[3 * c + 2]);
        if (dot(d, d) < r2) out[c * nsample + found++] = i;
    }
}
)";

at::Tensor ball_group_mps(const at::Tensor& x, const at::Tensor& centers, double radius, int64_t nsample) {
    TORCH_CHECK(x.is_mps() && centers.is_mps(), "ball_group_mps: MPS tensors expected");
    auto out = at::zeros({centers.size(0), nsample}, x.options().dtype(at::kLong));
    @autoreleasepool {
        id<MTLDevice> device = MTLCreateSystemDefaultDevice();
        NSError* error = nil;
        id<MTLLibrary> library = [device newLibraryWithSource:[NSString stringWithUTF8String:kBallGroupSource] options:nil error:&error];
        TORCH_CHECK(library, "ball_group_mps: the Metal kernel did not compile");
        id<MTLFunction> fn = [library newFunctionWithName:@"ball_group"];
        id<MTLComputePipelineState> pipeline = [device newComputePipelineStateWithFunction:fn error:&error];
        at::mps::MPSStream* stream = at::mps::getCurrentMPSStream();
        id<MTLComputeCommandEncoder> encoder = [stream->commandBuffer() computeCommandEncoder];
        [encoder setComputePipelineState:pipeline];
        [encoder dispatchThreads:MTLSizeMake(centers.size(0), 1, 1) threadsPerThreadgroup:MTLSizeMake(64, 1, 1)];
        [encoder endEncoding];
    }
    return out;
}

}  // namespace geomops

TORCH_LIBRARY_IMPL(geomops, MPS, m) { m.impl("ball_group", &geomops::ball_group_mps); }
