import torch
from torch.cuda.amp import custom_bwd, custom_fwd


class Scale(torch.autograd.Function):
    @staticmethod
    # ruleid: cuda-amp-custom-fwd
    @custom_fwd
    def forward(ctx, x):
        return x * 2

    @staticmethod
    # ruleid: cuda-amp-custom-fwd
    @custom_bwd
    def backward(ctx, g):
        return g * 2


class Cast(torch.autograd.Function):
    @staticmethod
    # ruleid: cuda-amp-custom-fwd
    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, x):
        return x.sum()

    @staticmethod
    # ok: cuda-amp-custom-fwd
    @torch.amp.custom_bwd(device_type="mps")
    def backward(ctx, g):
        return g
