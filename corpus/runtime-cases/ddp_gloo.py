"""Two ranks under torchrun with gloo: DDP, an explicit all_reduce of the loss and a broadcast."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo")
torch.manual_seed(dist.get_rank())
model = DistributedDataParallel(nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
flag = torch.zeros(1)
dist.broadcast(flag, src=0)
for step in range(50):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    report = loss.detach().clone()
    dist.all_reduce(report)
dist.destroy_process_group()
