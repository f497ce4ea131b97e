#!/bin/bash
# ruleid: cuda-wheel-install
conda install -y pytorch torchvision pytorch-cuda=12.1 -c pytorch -c nvidia
# ok: cuda-wheel-install
conda install -y pytorch torchvision cpuonly -c pytorch
# ok: cuda-wheel-install
# pip install torch --index-url https://download.pytorch.org/whl/cu121   (cluster only)
# ok: cuda-wheel-install
pip install -r requirements.txt
