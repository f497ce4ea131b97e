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
    # F.interpolate and nn.Upsample run the upsample op of their mode: trilinear has an MPS kernel from 2.14.1.
    # ruleid: mps-op-fallback-fixed-upstream
    up3 = F.interpolate(x, scale_factor=2, mode="trilinear", align_corners=False)
    # ruleid: mps-op-fallback-fixed-upstream
    up3_positional = F.interpolate(x, None, 2, "trilinear")
    # ruleid: mps-op-fallback-fixed-upstream
    upsample = nn.Upsample(scale_factor=2, mode="trilinear")
    # ruleid: mps-op-fallback-fixed-upstream
    lrn = nn.LocalResponseNorm(5)
    # ok: mps-op-fallback-fixed-upstream
    up2 = F.interpolate(x, scale_factor=2, mode="bilinear")
    # ok: mps-op-fallback-fixed-upstream
    up_default = nn.Upsample(scale_factor=2)
    # ok: mps-op-fallback-fixed-upstream
    up_unknown = F.interpolate(x, scale_factor=2, mode=size)
    # ok: mps-op-fallback-fixed-upstream
    nearest_2d = nn.UpsamplingNearest2d(scale_factor=2)
    return pool, y, m, q, t, z, up3, up3_positional, upsample, lrn, up2, up_default, up_unknown, nearest_2d
