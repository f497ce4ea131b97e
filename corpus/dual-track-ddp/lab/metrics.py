import math

import torch


def perplexity_stats(losses: list) -> dict:
    t = torch.tensor(losses, dtype=torch.float64)
    return {"ppl": math.exp(t.mean().item()), "std": t.std().item()}
