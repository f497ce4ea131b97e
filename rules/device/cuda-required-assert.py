import torch

# ruleid: cuda-required-assert
assert torch.cuda.is_available(), "Training currently requires at least one GPU."

# ok: cuda-required-assert
assert torch.cuda.is_available() or torch.backends.mps.is_available()

# ok: cuda-required-assert
assert torch.cuda.device_count() >= 0

# only where CUDA was chosen: reported as info (tests/test_analyzer_python.cpp)
if device.type == "cuda":
    # ruleid: cuda-required-assert
    assert torch.cuda.is_available()
