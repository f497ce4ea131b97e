import tinycudann as tcnn
import torch.nn as nn


class HashEncoder(nn.Module):
    def __init__(self, input_dim=3, levels=8):
        super().__init__()
        self.inner = tcnn.Encoding(input_dim, {"otype": "HashGrid", "n_levels": levels, "n_features_per_level": 2})
        self.output_dim = levels * 2

    def forward(self, x):
        b, c, h, w = x.shape
        y = self.inner(x.permute(0, 2, 3, 1).reshape(-1, c))
        return y.reshape(b, h, w, -1).permute(0, 3, 1, 2).float()
