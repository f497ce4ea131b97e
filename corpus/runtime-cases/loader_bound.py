"""A tiny model fed by a slow dataset: most of each iteration is spent in the data loader."""
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class SlowDataset(Dataset):
    def __len__(self):
        return 10000

    def __getitem__(self, i):
        time.sleep(0.002)  # decoding, augmentation
        return torch.randn(16), torch.randn(1)


model = nn.Linear(16, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = nn.MSELoss()
for x, y in DataLoader(SlowDataset(), batch_size=8):
    opt.zero_grad()
    loss_fn(model(x), y).backward()
    opt.step()
