import torch
from torch import nn

import geomops


class EdgeConv(nn.Module):
    def __init__(self, dim: int = 32, k: int = 8):
        super().__init__()
        self.k = k
        self.mlp = nn.Linear(2 * dim, dim)

    def forward(self, x):
        idx = geomops.knn(x, self.k)
        nbrs = x[idx].mean(dim=1)
        return self.mlp(torch.cat([x, nbrs - x], dim=-1))


def main():
    device = "mps" if torch.backends.mps.is_available() else "cpu"
    model = EdgeConv().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=1e-2)
    for _ in range(5):
        x = torch.randn(1024, 32, device=device)
        voxels = geomops.voxelize(x[:, :3], 0.1)
        loss = model(x).square().mean() + 0 * voxels.float().sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
