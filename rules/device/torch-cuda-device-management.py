import torch


def setup(local_rank):
    # ruleid: torch-cuda-device-management
    torch.cuda.set_device(local_rank)
    # ruleid: torch-cuda-device-management
    n = torch.cuda.device_count()
    # ruleid: torch-cuda-device-management
    use_bf16 = torch.cuda.is_bf16_supported()
    # ok: torch-cuda-device-management
    multi = torch.cuda.device_count() > 1
    # ok: torch-cuda-device-management
    m = torch.mps.device_count() if hasattr(torch.mps, "device_count") else 1
    return n, use_bf16, m, multi
