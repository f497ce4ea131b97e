# nanoGPT's way: globals are the defaults, and configurator.py sets any of them from the command
# line (--device=mps) before they are used.
import torch

batch_size = 12
# ruleid: cuda-default-argument
device = "cuda"
# ok: cuda-default-argument
dtype = "bfloat16"
exec(open("configurator.py").read())

model = torch.nn.Linear(4, 4).to(device)
x = torch.zeros(2, 4, device=device)
ctx = torch.device(device)
