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

try:
    # ruleid: optional-cuda-only-package-import
    from flash_attn import flash_attn_func
except ImportError:
    flash_attn_func = None


def attention(q, k, v, sdpa):
    # the code tests the name before the call: None there is the fallback's signal
    return flash_attn_func(q, k, v) if flash_attn_func is not None else sdpa(q, k, v)
