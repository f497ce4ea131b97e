"""Mesh operators: a sparse graph Laplacian, coarse-graining of 3-D fields, and spectral diagnostics."""
import torch
import torch.nn.functional as F
from torch import nn


class MeshLaplacian(nn.Module):
    def __init__(self, edges: torch.Tensor, weights: torch.Tensor, n_nodes: int):
        super().__init__()
        laplacian = torch.sparse_coo_tensor(edges, weights, (n_nodes, n_nodes))
        # The sparse operator moves with model.to(device).
        self.register_buffer("laplacian", laplacian.coalesce())

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        return torch.sparse.mm(self.laplacian, u)


def coarsen(field: torch.Tensor) -> torch.Tensor:
    """Average 2x2x2 cells of a (batch, channel, z, y, x) field."""
    return F.avg_pool3d(field, 2)


def dominant_mode(field: torch.Tensor) -> torch.Tensor:
    """Most frequent quantised amplitude per sample, for the run log."""
    levels = torch.round(field.flatten(1) * 10)
    return torch.mode(levels, dim=1).values


def energy_spectrum(u: torch.Tensor) -> torch.Tensor:
    # Diagnostics are accumulated in double precision.
    u_hat = torch.fft.rfft(u.double())
    return (u_hat.abs() ** 2).mean(dim=0)
