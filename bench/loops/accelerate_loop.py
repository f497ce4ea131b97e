"""A loop written for Hugging Face Accelerate: accelerator.prepare, accelerator.backward."""
import torch
from accelerate import Accelerator
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

accelerator = Accelerator()
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = DataLoader(TensorDataset(torch.randn(2048, 32), torch.randn(2048, 1)), batch_size=32)
model, opt, data = accelerator.prepare(model, opt, data)
for x, y in data:
    opt.zero_grad()
    accelerator.backward(nn.functional.mse_loss(model(x), y))
    opt.step()
