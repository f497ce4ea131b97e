"""Hangs after its first forward pass (a stuck data loader, a dead collective...)."""
import time

import torch
from torch import nn

model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
out = model(torch.randn(8, 4))
while True:
    time.sleep(0.1)
