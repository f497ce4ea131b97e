import time

import torch

from tinynet.model import make_model

model = make_model().cuda()
x = torch.randn(1024, 10).cuda()
torch.cuda.synchronize()
start = time.perf_counter()
for _ in range(100):
    model(x)
torch.cuda.synchronize()
print(f"{(time.perf_counter() - start) * 10:.3f} ms per batch")
