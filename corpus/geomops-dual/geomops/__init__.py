import torch

from geomops import _C  # registers torch.ops.geomops


def knn(x, k):
    return torch.ops.geomops.knn(x, k)


def voxelize(points, size):
    return _C.voxelize(points, size)
