import torch
import torch.cuda as tc


def log_memory(step):
    # ruleid: torch-cuda-memory
    used = torch.cuda.max_memory_allocated() / 2**30
    # ruleid: torch-cuda-memory
    tc.empty_cache()
    # ok: torch-cuda-memory
    torch.mps.empty_cache()
    print(f"step {step}: {used:.2f} GiB (torch.cuda.memory_allocated)")
