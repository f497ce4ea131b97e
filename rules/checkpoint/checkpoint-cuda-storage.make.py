import sys

import torch

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _make_checkpoints import out, save_as_cuda, save_safetensors  # noqa: E402

sd = {"w": torch.zeros(16, 16), "b": torch.zeros(16)}
save_as_cuda(sd, "ruleid-saved-on-gpu.pt")
save_as_cuda(sd, "ruleid-saved-on-gpu-legacy.ckpt", _use_new_zipfile_serialization=False)
torch.save(sd, out("ok-saved-on-cpu.pt"))
save_safetensors(sd, "ok-no-device.safetensors")
