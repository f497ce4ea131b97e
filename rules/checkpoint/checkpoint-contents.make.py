import collections
import sys

import torch

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _make_checkpoints import out, save_safetensors  # noqa: E402

sd = collections.OrderedDict(w=torch.zeros(4, 3), b=torch.zeros(3), steps=torch.tensor(7))
torch.save(sd, out("ruleid-state-dict.pt"))
torch.save(sd, out("ruleid-legacy.pth"), _use_new_zipfile_serialization=False)
save_safetensors({"w": torch.zeros(2, 2)}, "ruleid-weights.safetensors")
