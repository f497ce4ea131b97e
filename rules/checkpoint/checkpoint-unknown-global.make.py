import argparse
import collections
import sys

import numpy as np
import torch

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _make_checkpoints import out  # noqa: E402


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)


torch.save(Net(), out("ruleid-whole-model.pt"))
torch.save({"state": Net().state_dict(), "args": argparse.Namespace(lr=0.1)}, out("ruleid-with-args.pt"))
torch.save(collections.OrderedDict(w=torch.zeros(2)), out("ok-state-dict.pt"))
torch.save({"w": torch.zeros(2), "mean": np.zeros(3), "epoch": 3, "name": "run-1"}, out("ok-numpy-and-builtins.pt"))
torch.save(torch.nn.Linear(2, 2), out("ok-torch-module.pt"))
