import argparse

import torch

from lazytri.filters import median_filter
from lazytri.model import Net


def pick_device() -> torch.device:
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()
    device = pick_device()
    model = Net().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(args.epochs):
        x = torch.randn(8, 1, 400, device=device)
        loss = model(median_filter(x, 5)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
