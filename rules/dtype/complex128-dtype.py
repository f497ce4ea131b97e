import torch


def spectrum(x):
    # ruleid: complex128-dtype
    z = torch.fft.fft(x.to(torch.complex128))
    # ruleid: complex128-dtype
    w = x.cdouble()
    # ok: complex128-dtype
    c = torch.fft.fft(x.to(torch.complex64))
    return z, w, c
