"""DDP under torchrun with the backend of your choice: python -m torch.distributed.run ... ddp_step.py --backend nccl|gloo."""
import argparse
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

parser = argparse.ArgumentParser()
parser.add_argument("--backend", default="nccl")
parser.add_argument("--steps", type=int, default=50)
args = parser.parse_args()
dist.init_process_group(args.backend)
local = int(os.environ.get("LOCAL_RANK", "0"))
device = torch.device("cuda", local) if args.backend == "nccl" else torch.device("cpu")
if device.type == "cuda":
    torch.cuda.set_device(device)
model = DistributedDataParallel(nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10)).to(device),
                                device_ids=[local] if device.type == "cuda" else None)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
flag = torch.zeros(1, device=device)
dist.broadcast(flag, src=0)
for step in range(args.steps):
    x, y = torch.randn(64, 256, device=device), torch.randint(0, 10, (64,), device=device)
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    dist.all_reduce(loss.detach())
dist.destroy_process_group()
