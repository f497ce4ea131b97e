#!/bin/bash
# Resumes the last run on the lab's GPU box.
set -euo pipefail
python train.py --config configs/train.yaml --resume weights/last.pt
