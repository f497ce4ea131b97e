import random

import numpy as np
import torch


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    # ok: torch-cuda-seed
    torch.cuda.manual_seed_all(seed)
    # ok: torch-cuda-seed
    state = torch.cuda.get_rng_state()
    return state


def seed_cuda_only(seed):
    random.seed(seed)
    # ruleid: torch-cuda-seed
    torch.cuda.manual_seed_all(seed)


def nested(seed):
    def inner():
        torch.manual_seed(seed)
    # ruleid: torch-cuda-seed
    torch.cuda.manual_seed(seed)
    return inner
