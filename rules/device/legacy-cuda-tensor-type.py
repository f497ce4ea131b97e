from typing import Union

import torch
import torch.cuda as tc
from torch.cuda import LongTensor

# ok: legacy-cuda-tensor-type
IndexType = Union[str, slice, int, torch.cuda.LongTensor]


# ok: legacy-cuda-tensor-type
def annotated(index: torch.cuda.LongTensor) -> None:
    return None


def make_batch(n, dims, device):
    # ruleid: legacy-cuda-tensor-type
    points = torch.cuda.FloatTensor(n, dims).uniform_()
    # ruleid: legacy-cuda-tensor-type
    labels = LongTensor(n).zero_()
    # ruleid: legacy-cuda-tensor-type
    mask = tc.BoolTensor(n)
    # ok: legacy-cuda-tensor-type
    weights = torch.empty(n, device=device)
    # ok: legacy-cuda-tensor-type
    cpu_side = torch.FloatTensor(n)
    return points, labels, mask, weights, cpu_side


def check(x):
    # ruleid: legacy-cuda-tensor-type
    if isinstance(x, torch.cuda.HalfTensor):
        return x
    # ruleid: legacy-cuda-tensor-type
    if isinstance(x, (torch.cuda.FloatTensor, torch.FloatTensor)):
        return x
    # ruleid: legacy-cuda-tensor-type
    y = x.type(torch.cuda.DoubleTensor)
    # ruleid: legacy-cuda-tensor-type
    z = x.type("torch.cuda.FloatTensor")
    # ok: legacy-cuda-tensor-type
    w = x.type("torch.FloatTensor")
    # ok: legacy-cuda-tensor-type
    kind = x.type()
    return y, z, w, kind


def setup_defaults():
    # ruleid: legacy-cuda-tensor-type
    torch.set_default_tensor_type("torch.cuda.FloatTensor")
    # ruleid: legacy-cuda-tensor-type
    torch.set_default_tensor_type(torch.cuda.FloatTensor)
    # ok: legacy-cuda-tensor-type
    torch.set_default_dtype(torch.float32)
    # ok: legacy-cuda-tensor-type
    torch.cuda.synchronize()


def hijack_for_xpu():
    # ok: legacy-cuda-tensor-type
    torch.cuda.DoubleTensor = torch.xpu.DoubleTensor
    # ruleid: legacy-cuda-tensor-type
    alias = torch.cuda.FloatTensor
    return alias
