# A module whose globals configurator.py may set from the command line (nanoGPT): its constant is a
# default (cuda-default-argument), but a device written into a call is still hard-coded.
import torch

# ok: hardcoded-cuda-device
device = "cuda"
exec(open("configurator.py").read())

model = torch.nn.Linear(4, 4).to(device)
# ruleid: hardcoded-cuda-device
y = torch.zeros(2).to("cuda")
