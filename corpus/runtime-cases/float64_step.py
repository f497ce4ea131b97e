"""Trains in float64: fine on CPU and CUDA, impossible on MPS."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1).double()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x = torch.randn(16, 4, dtype=torch.float64)
y = x.mean(dim=1, keepdim=True)
for _ in range(5):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
