"""A plain MLP regression step: every op has an MPS kernel."""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cpu")
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1)).to(args.device)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.MSELoss()
x = torch.randn(64, 8, device=args.device)
y = x.sum(dim=1, keepdim=True)
for step in range(args.steps):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
print("final loss", loss.item())
