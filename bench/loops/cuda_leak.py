"""Keeps each step's activations on the GPU: accelerator memory grows step after step."""
import torch
from torch import nn

kept = []
model = nn.Linear(1024, 1024).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(50):
    out = model(torch.randn(256, 1024, device="cuda"))
    opt.zero_grad()
    out.pow(2).mean().backward()
    opt.step()
    kept.append(torch.randn(16, 1024, 1024, device="cuda"))  # 64 MiB kept per step
