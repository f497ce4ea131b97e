import torch
import torch.nn as nn

from ops.knn import knn


class PointNet(nn.Module):
    def __init__(self, k: int = 8) -> None:
        super().__init__()
        self.k = k
        self.mlp = nn.Linear(3, 32)

    def forward(self, xyz: torch.Tensor) -> torch.Tensor:
        idx = knn(xyz, xyz, self.k)
        neighbours = torch.gather(xyz, 1, idx.unsqueeze(-1).expand(-1, -1, 3))
        return self.mlp(neighbours).amax(1)
