# ruleid: torch-distributed-launch
import torch.distributed.launch
# ruleid: torch-distributed-launch
from torch.distributed import run
# ok: torch-distributed-launch
import torch.distributed as dist
