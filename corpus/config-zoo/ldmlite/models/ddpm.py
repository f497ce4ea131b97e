import torch
from torch import nn


class DDPM(nn.Module):
    def __init__(self, dim=4, timesteps=100, lr=1e-4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 32), nn.SiLU(), nn.Linear(32, dim))
        betas = torch.linspace(1e-4, 2e-2, timesteps)
        self.register_buffer("betas", betas.cuda())

    def forward(self, x):
        return self.net(x)
