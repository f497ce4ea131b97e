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
    # The input's rank is not known: a 4-D input runs upsample_nearest2d (MPS kernel), a 5-D one
    # upsample_nearest3d (none in 2.6.0). Reported at info, naming the 5-D case.
    # ruleid: mps-op-fallback-fixed-upstream
    up_default = nn.Upsample(scale_factor=2)
    # A size of three values: a 5-D input, upsample_nearest3d.
    # ruleid: mps-op-fallback-fixed-upstream
    up_volume = F.interpolate(x, size=(4, 8, 8))
    # ok: mps-op-fallback-fixed-upstream
    up_image = F.interpolate(x, size=(8, 8))
    # ok: mps-op-fallback-fixed-upstream
    up_square = F.interpolate(x, [8] * 2)
    # ok: mps-op-fallback-fixed-upstream
    up_like = F.interpolate(x, size=size.shape[-2:], mode="nearest")
    # ruleid: mps-op-fallback-fixed-upstream
    up_like_volume = F.interpolate(x, size=size.shape[-3:], mode="nearest")
    # antialias=True runs _upsample_bilinear2d_aa, which has an MPS kernel from 2.14.1 only.
    # ruleid: mps-op-fallback-fixed-upstream
    down_aa = F.interpolate(x, scale_factor=0.5, mode="bilinear", antialias=True)
    # ok: mps-op-fallback-fixed-upstream
    down = F.interpolate(x, scale_factor=0.5, mode="bilinear", antialias=False)
    # ok: mps-op-fallback-fixed-upstream
    up_unknown = F.interpolate(x, scale_factor=2, mode=size)
    # ok: mps-op-fallback-fixed-upstream
    nearest_2d = nn.UpsamplingNearest2d(scale_factor=2)
    return pool, y, m, q, t, z, up3, up3_positional, upsample, lrn, up2, up_default, up_unknown, nearest_2d, up_volume, up_image, up_square, up_like, up_like_volume, down_aa, down


def volume(size):
    # The input is made 5-D in the same function.
    vol = torch.randn(1, 2, 4, 8, 8)
    # ruleid: mps-op-fallback-fixed-upstream
    return F.interpolate(vol, scale_factor=2)


def warp_volume(grid):
    # A 5-D input samples with grid_sampler_3d, which has an MPS kernel from 2.14.1.
    vol = torch.randn(1, 2, 4, 8, 8)
    # ruleid: mps-op-fallback-fixed-upstream
    return F.grid_sample(vol, grid, align_corners=False)


def warp_image(grid):
    # A 4-D input samples with grid_sampler_2d (an MPS kernel in 2.6.0 already); only its backward,
    # grid_sampler_2d_backward, waits for 2.14.1.
    img = torch.randn(1, 2, 8, 8)
    # ruleid: mps-op-fallback-fixed-upstream
    return F.grid_sample(img, grid, "nearest")


class Decoder3d(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(4, 4, 3)
        # In a class whose layers are all 3-D: a 5-D input.
        # ruleid: mps-op-fallback-fixed-upstream
        self.up = nn.Upsample(scale_factor=2, mode="nearest")


class Decoder2d(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3)
        # ok: mps-op-fallback-fixed-upstream
        self.up = nn.Upsample(scale_factor=2, mode="nearest")


def upsample_block(dim):
    # In a function that builds 1-D layers only: a 3-D input, upsample_nearest1d (MPS kernel).
    # ok: mps-op-fallback-fixed-upstream
    return nn.Sequential(nn.Upsample(scale_factor=2, mode="nearest"), nn.Conv1d(dim, dim, 3))
