import torch
import torch.nn.functional as F
from torch import nn

try:
    from flash_attn import flash_attn_func
except ImportError:
    flash_attn_func = None


class SelfAttention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).unbind(2)
        if flash_attn_func is not None and x.is_cuda:
            y = flash_attn_func(q, k, v, causal=True)
        else:
            y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
            y = y.transpose(1, 2)
        return self.out(y.reshape(b, t, d))
