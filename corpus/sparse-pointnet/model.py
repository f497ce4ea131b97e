from torch import nn

from pointnet2 import furthest_point_sample, three_interpolate


class SetAbstraction(nn.Module):
    def __init__(self, npoint: int, dim: int):
        super().__init__()
        self.npoint = npoint
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, xyz, feats):
        idx = furthest_point_sample(xyz, self.npoint)
        sampled = xyz.gather(1, idx.long().unsqueeze(-1).expand(-1, -1, 3))
        up = three_interpolate(xyz, sampled, feats[:, : self.npoint])
        return self.mlp(up)
