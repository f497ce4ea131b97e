"""Keeps every step's activations in a global list: memory grows step after step."""
import torch
from torch import nn

history = []
model = nn.Linear(64, 64)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(100):
    x = torch.randn(64, 64)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    history.append(torch.randn(4 * 1024 * 1024))  # 16 MiB kept per step
