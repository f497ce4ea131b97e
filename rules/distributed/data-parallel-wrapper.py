import torch.nn as nn


def wrap(model):
    # ruleid: data-parallel-wrapper
    model = nn.DataParallel(model)
    # ok: data-parallel-wrapper
    seq = nn.Sequential(model)
    return model, seq
