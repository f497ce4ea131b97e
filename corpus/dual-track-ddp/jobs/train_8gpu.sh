#!/bin/bash
#SBATCH --job-name=lab-lm
#SBATCH --gres=gpu:8
#SBATCH --time=48:00:00
torchrun --nproc_per_node=8 train.py
