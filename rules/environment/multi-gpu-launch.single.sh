#!/bin/bash
GPUS=1
# ok: multi-gpu-launch
torchrun --nproc_per_node=$GPUS train.py
GPUS_BIG=8
# ruleid: multi-gpu-launch
torchrun --nproc_per_node=${GPUS_BIG} train.py
