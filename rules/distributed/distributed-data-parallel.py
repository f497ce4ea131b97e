import torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.nn.parallel import DistributedDataParallel as DDP


def wrap(model, rank, sharded):
    if sharded:
        # ok: distributed-data-parallel
        return FSDP(model)
    # ruleid: distributed-data-parallel
    ddp = DDP(model, device_ids=[rank])
    # ruleid: distributed-data-parallel
    other = torch.nn.parallel.DistributedDataParallel(model)
    # ok: distributed-data-parallel
    plain = torch.nn.Sequential(model)
    return ddp, other, plain
