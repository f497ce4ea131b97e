try:
    # ruleid: optional-cuda-only-package-import
    import xformers.ops as xops

    HAS_XFORMERS = True
except ImportError:
    xops = None
    HAS_XFORMERS = False

try:
    # ruleid: optional-cuda-only-package-import
    from apex.normalization import FusedLayerNorm as LayerNorm
except Exception:
    from torch.nn import LayerNorm

try:
    # ok: optional-cuda-only-package-import
    import flash_attn
except ImportError as err:
    raise RuntimeError("flash-attn is required") from err

# ok: optional-cuda-only-package-import
import deepspeed
