import random

import numpy as np
import torch


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    # ok: torch-cuda-seed
    torch.manual_seed(seed)
    # ruleid: torch-cuda-seed
    torch.cuda.manual_seed_all(seed)
    # ruleid: torch-cuda-seed
    state = torch.cuda.get_rng_state()
    return state
