#!/bin/bash
# ruleid: multi-gpu-launch
torchrun --nproc_per_node=8 train.py --config configs/base.yaml
# ruleid: multi-gpu-launch
python -m torch.distributed.launch --nproc_per_node $NGPUS train.py
# ok: multi-gpu-launch
torchrun --nproc_per_node=1 train.py
# ok: multi-gpu-launch
# torchrun --nnodes=1 --nproc_per_node=2 --master_port=29509 train.py --config ./configs/ffs_train.yaml
# ok: multi-gpu-launch
    #CUDA_VISIBLE_DEVICES='0,1,' python -m torch.distributed.launch --nproc_per_node=2 train.py
# ok: multi-gpu-launch
python train.py --device mps
# ruleid: multi-gpu-launch
python -m torch.distributed.launch \
    --nnodes=$NNODES \
    --nproc_per_node=$GPUS \
    $(dirname "$0")/train.py $CONFIG --launcher pytorch
# ok: multi-gpu-launch
torchrun \
    --nproc_per_node=1 \
    train.py
