#!/bin/bash
# ruleid: slurm-gpu-request
#SBATCH --gres=gpu:a100:4
#SBATCH --time=24:00:00
# ruleid: slurm-gpu-request
#SBATCH --gpus-per-node=8
# ok: slurm-gpu-request
export CUDA_VISIBLE_DEVICES=0,1,2,3
# ok: slurm-gpu-request
srun python train.py
