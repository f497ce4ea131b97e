#!/bin/bash
# ruleid: cuda-visible-devices
export CUDA_VISIBLE_DEVICES=0,1,2,3
# ruleid: cuda-visible-devices
CUDA_VISIBLE_DEVICES=0 python train.py --epochs 10
# ok: cuda-visible-devices
# CUDA_VISIBLE_DEVICES=1 python eval.py   (a commented-out run)
# ok: cuda-visible-devices
echo "running on ${CUDA_VISIBLE_DEVICES}"
