try:
    from . import _C

    HAS_EXTENSION = True
except ImportError:
    _C = None
    HAS_EXTENSION = False

from .fused import fused_gelu

__all__ = ["fused_gelu", "HAS_EXTENSION"]
