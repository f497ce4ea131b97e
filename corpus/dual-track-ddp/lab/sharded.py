"""The 7B configuration: parameters, gradients and optimizer state are sharded over the GPUs,
because the model does not fit one of them."""
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

from lab.model import TinyLM


def build_sharded(device):
    return FSDP(TinyLM().to(device), device_id=device)
