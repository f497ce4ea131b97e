import argparse
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from lab.metrics import perplexity_stats
from lab.model import TinyLM
from lab.sharded import build_sharded


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist-backend", default="nccl")
    return parser.parse_args()


def setup(args):
    if "RANK" in os.environ:
        dist.init_process_group(backend=args.dist_backend)
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        return torch.device(f"cuda:{local_rank}"), True
    device = torch.device("cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu")
    return device, False


def main():
    device, distributed = setup(parse_args())
    if os.environ.get("CONFIG") == "7b":
        model = build_sharded(device)
    else:
        model = TinyLM().to(device)
    if distributed:
        model = DDP(model, device_ids=[device.index])
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    losses = []
    for step in range(20):
        tokens = torch.randint(0, 256, (8, 65), device=device)
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 256), tokens[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print(perplexity_stats(losses))


if __name__ == "__main__":
    main()
