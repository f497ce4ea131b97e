#include <torch/extension.h>

#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x) TORCH_CHECK(x.is_contiguous(), #x " must be contiguous")
#define CHECK_INPUT(x) \
    CHECK_CUDA(x);     \
    CHECK_CONTIGUOUS(x)

at::Tensor nms_cuda(const at::Tensor& boxes, double iou);

at::Tensor nms(const at::Tensor& boxes, const at::Tensor& scores, double iou) {
    // ruleid: cuda-tensor-gate
    TORCH_CHECK(boxes.is_cuda(), "boxes must be a CUDA tensor");
    // ruleid: cuda-tensor-gate
    CHECK_INPUT(scores);
    // ruleid: cuda-tensor-gate
    AT_ASSERTM(boxes.device().is_cuda(), "boxes must live on the GPU");
    // ok: cuda-tensor-gate
    TORCH_CHECK(boxes.dim() == 2, "boxes must be N x 4");
    // ok: cuda-tensor-gate
    if (!boxes.is_cuda()) return boxes;
    // A check that the tensor is NOT on CUDA guards a CPU implementation (maskrcnn-benchmark's
    // ROIAlign_forward_cpu): through the macro's static_cast<bool>.
    // ok: cuda-tensor-gate
    AT_ASSERTM(!scores.type().is_cuda(), "scores must be a CPU tensor");
    return nms_cuda(boxes, iou);
}
