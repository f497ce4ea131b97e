import numpy as np
import torch


def covariance(x):
    # ruleid: float64-dtype
    x = x.double()
    # ruleid: float64-dtype
    w = torch.zeros(3, dtype=torch.float64)
    # ruleid: float64-dtype
    v = x.to(torch.double)
    # ruleid: float64-dtype
    u = torch.tensor([1.0], dtype="float64")
    # ok: float64-dtype
    f = x.float()
    # ok: float64-dtype
    a = np.zeros(3, dtype=np.float64)
    # ok: float64-dtype
    torch.set_default_dtype(torch.float64)
    # ok: float64-dtype
    label = "float64 is not supported on MPS"
    return x, w, v, u, f, a, label
