import torch
import torch.distributed.fsdp as fsdp
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.nn.parallel import DistributedDataParallel as DDP
from lightning.fabric.strategies import FSDPStrategy
import pytorch_lightning as pl


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


def fabric_strategy(policy):
    # ruleid: fully-sharded-data-parallel
    strategy = FSDPStrategy(auto_wrap_policy=policy)
    # ruleid: fully-sharded-data-parallel
    trainer_strategy = pl.strategies.FSDPStrategy()
    # ok: fully-sharded-data-parallel
    other = pl.strategies.DDPStrategy()
    return strategy, trainer_strategy, other
