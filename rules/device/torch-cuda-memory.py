import torch
import torch.cuda as tc


def log_memory(step):
    # ruleid: torch-cuda-memory
    torch.cuda.reset_peak_memory_stats()
    # ruleid: torch-cuda-memory
    free, total = tc.mem_get_info()
    # ok: torch-cuda-memory
    used = torch.cuda.max_memory_allocated() / 2**30  # reads 0 on a Mac: torch-cuda-memory-stats
    # ok: torch-cuda-memory
    torch.mps.empty_cache()
    print(f"step {step}: {used:.2f} GiB of {total} (torch.cuda.memory_allocated)")
