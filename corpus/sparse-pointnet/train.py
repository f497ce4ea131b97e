import torch

from model import SetAbstraction


def main():
    device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    model = SetAbstraction(npoint=512, dim=64).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    xyz = torch.rand(4, 2048, 3, device=device)
    feats = torch.randn(4, 2048, 64, device=device)
    for _ in range(10):
        loss = model(xyz, feats).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
