import sys

import torch

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _make_checkpoints import out, save_safetensors  # noqa: E402

torch.save({"w": torch.zeros(3), "running_var": torch.ones(3, dtype=torch.float64)}, out("ruleid-double-buffer.pt"))
torch.save({"spectrum": torch.zeros(4, dtype=torch.complex128)}, out("ruleid-complex.pth"))
save_safetensors({"k": torch.zeros(2, dtype=torch.float64)}, "ruleid-double.safetensors")
torch.save({"w": torch.zeros(3), "idx": torch.arange(3)}, out("ok-float32-and-int64.pt"))
torch.save({"w": torch.zeros(3, dtype=torch.float16)}, out("ok-half.bin"))
