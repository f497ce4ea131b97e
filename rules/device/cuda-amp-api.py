import torch
from torch.cuda.amp import GradScaler, autocast


def step(model, x, opt):
    # ok: cuda-amp-api
    scaler = GradScaler()
    # ruleid: cuda-amp-api
    with autocast():
        loss = model(x).sum()
    # ruleid: cuda-amp-api
    with torch.cuda.amp.autocast(dtype=torch.float16):
        loss = loss + model(x).sum()
    # ok: cuda-amp-api
    with torch.cuda.amp.autocast(enabled=False):
        loss = loss + model(x).float().sum()
    # ok: cuda-amp-api
    with torch.autocast(device_type="mps", dtype=torch.float16):
        loss = loss + model(x).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
