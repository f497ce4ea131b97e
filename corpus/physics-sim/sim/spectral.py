import torch
from torch import nn

torch.set_default_dtype(torch.float64)


class SpectralConv1d(nn.Module):
    """Fourier layer: multiply the lowest `modes` frequencies by learned complex weights."""

    def __init__(self, channels: int, modes: int):
        super().__init__()
        self.modes = modes
        scale = 1.0 / channels
        self.weight = nn.Parameter(scale * torch.randn(channels, channels, modes, dtype=torch.complex128))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x_ft = torch.fft.rfft(x)
        out = torch.zeros_like(x_ft)
        out[..., : self.modes] = torch.einsum("bix,iox->box", x_ft[..., : self.modes], self.weight)
        return torch.fft.irfft(out, n=x.shape[-1])
