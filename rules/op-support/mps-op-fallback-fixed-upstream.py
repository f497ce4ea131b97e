# mpsport-fixture: target-torch=2.6.0
# Scanned for PyTorch 2.6.0: these ops have MPS kernels from 2.14.1 on (tests check that 2.14.1 reports none).
import torch
import torch.nn.functional as F
from torch import nn


def block(x, size):
    # ruleid: mps-op-fallback-fixed-upstream
    pool = nn.AvgPool3d(2)
    # ruleid: mps-op-fallback-fixed-upstream
    y = F.max_pool3d(x, 2)
    # ruleid: mps-op-fallback-fixed-upstream
    m = torch.nanmedian(x)
    # ruleid: mps-op-fallback-fixed-upstream
    q = torch.linalg.qr(x)
    # ok: mps-op-fallback-fixed-upstream
    t = torch.take(x, size)
    # ok: mps-op-fallback-fixed-upstream
    z = F.avg_pool2d(x, 2)
    return pool, y, m, q, t, z
