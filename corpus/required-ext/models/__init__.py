from .net import PointNet

__all__ = ["PointNet"]
