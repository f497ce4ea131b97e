import time

import torch
from torch import cuda


def bench(fn):
    # ruleid: torch-cuda-synchronize
    torch.cuda.synchronize()
    start = time.time()
    fn()
    # ruleid: torch-cuda-synchronize
    cuda.synchronize()
    # ok: torch-cuda-synchronize
    torch.mps.synchronize()
    return time.time() - start
