import numpy as np
import torch


def make_batch(n):
    a = np.random.rand(n, 10)
    # ruleid: numpy-float64-into-torch
    x = torch.from_numpy(a)
    b = np.zeros((n, 1))
    # ruleid: numpy-float64-into-torch
    y = torch.tensor(b)
    c = np.arange(n).astype(np.float64)
    # ruleid: numpy-float64-into-torch
    z = torch.as_tensor(c)
    d = np.random.rand(n, 10).astype(np.float32)
    # ok: numpy-float64-into-torch
    w = torch.from_numpy(d)
    e = np.zeros((n, 1), dtype=np.float32)
    # ok: numpy-float64-into-torch
    v = torch.tensor(e)
    # ok: numpy-float64-into-torch
    u = torch.tensor(b, dtype=torch.float32)
    # ruleid: numpy-float64-into-torch
    t = torch.from_numpy(np.linspace(0, 1, n))
    # converted on the CPU where it is made (Yet-Another-EfficientDet-Pytorch's dataset)
    # ok: numpy-float64-into-torch
    s = torch.from_numpy(a).to(torch.float32)
    # ok: numpy-float64-into-torch
    r = torch.tensor(b).float()
    # ok: numpy-float64-into-torch
    q = torch.from_numpy(a).to(dtype=torch.half)
    # a device move keeps the float64
    # ruleid: numpy-float64-into-torch
    p = torch.from_numpy(a).to("cuda")
    return x, y, z, w, v, u, t, s, r, q, p


def other_scope(n):
    # ok: numpy-float64-into-torch
    return torch.from_numpy(a)  # noqa: F821 - `a` here is not the float64 array above


def noisy(batch, scale):
    noise = np.random.randn(*batch.shape) * scale
    # ruleid: numpy-float64-into-torch
    return batch + torch.from_numpy(noise)
