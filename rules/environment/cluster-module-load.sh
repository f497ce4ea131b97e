#!/bin/bash
#SBATCH --time=12:00:00
# ruleid: cluster-module-load
module load cuda/12.1 cudnn/8.9
# ruleid: cluster-module-load
module load NCCL/2.18.3-GCCcore-12.3.0-CUDA-12.1.1
# ok: cluster-module-load
module load python/3.11 gcc/12
# ok: cluster-module-load
# module load cuda/11.8   (old toolkit)
