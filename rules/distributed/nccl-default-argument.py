import argparse
import os

import click
import torch
import torch.distributed as dist


def parse():
    p = argparse.ArgumentParser()
    # ruleid: nccl-default-argument
    p.add_argument("--dist-backend", default="nccl", type=str)
    # ok: nccl-default-argument
    p.add_argument("--fallback-backend", default="gloo")
    # ok: nccl-default-argument
    p.add_argument("--backend", default="nccl" if torch.cuda.is_available() else "gloo")
    return p.parse_args()


@click.command()
# ruleid: nccl-default-argument
@click.option("--backend", default="nccl")
def launch(backend):
    # ok: nccl-default-argument
    dist.init_process_group(backend)  # the option's value, not its default


def main(args):
    world_size = int(os.environ.get("WORLD_SIZE", 1))
    if world_size > 1:
        # ok: nccl-default-argument
        dist.init_process_group(backend=args.dist_backend)
