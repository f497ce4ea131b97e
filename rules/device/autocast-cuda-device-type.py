import torch


def forward(model, x, device):
    # ruleid: autocast-cuda-device-type
    with torch.autocast("cuda", dtype=torch.bfloat16):
        y = model(x)
    # ruleid: autocast-cuda-device-type
    scaler = torch.amp.GradScaler(device="cuda")
    # ok: autocast-cuda-device-type
    with torch.autocast(device_type=device.type):
        y = model(y)
    return y, scaler
