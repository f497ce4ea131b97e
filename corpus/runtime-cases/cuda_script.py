"""A CUDA training script, unedited: .cuda(), torch.device("cuda"), .to("cuda"), synchronize, seeds,
memory calls, streams and events, cudnn flags, torch.cuda.amp and an NCCL process group. Under
`mpsport audit --remap cuda=cpu` it completes its step on a machine without a GPU."""
import os

import torch
import torch.distributed as dist
from torch import nn

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", str(29500 + os.getpid() % 1000))
dist.init_process_group("nccl", rank=0, world_size=1)
torch.backends.cudnn.benchmark = True
torch.cuda.manual_seed(0)
device = torch.device("cuda")
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
scaler = torch.cuda.amp.GradScaler()
loss_fn = nn.CrossEntropyLoss()
stream = torch.cuda.Stream()
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
for step in range(20):
    x = torch.randn(32, 16).to("cuda", non_blocking=True)
    y = torch.randint(0, 4, (32,), device=device)
    start.record()
    with torch.cuda.amp.autocast():
        loss = loss_fn(model(x), y)
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    end.record()
    torch.cuda.synchronize()
    print("step", step, "loss %.3f" % loss.item(), "%.2f ms" % start.elapsed_time(end), torch.cuda.max_memory_allocated())
dist.destroy_process_group()
