from zoo.vit import ViT

__all__ = ["ViT"]
