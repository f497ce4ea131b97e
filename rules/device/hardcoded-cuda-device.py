import argparse

import torch
import torch as T

# ruleid: hardcoded-cuda-device
DEVICE = "cuda"


def train(model, batch, rank):
    # ruleid: hardcoded-cuda-device
    model.to("cuda")
    # ruleid: hardcoded-cuda-device
    x = torch.randn(4, 4, device="cuda:0")
    # ruleid: hardcoded-cuda-device
    dev = T.device("cuda", 0)
    # ruleid: hardcoded-cuda-device
    batch = batch.to(f"cuda:{rank}", non_blocking=True)
    # ok: hardcoded-cuda-device
    model.to(DEVICE)  # a use of DEVICE: a related location of the one finding at its definition
    # ruleid: hardcoded-cuda-device
    state = torch.load("ckpt.pt", map_location="cuda")
    # ruleid: hardcoded-cuda-device
    device = "cuda"
    # ok: hardcoded-cuda-device
    print("training on cuda")
    # ok: hardcoded-cuda-device
    model.to("cpu")
    # ok: hardcoded-cuda-device
    name = "cuda"
    return model, x, dev, batch, state, device, name


def pick_device():
    # ruleid: hardcoded-cuda-device
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if torch.backends.mps.is_available():
        # ok: hardcoded-cuda-device
        return torch.device("mps")
    elif torch.cuda.is_available():
        # ok: hardcoded-cuda-device
        return torch.device("cuda")
    # ok: hardcoded-cuda-device
    best = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
    return device, best


# ok: hardcoded-cuda-device
def frames(path, compute_device=torch.device("cuda")):
    return compute_device


def parse():
    parser = argparse.ArgumentParser()
    # ok: hardcoded-cuda-device
    parser.add_argument("--device", default="cuda")
    # ok: hardcoded-cuda-device
    parser.add_argument("--name", default="cuda-run")
    return parser


def docs():
    """Move the model with model.to("cuda") before training."""
    # model.to("cuda") in a comment is not code
    return None


def amp_scaler():
    # ok: hardcoded-cuda-device
    return torch.amp.GradScaler(device="cuda")


def on_gpu(x):
    # ok: hardcoded-cuda-device
    if x.device == torch.device("cuda", 0):  # a check of where x is, not a placement
        return True
    # ruleid: hardcoded-cuda-device
    return x.to(torch.device("cuda")).is_cuda


def no_configurator_here():
    # a function-level exec does not rebind the module's constants
    exec("pass")


def fold(fasta, device=None):
    # ok: hardcoded-cuda-device
    torch_device = torch.device(device if device is not None else "cuda:0")  # a default: cuda-default-argument
    if device is None:
        # ok: hardcoded-cuda-device
        device = torch.device("cuda:0")
    # ruleid: hardcoded-cuda-device
    other = torch.device("cuda") if fasta else device
    if fasta is None:
        # ruleid: hardcoded-cuda-device
        device = torch.device("cuda")  # what is set is not what was tested
    return torch_device, device, other


# ruleid: hardcoded-cuda-device
ACCEL='cuda'  # written without spaces (RWKV's `device='cuda'`): still the constant its uses name
# ok: hardcoded-cuda-device
head = torch.nn.Linear(2, 2).to(ACCEL)  # a use of ACCEL: a related location of the one finding above


def time_synthesis(device=None):
    try:
        return KPipeline(lang_code="a", device=device)
    except RuntimeError as e:
        # ok: hardcoded-cuda-device
        logger.error(f"{'cuda' if 'CUDA' in str(e) else device or 'auto':<6} | not available")
