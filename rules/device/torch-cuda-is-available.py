import torch

# ruleid: torch-cuda-is-available
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"

# ok: torch-cuda-is-available
BEST = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"

if torch.backends.mps.is_available():
    device = torch.device("mps")
# ok: torch-cuda-is-available
elif torch.cuda.is_available():
    device = torch.device("cuda")
else:
    device = torch.device("cpu")

# ok: torch-cuda-is-available
assert torch.cuda.is_available(), "a requirement, reported by cuda-required-assert"
