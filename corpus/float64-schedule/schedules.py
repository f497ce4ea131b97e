import math

import torch


def cosine_betas(steps: int, s: float = 0.008) -> torch.Tensor:
    t = torch.linspace(0, steps, steps + 1, dtype=torch.float64) / steps
    alphas = torch.cos((t + s) / (1 + s) * math.pi * 0.5) ** 2
    betas = 1 - alphas[1:] / alphas[:-1]
    return betas.clamp(max=0.999).float()
