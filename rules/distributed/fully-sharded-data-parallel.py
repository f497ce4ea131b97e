import torch
import torch.distributed.fsdp as fsdp
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.nn.parallel import DistributedDataParallel as DDP


def wrap(model, rank, sharded):
    if sharded:
        # ruleid: fully-sharded-data-parallel
        return FSDP(model)
    # ruleid: fully-sharded-data-parallel
    sharded_too = fsdp.FullyShardedDataParallel(model)
    # ruleid: fully-sharded-data-parallel
    spelled = torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel(model)
    # ok: fully-sharded-data-parallel
    ddp = DDP(model, device_ids=[rank])
    return sharded_too, spelled, ddp
