#!/bin/bash
# ruleid: multi-gpu-launch
torchrun --nproc_per_node=8 train.py --config configs/base.yaml
# ruleid: multi-gpu-launch
python -m torch.distributed.launch --nproc_per_node $NGPUS train.py
# ok: multi-gpu-launch
torchrun --nproc_per_node=1 train.py
# ok: multi-gpu-launch
python train.py --device mps
