"""A self-contained training loop for the auditor's overhead benchmark (no torchvision needed).

python train_step.py --model mlp|resnet18|resnet50 --batch 64 --device cpu|cuda|mps --steps 20
Prints one JSON line: the median synchronised step time over the steps after the first two.
"""
import argparse
import json
import statistics
import time

import torch
from torch import nn


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * self.expansion
        self.body = nn.Sequential(
            nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.skip = nn.Sequential() if stride == 1 and cin == cout else nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return torch.relu(self.body(x) + self.skip(x))


class Basic(nn.Module):
    expansion = 1

    def __init__(self, cin, width, stride):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(cin, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width))
        self.skip = nn.Sequential() if stride == 1 and cin == width else nn.Sequential(
            nn.Conv2d(cin, width, 1, stride, bias=False), nn.BatchNorm2d(width))

    def forward(self, x):
        return torch.relu(self.body(x) + self.skip(x))


def resnet(block, layers, classes=1000):
    mods = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for i, (width, n) in enumerate(zip((64, 128, 256, 512), layers)):
        for j in range(n):
            mods.append(block(cin, width, 2 if (j == 0 and i > 0) else 1))
            cin = width * block.expansion
    mods += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, classes)]
    return nn.Sequential(*mods)


def build(name):
    if name == "mlp":
        return nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)), (32,)
    if name == "resnet18":
        return resnet(Basic, (2, 2, 2, 2)), (3, 224, 224)
    if name == "resnet50":
        return resnet(Bottleneck, (3, 4, 6, 3)), (3, 224, 224)
    raise SystemExit("unknown model " + name)


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()
    elif device.type == "mps":
        torch.mps.synchronize()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="mlp")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--device", default="cpu")
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)
    device = torch.device(args.device)
    model, shape = build(args.model)
    model = model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(args.batch, *shape, device=device)
    y = torch.randint(0, 10, (args.batch,), device=device)
    times = []
    for _ in range(args.steps):
        sync(device)
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        sync(device)
        times.append(time.perf_counter() - t0)
    print(json.dumps({"model": args.model, "batch": args.batch, "device": args.device, "torch": torch.__version__,
                      "median_step_s": statistics.median(times[2:]) if len(times) > 2 else times[-1]}))


if __name__ == "__main__":
    main()
