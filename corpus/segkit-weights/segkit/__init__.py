from . import _C
from .model import SegNet

__all__ = ["SegNet", "_C"]
