import torch
import torch.cuda as tc


def log_memory(step):
    # ruleid: torch-cuda-memory-stats
    used = torch.cuda.max_memory_allocated() / 2**30
    # ruleid: torch-cuda-memory-stats
    tc.empty_cache()
    # ok: torch-cuda-memory-stats
    torch.mps.empty_cache()
    # ok: torch-cuda-memory-stats
    torch.cuda.reset_peak_memory_stats()  # raises on a Mac: torch-cuda-memory
    print(f"step {step}: {used:.2f} GiB (torch.cuda.memory_allocated)")
