"""A Triton kernel in the training step: under --remap it cannot run on the CPU or MPS."""
import torch
import triton
import triton.language as tl
from torch import nn


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    tl.store(out_ptr + i, tl.load(x_ptr + i, mask=mask) + tl.load(y_ptr + i, mask=mask), mask=mask)


def triton_add(x, y):
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)
    return out


model = nn.Linear(256, 256).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(10):
    x = torch.randn(64, 256, device="cuda")
    h = triton_add(model(x), x)
    opt.zero_grad()
    h.pow(2).mean().backward()
    opt.step()
