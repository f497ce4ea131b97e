train:
# ruleid: cuda-visible-devices
	CUDA_VISIBLE_DEVICES=0 python train.py
# ok: cuda-visible-devices
eval:
	python eval.py --device mps
