import os

import torch

# ruleid: cuda-only-package-import
from flash_attn import flash_attn_func
# ruleid: cuda-only-package-import
import triton.language as tl
# ruleid: cuda-only-package-import
import deepspeed
# ok: cuda-only-package-import
import numpy as np
# MambaVision's mixer: dual-track (the package's own selective_scan_ref replaces it), still reported
# ruleid: cuda-only-package-import
from mamba_ssm.ops.selective_scan_interface import selective_scan_fn
# ruleid: cuda-only-package-import
import onnxruntime
# ruleid: cuda-only-package-import
from torch_int.nn.linear import W8A8B8O8Linear
# kwea123/nerf_pl's hierarchical sampling (a git submodule of the extension)
# ruleid: cuda-only-package-import
from torchsearchsorted import searchsorted
# GFPGAN's GFPGANv1 arch: basicsr's compiled ops (only basicsr.ops is CUDA; its archs are plain PyTorch)
# ruleid: cuda-only-package-import
from basicsr.ops.fused_act import FusedLeakyReLU
# TinyLlama's lit_gpt: FlashAttention's fused kernels built from its csrc/ folders, modules of their own
# ruleid: cuda-only-package-import
import rotary_emb
# ruleid: cuda-only-package-import
import xentropy_cuda_lib
# whisperX's asr.py: Whisper on CTranslate2, which has no Metal backend (CPU only on a Mac)
# ruleid: cuda-only-package-import
import ctranslate2
# ruleid: cuda-only-package-import
from faster_whisper.transcribe import TranscriptionOptions
# spconv's kernel generator: no macOS build
# ruleid: cuda-only-package-import
from cumm import tensorview as tv

try:
    # ok: cuda-only-package-import
    import xformers.ops as xops
except ImportError:
    xops = None

try:
    # ruleid: cuda-only-package-import
    import apex
except ImportError:
    raise

# ok: cuda-only-package-import
from .local_triton_helpers import fused


def load(path, quantise):
    # ok: cuda-only-package-import
    fp16 = AutoModelForCausalLM.from_pretrained(path, load_in_8bit=False)
    # ruleid: cuda-only-package-import
    return AutoModelForCausalLM.from_pretrained(path, load_in_8bit=quantise)


def train_setup(pipe):
    # Marigold's trainers: a switch diffusers offers for speed still loads xformers, and raises without it (major, no verdict impact)
    # ruleid: cuda-only-package-import
    pipe.unet.enable_xformers_memory_efficient_attention()
