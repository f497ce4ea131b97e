#!/bin/bash
#SBATCH --gres=gpu:4
module load cuda/12.1
srun torchrun --nnodes 2 train.py
