import torch
import torch.nn.functional as F
from torch import nn

from zoo.vit import ViT


class OrthogonalViT(ViT):
    def __init__(self, *args, double_precision=True, **kwargs):
        super().__init__(*args, **kwargs)
        self.double_precision = double_precision

    def project(self, block_out, residual):
        dtype = residual.dtype
        if self.double_precision:
            residual, block_out = residual.double(), block_out.double()
        unit = F.normalize(residual, dim=-1)
        parallel = (block_out * unit).sum(dim=-1, keepdim=True) * unit
        return (block_out - parallel).to(dtype)

    def forward(self, x):
        x = self.embed(x)
        for block in self.blocks:
            x = x + self.project(block(x), x)
        return self.head(x.mean(dim=1))


if __name__ == "__main__":
    model = OrthogonalViT()
    print(model(torch.randn(2, 16, 48)).shape)
