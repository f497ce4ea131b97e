import argparse
import time

import torch
import torch.nn.functional as F
from torch.cuda.amp import GradScaler, autocast

from data.augment import noise_like
from data.loader import synthetic_loader
from lit import fit_with_lightning
from model import SmallConvNet

torch.backends.cudnn.benchmark = True


def train(epochs: int, lr: float) -> None:
    torch.cuda.manual_seed_all(0)
    model = SmallConvNet().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    scaler = GradScaler()
    loader = synthetic_loader()
    for epoch in range(epochs):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        start = time.time()
        for images, labels in loader:
            images, labels = images.cuda(non_blocking=True), labels.cuda(non_blocking=True)
            images = noise_like(images).float()
            with autocast():
                loss = F.cross_entropy(model(images), labels)
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        torch.cuda.synchronize()
        print(f"epoch {epoch}: {time.time() - start:.1f}s, "
              f"{torch.cuda.max_memory_allocated() / 2**20:.0f} MiB")
    torch.save(model.state_dict(), "checkpoint.pt")


def evaluate(path: str) -> None:
    model = SmallConvNet()
    model.load_state_dict(torch.load(path, map_location="cuda"))
    model.to("cuda").eval()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--trainer", choices=["plain", "lightning"], default="plain")
    args = parser.parse_args()
    if args.trainer == "lightning":
        fit_with_lightning(args.epochs, args.lr)
    else:
        train(args.epochs, args.lr)
