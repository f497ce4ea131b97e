"""Thin wrapper kept for old cluster scripts: python tools/launch.py --nproc_per_node 4 sim/train.py"""
import sys

from torch.distributed import launch

if __name__ == "__main__":
    sys.exit(launch.main())
