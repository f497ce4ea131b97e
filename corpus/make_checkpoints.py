"""Regenerates the tiny checkpoints committed in the corpus (a few kB each), with /usr/bin/python3
and torch: `python3 corpus/make_checkpoints.py`. They stand for what the labs' training wrote."""
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "rules", "checkpoint"))
from _make_checkpoints import save_as_cuda  # noqa: E402


class PointNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = torch.nn.Linear(3, 8)


# As pickled by the lab's own train.py (`from model import PointNet`): pickle checks the name resolves.
PointNet.__module__ = "model"
sys.modules["model"] = type(sys)("model")
sys.modules["model"].PointNet = PointNet

torch.manual_seed(0)
os.makedirs(os.path.join(here, "heavy-cuda", "checkpoints"), exist_ok=True)
sys.argv[1:] = [os.path.join(here, "heavy-cuda", "checkpoints")]
save_as_cuda({"model": PointNet(), "epoch": 10}, "pointops_epoch10.pt")

os.makedirs(os.path.join(here, "physics-sim", "checkpoints"), exist_ok=True)
torch.save({"field": torch.zeros(8, 8, dtype=torch.float64), "spectrum": torch.zeros(8, dtype=torch.complex128), "step": 1200},
           os.path.join(here, "physics-sim", "checkpoints", "sim_state.pt"))

# segkit-weights: three checkpoints from the GPU box (one resumed, one remapped on load, one unused).
os.makedirs(os.path.join(here, "segkit-weights", "weights"), exist_ok=True)
sys.argv[1:] = [os.path.join(here, "segkit-weights", "weights")]
for name in ("last.pt", "backbone.pt", "old_run.pt"):
    save_as_cuda({"w": torch.zeros(4, 4), "b": torch.zeros(4)}, name)
# ... and one cut off in the copy from the cluster: named under Skipped, never guessed at.
with open(os.path.join(here, "segkit-weights", "weights", "last.pt"), "rb") as f:
    data = f.read()
with open(os.path.join(here, "segkit-weights", "weights", "partial.pt"), "wb") as f:
    f.write(data[: len(data) // 2])
