"""An MLP step whose batch size comes from the command line, for `mpsport audit --sweep`."""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--batch", type=int, default=32)
args = parser.parse_args()
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
for step in range(20):
    x, y = torch.randn(args.batch, 64), torch.randint(0, 10, (args.batch,))
    opt.zero_grad()
    loss_fn(model(x), y).backward()
    opt.step()
