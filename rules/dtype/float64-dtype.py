import numpy as np
import torch
import torch.nn as nn


def covariance(x, device):
    # ruleid: float64-dtype
    x = x.double()  # x's device is unknown: assumed to be the accelerator
    # ruleid: float64-dtype
    w = torch.zeros(3, dtype=torch.float64, device=device)
    # ruleid: float64-dtype
    v = x.to(torch.double)
    # ruleid: float64-dtype
    u = torch.tensor([1.0], dtype="float64")
    u = u.to(device)
    # ok: float64-dtype
    f = x.float()
    # ok: float64-dtype
    a = np.zeros(3, dtype=np.float64)
    # ok: float64-dtype
    torch.set_default_dtype(torch.float64)
    # ok: float64-dtype
    label = "float64 is not supported on MPS"
    # ok: float64-dtype
    same = x.dtype == torch.float64
    return x, w, v, u, f, a, label, same


# A lookup table over dtypes makes no float64 tensor (stable-fast-3d's EPS_DTYPE)
EPS_DTYPE = {
    torch.float16: 1e-4,
    torch.bfloat16: 1e-4,
    torch.float32: 1e-7,
    # ok: float64-dtype
    torch.float64: 1e-8,
}
# ok: float64-dtype
numpy_type_map = {"float64": torch.DoubleTensor, "float32": torch.FloatTensor, "int64": torch.LongTensor}
# ruleid: float64-dtype
config = {"dtype": torch.float64, "steps": 10}
# torchvision's MNIST reader: a table of the IDX format's types, read on the CPU
SN3_TYPEMAP = {
    8: (torch.uint8, np.uint8, np.uint8),
    11: (torch.int16, np.dtype(">i2"), "i2"),
    13: (torch.float32, np.dtype(">f4"), "f4"),
    # ok: float64-dtype
    14: (torch.float64, np.dtype(">f8"), "f8"),
}
# ruleid: float64-dtype
pairs = {"weights": (torch.float64, 3)}
# tensordict's vocabulary of dtypes, to turn their names back into dtypes
TORCH_DTYPES = (
    torch.bfloat16,
    torch.float32,
    # ok: float64-dtype
    torch.float64,
    torch.int64,
)
# ruleid: float64-dtype
ACC_DTYPES = (torch.float64, torch.int64)


class Diffusion(nn.Module):
    def __init__(self, timesteps):
        super().__init__()
        # ok: float64-dtype
        betas = torch.linspace(1e-4, 0.02, timesteps, dtype=torch.float64)  # made on the CPU ...
        alphas = 1.0 - betas
        self.register_buffer("alphas", alphas.float())  # ... and cast before it becomes a buffer
        # ruleid: float64-dtype
        sigmas = torch.linspace(0, 1, timesteps, dtype=torch.float64)
        self.register_buffer("sigmas", sigmas)  # a float64 buffer moves to the device with the model


def mean_for_logging(values):
    # ok: float64-dtype
    arr = torch.tensor(values, dtype=torch.float64)
    return arr.mean().item()


def schedule(n):
    # ok: float64-dtype
    t = torch.arange(n, dtype=torch.float64) / n
    return t.float()


def curriculum(n, center):
    positions = torch.arange(n, dtype=torch.float32)  # made on the CPU
    distances = (positions - center).abs()
    # ok: float64-dtype
    weights = (distances == distances.min()).to(torch.float64)  # computed from it: still on the CPU
    return weights / weights.sum()


def on_the_device(x, center):
    distances = (x.cuda() - center).abs()
    # ruleid: float64-dtype
    return (distances == distances.min()).to(torch.float64)


def reoriented(pcd, normals, view, reorient=True):
    # normals are the caller's: on the device
    # ruleid: float64-dtype
    pcd.normals = normals.double().cpu().numpy()
    if reorient:
        # the last assignment before the use decides (nerfstudio's exporter): NumPy's, on the CPU
        normals = torch.from_numpy(np.array(pcd.normals)).float()
        normals[(view * normals).sum(dim=-1) > 0] *= -1
        # ok: float64-dtype
        pcd.normals = normals.double().cpu().numpy()
    normals = normals.cuda()
    # ruleid: float64-dtype
    return normals.double()


def sampler_weights(counts):
    weights = torch.from_numpy(1.0 / np.array(counts))
    # ok: float64-dtype
    weights = weights.double()  # bound after its right side is read: the line above made it
    return weights


def to_numpy(x):
    # ruleid: float64-dtype
    return x.double().cpu().numpy()  # float64 on the device first: swap to .cpu().double()


def scalar_dtype():
    # ok: float64-dtype
    return torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32  # follows the default


def step_dtype(fast):
    # ruleid: float64-dtype
    return torch.float64 if fast else torch.float32


def is_float_dtype(dtype):
    # DALLE2-pytorch's helper: the dtypes are only compared with
    # ok: float64-dtype
    return any([dtype == d for d in (torch.float64, torch.float32, torch.float16)])


def is_double(x):
    # ok: float64-dtype
    return x.dtype in (torch.float64, torch.double)


