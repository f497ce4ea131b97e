train:
# ruleid: multi-gpu-launch
	torchrun --nproc_per_node=8 train.py
# ok: multi-gpu-launch
debug:
	python train.py --device mps
