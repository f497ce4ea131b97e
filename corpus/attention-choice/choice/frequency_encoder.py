import torch
import torch.nn as nn


class FrequencyEncoder(nn.Module):
    def __init__(self, input_dim=3, bands=4):
        super().__init__()
        self.register_buffer("scales", 2.0 ** torch.arange(bands))
        self.output_dim = input_dim * bands * 2

    def forward(self, x):
        angles = x.unsqueeze(2) * self.scales.view(1, 1, -1, 1, 1)
        return torch.cat([angles.sin(), angles.cos()], dim=2).flatten(1, 2)
