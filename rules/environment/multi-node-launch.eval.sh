#!/bin/bash
# InternVideo's evaluation launchers: the script sets the node count it passes on, once.
NNODE=1
NUM_GPUS=1
# ok: multi-node-launch
srun -p ${PARTITION} -n${NNODE} --gres=gpu:${NUM_GPUS} bash torchrun.sh --nnodes=${NNODE} --nproc_per_node=${NUM_GPUS} tasks/retrieval.py
