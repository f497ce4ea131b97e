import torch
from torch import nn

from sim.spectral import SpectralConv1d

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def main(steps: int = 100):
    model = nn.Sequential(SpectralConv1d(8, 12), nn.GELU(), SpectralConv1d(8, 12)).to(DEVICE)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(steps):
        u0 = torch.randn(16, 8, 64, device=DEVICE)
        with torch.autocast("cuda", enabled=False):
            loss = (model(u0) - u0.roll(1, -1)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    # the check in bfloat16 is pinned to CUDA (the loss above turns autocast off: nothing to port there)
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
        print(model(torch.randn(4, 8, 64, device=DEVICE)).float().abs().mean())


if __name__ == "__main__":
    main()
