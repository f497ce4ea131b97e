import argparse

import click
import torch


def parse():
    parser = argparse.ArgumentParser()
    # ruleid: cuda-default-argument
    parser.add_argument("--device", default="cuda")
    # ruleid: cuda-default-argument
    parser.add_argument("--gpu", type=str, default="cuda:0", help="device")
    # ok: cuda-default-argument
    parser.add_argument("--name", default="cuda-run")
    # ok: cuda-default-argument
    parser.add_argument("--device2", default="cuda" if torch.cuda.is_available() else "cpu")
    return parser


# ruleid: cuda-default-argument
@click.option("--device", default="cuda")
def main(device):
    # ok: cuda-default-argument
    return torch.zeros(2).to(device)


# ruleid: cuda-default-argument
def load(path, device="cuda"):
    return torch.load(path, map_location="cpu")


# ruleid: cuda-default-argument
def frames(path, compute_device: torch.device = torch.device("cuda")):
    return compute_device


# ok: cuda-default-argument
def pick(path, device=None, name="cuda"):
    return name


# chai-lab's run_inference (its CLI's --device moves it): the device an unset value falls back to
def fold(fasta, device=None):
    # ruleid: cuda-default-argument
    torch_device = torch.device(device if device is not None else "cuda:0")
    if device is None:
        # ruleid: cuda-default-argument
        device = torch.device("cuda:0")
    return torch_device, device


def encode(pipe, prompt, device=None):
    if device is None:
        # ruleid: cuda-default-argument
        device = getattr(pipe, "_execution_device", None) or torch.device("cuda")
    if not device:
        # ruleid: cuda-default-argument
        device = "cuda"
    # ok: cuda-default-argument
    other = torch.device("cuda") if prompt else device
    return other
