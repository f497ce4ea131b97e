import torch
from flash_attn import flash_attn_func
from torch import nn

import pointops
from pointops.fused import fused_scale


class PointTransformerLayer(nn.Module):
    def __init__(self, dim: int = 64, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, xyz, feats):
        idx = pointops.ball_query(xyz, xyz, 0.2, 16)
        b, n, d = feats.shape
        q, k, v = self.qkv(feats).view(b, n, 3, self.heads, d // self.heads).unbind(2)
        out = flash_attn_func(q.half(), k.half(), v.half())
        return fused_scale(out.reshape(b, n, d).float(), 0.5), idx