class Quantizer(torch.nn.Module):
    # stable-audio-tools' FSQ: the dtypes it accepts, only compared with
    def __init__(self):
        super().__init__()
        # ok: float64-dtype
        self.allowed_dtypes = (torch.float32, torch.float64)
        # ruleid: float64-dtype
        self.work_dtypes = (torch.float32, torch.float64)

    def forward(self, z):
        if z.dtype not in self.allowed_dtypes:
            # ruleid: float64-dtype
            z = z.to(torch.float64)
        return torch.zeros(3, dtype=self.work_dtypes[1], device=z.device)


def make_quantizer(levels):
    # ok: float64-dtype
    return FSQ(levels=levels, allowed_dtypes=[torch.float16, torch.float32, torch.float64])


# vector-quantize-pytorch's FSQ: the accepted dtypes as a parameter's default
# ok: float64-dtype
def make_fsq(levels, allowed_dtypes=(torch.float32, torch.float64)):
    return FSQ(levels=levels, allowed_dtypes=allowed_dtypes)


# ruleid: float64-dtype
def make_work(levels, work_dtypes=(torch.float32, torch.float64)):
    return torch.zeros(levels, dtype=work_dtypes[1], device="cuda")


def eval_track(references, estimates, compute_sdr=True):
    # demucs: turned into NumPy arrays as they are later, so CPU tensors (.numpy() raises on a device)
    # ok: float64-dtype
    references = references.transpose(1, 2).double()
    # ruleid: float64-dtype
    estimates = estimates.transpose(1, 2).double()
    if not compute_sdr:
        return references.cpu(), estimates.cpu().numpy()
    return references.numpy(), estimates.cpu().numpy()


def eval_track_sdr(references, estimates, compute_sdr=True):
    # demucs' eval_track as it is: the NumPy arm is the else of an arm that returns
    # ok: float64-dtype
    references = references.transpose(1, 2).double()
    scores = references.cpu().abs()
    if not compute_sdr:
        return None, scores
    else:
        references = references.numpy()
    return references, scores


def convert(box, rotated, is_numpy):
    # detectron2's BoxMode.convert: NumPy only in a branch of its own; a tensor handed back otherwise
    arr = box.clone()
    if rotated:
        # ruleid: float64-dtype
        arr = arr.double()
    if is_numpy:
        return arr.numpy()
    else:
        return arr


def every_dtype(device):
    # ruleid: float64-dtype
    return [torch.zeros(2, dtype=d, device=device) for d in (torch.float32, torch.float64)]


def average_checkpoints(paths, device):
    # A state dict read onto the CPU holds CPU tensors: its items, values and entries too.
    avg = {}
    for p in paths:
        sd = torch.load(p, map_location="cpu")
        for k, v in sd.items():
            # ok: float64-dtype
            avg[k] = v.clone().to(dtype=torch.float64)
        # ok: float64-dtype
        first = sd["model"].double()
    weights = torch.load(paths[0], map_location=lambda storage, loc: storage)
    for t in weights.values():
        # ok: float64-dtype
        t.double()
    on_device = torch.load(paths[0], map_location=device)
    for k, v in on_device.items():
        # ruleid: float64-dtype
        avg[k] = v.to(dtype=torch.float64)
    kept = torch.load(paths[0])
    # ruleid: float64-dtype
    kept["model"].double()
    return avg, first


# A tensor a module-level function returns goes where its calls in this file send it (DiffusionDet).
def cosine_beta_schedule(timesteps, s=0.008):
    # ruleid: float64-dtype
    x = torch.linspace(0, timesteps, timesteps + 1, dtype=torch.float64)
    alphas_cumprod = torch.cos(((x / timesteps) + s) / (1 + s) * np.pi * 0.5) ** 2
    betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
    return torch.clip(betas, 0, 0.999)


def linear_beta_schedule(timesteps):
    # ok: float64-dtype
    return torch.linspace(1e-4, 0.02, timesteps, dtype=torch.float64)


def unused_schedule(timesteps):
    # ok: float64-dtype
    return torch.arange(timesteps, dtype=torch.float64)


def schedule_steps(timesteps):
    # ok: float64-dtype
    yield torch.arange(timesteps, dtype=torch.float64)


class DiffusionDetector(nn.Module):
    def __init__(self, timesteps):
        super().__init__()
        betas = cosine_beta_schedule(timesteps)  # float64, uncast
        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.register_buffer("alphas_cumprod", alphas_cumprod)
        self.register_buffer("linear", linear_beta_schedule(timesteps).float())  # cast by the caller
        steps = schedule_steps(timesteps)
        self.register_buffer("first_step", next(steps).float())


# kornia's augmentations: the accepted input dtypes, a membership list
def validate(input):
    # ok: float64-dtype
    _validate_input_dtype(input, accepted_dtypes=[torch.bfloat16, torch.float16, torch.float32, torch.float64])


# kornia's save_pointcloud_ply: moved to the CPU in the expression, for writing doubles
def to_ply(valid_points):
    # ok: float64-dtype
    arr = valid_points.detach().cpu().to(torch.float64).reshape(-1)
    # ok: float64-dtype
    b = valid_points.to("cpu").double()
    # ruleid: float64-dtype
    c = valid_points.detach().cpu().double().to(valid_points.device)
    return arr, b, c
