import argparse

import torch
import yaml

from segkit import SegNet


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True)
    p.add_argument("--resume", default=None)
    return p.parse_args()


def main():
    args = parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    device = torch.device(cfg["device"])
    model = SegNet(cfg["classes"])
    backbone = torch.load("weights/backbone.pt", map_location="cpu")
    model.backbone.load_state_dict(backbone, strict=False)
    if args.resume:
        model.load_state_dict(torch.load(args.resume))
    model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"])
    for _ in range(cfg["steps"]):
        x = torch.randn(2, 3, 64, 64, device=device)
        loss = model(x).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save(model.state_dict(), "weights/last.pt")


if __name__ == "__main__":
    main()
