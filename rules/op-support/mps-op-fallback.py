import numpy as np
import torch
import torch.nn.functional as F
from torch import linalg as LA
from torch import nn


def mode(values):
    # The lab's own function named like an aten op.
    return max(set(values), key=values.count)


class Registry:
    def take(self, key):
        return key


def step(x, logits, target, idx, table, cfg):
    # ruleid: mps-op-fallback
    picked = torch.take(logits, idx)
    # ruleid: mps-op-fallback
    loss = F.multi_margin_loss(logits, target)
    # ruleid: mps-op-fallback
    loss2 = nn.functional.multi_margin_loss(logits, target)
    # ruleid: mps-op-fallback
    spectrum = torch.linalg.eig(x)
    # ruleid: mps-op-fallback
    spectrum2 = LA.eig(x)
    # ruleid: mps-op-fallback
    pool = nn.AdaptiveAvgPool3d((2, 4, 4))
    # An output size of 1 is a mean over the last three dimensions (params.native_when).
    # ok: mps-op-fallback
    pool_global = nn.AdaptiveAvgPool3d(1)
    # ok: mps-op-fallback
    pooled = F.adaptive_avg_pool3d(x, output_size=(1, 1, 1))
    # ruleid: mps-op-fallback
    values = torch.mode(x, dim=0)
    # A quantized tensor cannot live on MPS (there is no QuantizedMPS backend): its methods never run there.
    # ok: mps-op-fallback
    q = x.int_repr()
    # ok: mps-op-fallback
    deq = x.dequantize() if x.is_quantized else x
    scores = torch.softmax(logits, dim=-1)
    # ruleid: mps-op-fallback
    top = scores.take(idx)
    # ruleid: mps-op-fallback
    scores.record_stream(cfg.stream)
    # CUDA code whatever the op (the CUDA stream rules report it): rewritten for a Mac anyway.
    # ok: mps-op-fallback
    scores.record_stream(torch.cuda.current_stream())
    main_stream = torch.cuda.current_stream()
    # ok: mps-op-fallback
    scores.record_stream(main_stream)
    with torch.cuda.device(0):
        # ok: mps-op-fallback
        most_on_cuda = scores.take(idx)
    # ruleid: mps-op-fallback
    most = torch.randn(8).mode()
    # ok: mps-op-fallback
    common = mode([1, 2, 2])
    # ok: mps-op-fallback
    first = np.take(np.arange(4), [0])
    # ok: mps-op-fallback
    entry = table.take("key")
    # ok: mps-op-fallback
    reg = Registry().take("a")
    # ok: mps-op-fallback
    own = cfg.mode()
    # ok: mps-op-fallback
    vals = table.values()
    # Moved to the CPU on purpose: the op runs there.
    # ok: mps-op-fallback
    spectrum_cpu = torch.linalg.eig(x.cpu())
    # ok: mps-op-fallback
    picked_cpu = torch.take(logits.to("cpu"), idx)
    # ok: mps-op-fallback
    sym = torch.linalg.eigh(x)
    # ok: mps-op-fallback
    soft = F.softmax(logits, dim=-1)
    # ok: mps-op-fallback
    pool2 = nn.AdaptiveAvgPool2d(1)
    # mode="area" of a 5-D input runs adaptive_avg_pool3d, whose _adaptive_avg_pool3d has no MPS kernel.
    # ruleid: mps-op-fallback
    area3 = F.interpolate(x, size=(2, 4, 4), mode="area")
    # ok: mps-op-fallback
    area2 = F.interpolate(x, size=(4, 4), mode="area")
    return picked, loss, loss2, spectrum, spectrum2, spectrum_cpu, picked_cpu, pool, pool_global, pooled, values, q, deq, top, most, common, first, entry, reg, own, vals, sym, soft, pool2, area3, area2


class Model(nn.Module):
    def mode(self):
        return "train"

    def forward(self, x):
        # ok: mps-op-fallback
        return self.mode(), x


def memory_map(path, n):
    # ruleid: mps-op-fallback
    mapped = torch.from_file(path, size=n)
    # a tensor the factory makes on the CPU by its own keyword (tensordict's memory maps)
    # ok: mps-op-fallback
    on_cpu = torch.from_file(path, size=n, device=torch.device("cpu"))
    # ok: mps-op-fallback
    on_cpu_too = torch.from_file(path, size=n, device="cpu")
    return mapped, on_cpu, on_cpu_too
