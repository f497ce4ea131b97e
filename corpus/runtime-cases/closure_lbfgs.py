"""LBFGS: forward and backward happen inside optimizer.step(closure)."""
import torch
from torch import nn

model = nn.Linear(4, 1)
opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=4)
x, y = torch.randn(32, 4), torch.randn(32, 1)
loss_fn = nn.MSELoss()


def closure():
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    return loss


for step in range(20):
    opt.step(closure)
