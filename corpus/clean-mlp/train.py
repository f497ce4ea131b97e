"""Trains the MLP on synthetic data. Usage: python train.py [--device auto|cpu|mps|cuda] [--steps N]"""
import argparse
import time

import numpy as np
import torch
from torch import nn

from device import pick_device, synchronize
from model import MLP


def make_data(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 16)).astype(np.float32)
    y = (x[:, :4].argmax(axis=1)).astype(np.int64)
    return torch.from_numpy(x), torch.from_numpy(y)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="auto")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--checkpoint", default="")
    args = parser.parse_args()

    torch.manual_seed(0)
    device = pick_device(args.device)
    x, y = make_data(1024)
    model = MLP().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    start = time.perf_counter()
    for step in range(args.steps):
        idx = torch.randint(0, x.shape[0], (args.batch_size,))
        xb, yb = x[idx].to(device), y[idx].to(device)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    synchronize(device)
    print(f"done in {time.perf_counter() - start:.2f}s on {device}")
    if args.checkpoint:
        torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, args.checkpoint)


if __name__ == "__main__":
    main()
