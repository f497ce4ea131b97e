"""Gradient accumulation: four backward passes per optimizer step."""
import torch
from torch import nn

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
accumulate = 4
for i in range(80):
    loss = model(torch.randn(4, 8)).pow(2).mean() / accumulate
    loss.backward()
    if (i + 1) % accumulate == 0:
        opt.step()
        opt.zero_grad()
