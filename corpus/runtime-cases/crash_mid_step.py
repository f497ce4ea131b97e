"""Completes one step, then crashes in the forward pass of the second."""
import torch
from torch import nn


class Flaky(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.calls == 2:
            raise RuntimeError("simulated failure in the second forward pass")
        return self.fc(x)


model = Flaky()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
for _ in range(3):
    opt.zero_grad()
    model(x).pow(2).mean().backward()
    opt.step()
