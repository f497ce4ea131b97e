import torch
from torch.utils.data import DataLoader, TensorDataset


def synthetic_loader(n: int = 512, batch_size: int = 64) -> DataLoader:
    x = torch.randn(n, 3, 32, 32)
    y = torch.randint(0, 10, (n,))
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=True, num_workers=2, pin_memory=True)
