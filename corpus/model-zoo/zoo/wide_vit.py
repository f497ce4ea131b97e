import torch

from zoo.vit import ViT


def main():
    model = ViT(dim=256).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for _ in range(10):
        x = torch.randn(8, 16, 48).cuda()
        loss = model(x).logsumexp(dim=-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
