#!/bin/bash
# A variable set in both arms of an if is not known: the launch may span nodes.
if [ "$BIG" = 1 ]; then
    NODES=4
else
    NODES=1
fi
# ruleid: multi-node-launch
torchrun --nnodes=$NODES --nproc_per_node=8 train.py
