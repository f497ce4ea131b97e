"""Mixed precision with a GradScaler: scaler.step(opt) steps (or skips) the optimizer."""
import torch
from torch import nn

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
scaler = torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())
for step in range(30):
    loss = model(torch.randn(4, 8)).pow(2).mean()
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
