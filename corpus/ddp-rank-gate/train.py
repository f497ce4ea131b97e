import os

import torch
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP

from model import TinyGPT

backend = "nccl"
batch_size = 8
max_iters = 20

ddp = int(os.environ.get("RANK", -1)) != -1
if ddp:
    init_process_group(backend=backend)
    local_rank = int(os.environ["LOCAL_RANK"])
    device = f"cuda:{local_rank}"
    torch.cuda.set_device(device)
else:
    device = "mps" if torch.backends.mps.is_available() else "cpu"

model = TinyGPT().to(device)
if ddp:
    model = DDP(model, device_ids=[local_rank])
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for it in range(max_iters):
    idx = torch.randint(0, 64, (batch_size, 16), device=device)
    logits = model(idx)
    loss = torch.nn.functional.cross_entropy(logits.view(-1, 64), idx.view(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
if ddp:
    destroy_process_group()
