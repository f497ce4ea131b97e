#!/bin/bash
set -e
export CUDA_VISIBLE_DEVICES=0
python train.py --epochs 30
