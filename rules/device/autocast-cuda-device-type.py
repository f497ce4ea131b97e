import torch


def forward(model, x, device, use_amp):
    # ruleid: autocast-cuda-device-type
    with torch.autocast("cuda", dtype=torch.bfloat16):
        y = model(x)
    # ruleid: autocast-cuda-device-type
    scaler = torch.amp.GradScaler(device="cuda")
    # ok: autocast-cuda-device-type
    with torch.autocast(device_type=device.type):
        y = model(y)
    # ok: autocast-cuda-device-type
    with torch.autocast("cuda", enabled=False):  # a region kept in float32: off everywhere, Mac included
        loss = y.float().pow(2).mean()
    # ruleid: autocast-cuda-device-type
    with torch.autocast(device_type="cuda", enabled=use_amp):
        y = model(y)
    # ok: autocast-cuda-device-type
    with torch.autocast("cuda", dtype=torch.float):  # dinov2's notebook: float32 casts nothing anywhere
        y = model(y)
    # ruleid: autocast-cuda-device-type
    with torch.autocast("cuda", dtype=torch.bfloat16):
        y = model(y)
    return y, scaler, loss
