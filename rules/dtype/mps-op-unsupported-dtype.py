import torch


def spectra(signal, n):
    x32 = torch.randn(n)
    # ok: mps-op-unsupported-dtype
    a = torch.fft.rfft(x32)
    x64 = torch.randn(n, dtype=torch.float64)
    # ruleid: mps-op-unsupported-dtype
    b = torch.fft.rfft(x64)
    windowed = x64 * torch.hann_window(n, dtype=torch.float64)
    # ruleid: mps-op-unsupported-dtype
    c = torch.fft.fft(windowed)
    # ok: mps-op-unsupported-dtype
    d = torch.fft.rfft(x64.float())
    # ruleid: mps-op-unsupported-dtype
    e = torch.stft(signal.double(), 64, return_complex=True)
    # ruleid: mps-op-unsupported-dtype
    f = torch.view_as_complex(x64.view(-1, 2))
    # ok: mps-op-unsupported-dtype
    g = torch.fft.irfft(a)
    return a, b, c, d, e, f, g


def other_scope(n):
    # ok: mps-op-unsupported-dtype
    return torch.fft.rfft(x64)  # noqa: F821 - not the float64 tensor of spectra()
