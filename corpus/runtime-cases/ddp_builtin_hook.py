"""Two ranks under torchrun with gloo, DDP with a builtin C++ comm hook (FP16_COMPRESS): its gradient
reductions happen in C++, where a patched dist.all_reduce never sees them."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo")
torch.manual_seed(dist.get_rank())
model = DistributedDataParallel(nn.Linear(8, 1))
model._register_builtin_comm_hook(dist.BuiltinCommHookType.FP16_COMPRESS)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(50):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
dist.destroy_process_group()
