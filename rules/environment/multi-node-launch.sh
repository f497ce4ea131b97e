#!/bin/bash
# ruleid: multi-node-launch
#SBATCH --nodes=4
# ok: multi-node-launch
#SBATCH --nodes=1
# ruleid: multi-node-launch
torchrun --nnodes=$SLURM_NNODES --nproc_per_node=8 --rdzv_backend=c10d train.py
# ruleid: multi-node-launch
python -m torch.distributed.launch --nnodes 2 --node_rank $RANK --nproc_per_node 8 train.py
# ruleid: multi-node-launch
torchrun --nnodes=1:4 --nproc_per_node=4 train.py
# ok: multi-node-launch
torchrun --nnodes=1 --nproc_per_node=1 train.py
# ok: multi-node-launch
# torchrun --nnodes=8 train.py   (the big run, not this script)
