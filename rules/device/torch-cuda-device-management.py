import os
import torch


def setup(local_rank):
    # ruleid: torch-cuda-device-management
    torch.cuda.set_device(local_rank)
    # ok: torch-cuda-device-management
    n = torch.cuda.device_count()  # 0 on a Mac, no error
    # ok: torch-cuda-device-management
    workers = os.cpu_count() // max(torch.cuda.device_count(), 1)
    # ruleid: torch-cuda-device-management
    local = local_rank % torch.cuda.device_count()  # ZeroDivisionError on a Mac
    # ruleid: torch-cuda-device-management
    use_bf16 = torch.cuda.is_bf16_supported()
    # ruleid: torch-cuda-device-management
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    # ok: torch-cuda-device-management
    archs = torch.cuda.get_arch_list()  # [] on a Mac, no error
    # ok: torch-cuda-device-management
    multi = torch.cuda.device_count() > 1
    # ok: torch-cuda-device-management
    m = torch.mps.device_count() if hasattr(torch.mps, "device_count") else 1
    return n, use_bf16, m, multi, props, archs
