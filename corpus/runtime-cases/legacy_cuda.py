"""Older CUDA idioms, unedited: the legacy torch.cuda.FloatTensor/LongTensor constructors, Tensor.type()
with a CUDA type, isinstance against one, and get_device_properties() sizing the batch from the GPU's
memory and multiprocessors. Under `mpsport audit --remap cuda=cpu` it completes its steps."""
import torch
from torch import nn

props = torch.cuda.get_device_properties(0)
batch = max(8, min(64, props.total_memory // (1 << 30)))  # a batch sized from the GPU's memory
workers = props.multi_processor_count
print("device", props.name, "memory", props.total_memory, "SMs", workers, "capability", torch.cuda.get_device_capability())
model = nn.Linear(16, 4).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(20):
    x = torch.cuda.FloatTensor(batch, 16).normal_()
    y = torch.randint(0, 4, (batch,)).type(torch.cuda.LongTensor)
    assert isinstance(x, torch.cuda.FloatTensor) and not isinstance(y, torch.cuda.FloatTensor)
    weights = torch.cuda.FloatTensor([1.0, 1.0, 2.0, 2.0])
    loss = nn.functional.cross_entropy(model(x), y, weight=weights)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, "loss %.3f" % loss.item())
