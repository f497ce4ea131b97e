"""One op with no MPS kernel runs once before training (set-up), another in every step."""
import torch
from torch import nn

setup = torch.linalg.eig(torch.randn(4, 4))  # once
model = nn.Linear(8, 8)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
index = torch.tensor([0, 3, 5])
for step in range(20):
    out = model(torch.randn(4, 8))
    loss = torch.take(out, index).pow(2).mean()  # every step
    opt.zero_grad()
    loss.backward()
    opt.step()
