"""Backward passes forever and never updates the parameters (a forgotten optimizer.step())."""
import torch
from torch import nn

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
while True:
    opt.zero_grad()
    model(torch.randn(4, 8)).pow(2).mean().backward()
