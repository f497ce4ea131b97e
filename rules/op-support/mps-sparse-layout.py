import torch
from torch import nn


class GraphLayer(nn.Module):
    def __init__(self, index, weight, n):
        super().__init__()
        # ruleid: mps-sparse-layout
        adj = torch.sparse_coo_tensor(index, weight, (n, n))
        # ruleid: mps-sparse-layout
        self.register_buffer("adj", adj)
        # ruleid: mps-sparse-layout
        self.emb = nn.Embedding(n, 16, sparse=True)
        # ok: mps-sparse-layout
        self.dense_emb = nn.Embedding(n, 16)
        # ok: mps-sparse-layout
        self.register_buffer("mask", torch.ones(n))
        # ruleid: mps-sparse-layout
        self.register_buffer("heads", torch.ones(n, n).to_sparse(), persistent=False)

    def forward(self, x):
        # ruleid: mps-sparse-layout
        s = x.to_sparse()
        # ruleid: mps-sparse-layout
        c = x.to_sparse_csr()
        # ok: mps-sparse-layout
        d = x.to_dense() if x.is_sparse else x
        return s, c, d

