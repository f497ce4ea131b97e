import argparse

import torch
import torch.distributed as dist

# ruleid: nccl-backend
BACKEND = "nccl"


def setup(args):
    # ruleid: nccl-backend
    dist.init_process_group("nccl", init_method="env://")
    # ok: nccl-backend
    dist.init_process_group(backend=BACKEND)  # a use of BACKEND: related to the finding at its definition
    # ruleid: nccl-backend
    torch.distributed.init_process_group(backend="cpu:gloo,cuda:nccl")
    # ok: nccl-backend
    dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
    # ok: nccl-backend
    dist.init_process_group(backend="gloo")
    # ruleid: nccl-backend
    torch.cuda.nccl.all_reduce([args.tensor])


def parse():
    p = argparse.ArgumentParser()
    # ok: nccl-backend
    p.add_argument("--dist-backend", default="nccl")  # an option's default: nccl-default-argument
    return p
