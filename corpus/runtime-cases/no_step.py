"""Computes a loss and its gradients but never updates the parameters."""
import torch
from torch import nn

model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss = model(torch.randn(8, 4)).pow(2).mean()
loss.backward()
print("gradients computed; no optimizer step")
