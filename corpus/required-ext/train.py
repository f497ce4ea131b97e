import torch

from models import PointNet


def main() -> None:
    model = PointNet().cuda()
    opt = torch.optim.Adam(model.parameters())
    xyz = torch.rand(4, 256, 3).cuda()
    loss = model(xyz).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()


if __name__ == "__main__":
    main()
