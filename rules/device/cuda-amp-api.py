import torch
from torch.cuda.amp import GradScaler, autocast
from torch.cuda.amp import custom_fwd


class Fn(torch.autograd.Function):
    @staticmethod
    # ruleid: cuda-amp-api
    @custom_fwd
    def forward(ctx, x):
        return x * 2


def step(model, x, opt):
    # ruleid: cuda-amp-api
    scaler = GradScaler()
    # ruleid: cuda-amp-api
    with autocast():
        loss = model(x).sum()
    # ruleid: cuda-amp-api
    with torch.cuda.amp.autocast(dtype=torch.float16):
        loss = loss + model(x).sum()
    # ok: cuda-amp-api
    with torch.autocast(device_type="mps", dtype=torch.float16):
        loss = loss + model(x).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
