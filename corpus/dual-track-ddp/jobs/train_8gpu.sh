#!/bin/bash
#SBATCH --job-name=lab-lm
#SBATCH --nodes=2
#SBATCH --gres=gpu:8
#SBATCH --time=48:00:00
module load cuda/12.1 nccl/2.18
nvidia-smi
torchrun --nnodes=$SLURM_NNODES --nproc_per_node=8 train.py
