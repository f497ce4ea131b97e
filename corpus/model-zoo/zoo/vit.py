import torch
from torch import nn


class ViT(nn.Module):
    def __init__(self, dim=64, depth=2, num_classes=10):
        super().__init__()
        self.embed = nn.Linear(48, dim)
        self.blocks = nn.ModuleList([nn.TransformerEncoderLayer(dim, 4, batch_first=True) for _ in range(depth)])
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.embed(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x.mean(dim=1))


if __name__ == "__main__":
    model = ViT()
    print(model(torch.randn(2, 16, 48)).shape)
