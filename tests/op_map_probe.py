"""Runs the hand-kept Python names of rules/mps/python-names.yaml whose op is not their own name
(F.interpolate by mode, input rank and antialias, nn.Upsample, LocalResponseNorm, LPPool, ...) through a forward and backward
pass on the CPU and prints, per name as the op map spells it, the aten ops PyTorch's profiler saw.
tests/test_auditor_tables.cpp checks that every op the map names for them is among them."""
import json
import warnings

import torch
import torch.nn.functional as F
from torch import nn

warnings.simplefilter("ignore")
x3 = torch.randn(1, 2, 4, requires_grad=True)
x4 = torch.randn(1, 2, 4, 4, requires_grad=True)
x5 = torch.randn(1, 2, 4, 4, 4, requires_grad=True)
CASES = {
    "torch.nn.functional.interpolate(mode=nearest, rank=1)": lambda: F.interpolate(x3, scale_factor=2),
    "torch.nn.functional.interpolate(mode=nearest, rank=2)": lambda: F.interpolate(x4, scale_factor=2),
    "torch.nn.functional.interpolate(mode=nearest, rank=3)": lambda: F.interpolate(x5, scale_factor=2),
    "torch.nn.functional.interpolate(mode=nearest-exact, rank=2)": lambda: F.interpolate(x4, scale_factor=2, mode="nearest-exact"),
    "torch.nn.functional.interpolate(mode=nearest-exact, rank=3)": lambda: F.interpolate(x5, scale_factor=2, mode="nearest-exact"),
    "torch.nn.functional.interpolate(mode=linear)": lambda: F.interpolate(x3, scale_factor=2, mode="linear"),
    "torch.nn.functional.interpolate(mode=bilinear)": lambda: F.interpolate(x4, scale_factor=2, mode="bilinear"),
    "torch.nn.functional.interpolate(mode=bicubic)": lambda: F.interpolate(x4, scale_factor=2, mode="bicubic"),
    "torch.nn.functional.interpolate(mode=trilinear)": lambda: F.interpolate(x5, scale_factor=2, mode="trilinear"),
    "torch.nn.functional.interpolate(mode=area, rank=1)": lambda: F.interpolate(x3, scale_factor=2, mode="area"),
    "torch.nn.functional.interpolate(mode=area, rank=2)": lambda: F.interpolate(x4, scale_factor=2, mode="area"),
    "torch.nn.functional.interpolate(mode=area, rank=3)": lambda: F.interpolate(x5, scale_factor=2, mode="area"),
    "torch.nn.functional.interpolate(mode=bilinear, antialias=True)": lambda: F.interpolate(x4, scale_factor=0.5, mode="bilinear", antialias=True),
    "torch.nn.functional.interpolate(mode=bicubic, antialias=True)": lambda: F.interpolate(x4, scale_factor=0.5, mode="bicubic", antialias=True),
    "torch.nn.functional.upsample(mode=bilinear)": lambda: F.upsample(x4, scale_factor=2, mode="bilinear"),
    "torch.nn.Upsample(mode=nearest, rank=2)": lambda: nn.Upsample(scale_factor=2)(x4),
    "torch.nn.Upsample(mode=nearest, rank=3)": lambda: nn.Upsample(scale_factor=2)(x5),
    "torch.nn.Upsample(mode=trilinear)": lambda: nn.Upsample(scale_factor=2, mode="trilinear")(x5),
    "torch.nn.UpsamplingNearest2d": lambda: nn.UpsamplingNearest2d(scale_factor=2)(x4),
    "torch.nn.UpsamplingBilinear2d": lambda: nn.UpsamplingBilinear2d(scale_factor=2)(x4),
    "torch.nn.functional.upsample_nearest": lambda: F.upsample_nearest(x4, scale_factor=2),
    "torch.nn.functional.upsample_bilinear": lambda: F.upsample_bilinear(x4, scale_factor=2),
    "torch.nn.LocalResponseNorm": lambda: nn.LocalResponseNorm(2)(x4),
    "torch.nn.functional.local_response_norm": lambda: F.local_response_norm(x4, 2),
    "torch.nn.LPPool1d": lambda: nn.LPPool1d(2, 2)(x3),
    "torch.nn.LPPool2d": lambda: nn.LPPool2d(2, 2)(x4),
    "torch.nn.functional.lp_pool2d": lambda: F.lp_pool2d(x4, 2, 2),
}

seen = {}
for name, run in CASES.items():
    with torch.autograd.profiler.profile() as prof:
        run().sum().backward()
    seen[name] = sorted({e.name for e in prof.function_events if e.name.startswith("aten::")})
print(json.dumps(seen))
