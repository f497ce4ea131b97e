"""Calls a CUDA-only extension function: under --remap it fails, with the extension named."""
import torch
from torch import nn

import fake_cuda_ext

model = nn.Linear(8, 8).cuda()
bias = torch.zeros(8).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(5):
    h = fake_cuda_ext.fused_bias_gelu(model(torch.randn(4, 8).cuda()), bias)
    h.pow(2).mean().backward()
    opt.step()
