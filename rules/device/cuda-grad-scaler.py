import torch
from torch.cuda import amp
from torch.cuda.amp import GradScaler


def scalers(use_amp):
    # ruleid: cuda-grad-scaler
    a = GradScaler()
    # ruleid: cuda-grad-scaler
    b = amp.GradScaler(enabled=use_amp)
    # ok: cuda-grad-scaler
    c = torch.cuda.amp.GradScaler(enabled=False)
    # ok: cuda-grad-scaler
    d = torch.amp.GradScaler("mps")
    return a, b, c, d
