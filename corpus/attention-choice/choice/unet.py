import math

import torch
import torch.nn as nn


class QKVFlashAttention(nn.Module):
    def __init__(self, channels, num_heads):
        from flash_attn.flash_attention import FlashAttention

        super().__init__()
        self.num_heads = num_heads
        self.inner = FlashAttention(attention_dropout=0.0)

    def forward(self, qkv):
        b, three_c, length = qkv.shape
        qkv = qkv.reshape(b, 3, self.num_heads, three_c // (3 * self.num_heads), length).permute(0, 4, 1, 2, 3)
        out, _ = self.inner(qkv.contiguous())
        return out.reshape(b, length, -1).transpose(1, 2)


class QKVAttentionLegacy(nn.Module):
    def __init__(self, num_heads):
        super().__init__()
        self.num_heads = num_heads

    def forward(self, qkv):
        b, width, length = qkv.shape
        ch = width // (3 * self.num_heads)
        q, k, v = qkv.reshape(b * self.num_heads, ch * 3, length).split(ch, dim=1)
        weight = torch.einsum("bct,bcs->bts", q / math.sqrt(math.sqrt(ch)), k / math.sqrt(math.sqrt(ch))).softmax(-1)
        return torch.einsum("bts,bcs->bct", weight, v).reshape(b, -1, length)


class AttentionBlock(nn.Module):
    def __init__(self, channels, num_heads=4, attention_type="flash"):
        super().__init__()
        self.norm = nn.GroupNorm(8, channels)
        self.qkv = nn.Conv1d(channels, channels * 3, 1)
        if attention_type == "flash":
            self.attention = QKVFlashAttention(channels, num_heads)
        else:
            self.attention = QKVAttentionLegacy(num_heads)
        self.proj = nn.Conv1d(channels, channels, 1)

    def forward(self, x):
        b, c, *spatial = x.shape
        h = self.attention(self.qkv(self.norm(x).reshape(b, c, -1)))
        return x + self.proj(h).reshape(b, c, *spatial)


class UNet(nn.Module):
    def __init__(self, encoder, channels=32, attention_type="flash"):
        super().__init__()
        self.encoder = encoder
        self.inp = nn.Conv2d(encoder.output_dim, channels, 3, padding=1)
        self.mid = AttentionBlock(channels, attention_type=attention_type)
        self.out = nn.Conv2d(channels, 3, 3, padding=1)

    def forward(self, x):
        return self.out(self.mid(self.inp(self.encoder(x))))
