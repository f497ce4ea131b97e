import torch


def spectrum(x):
    # ruleid: complex128-dtype
    z = torch.fft.fft(x.to(torch.complex128))
    # ruleid: complex128-dtype
    w = x.cdouble()
    # ok: complex128-dtype
    c = torch.fft.fft(x.to(torch.complex64))
    return z, w, c


# tensordict's vocabulary of dtypes, to turn names into dtypes: no tensor is made
_TORCH_DTYPES = (
    torch.bfloat16,
    torch.bool,
    # ok: complex128-dtype
    torch.complex128,
    torch.complex64,
    torch.float32,
)
_STR_TO_DTYPE = {str(d): d for d in _TORCH_DTYPES}
# a table of the complex type each real one widens to
_COMPLEX_OF = {
    torch.float16: torch.complex32,
    torch.float32: torch.complex64,
    # ok: complex128-dtype
    torch.float64: torch.complex128,
}


def widen(x):
    # ruleid: complex128-dtype
    return x.to(torch.complex128) if x.dtype in (torch.float32, torch.complex64) else x
