import numpy as np
import torch


def random_crops(images: np.ndarray, size: int = 28) -> torch.Tensor:
    n, _, h, w = images.shape
    offsets = np.random.randint(0, h - size + 1, size=(n, 2))
    crops = np.stack([img[:, y:y + size, x:x + size] for img, (y, x) in zip(images, offsets)])
    return torch.from_numpy(crops.astype(np.float32))


def noise_like(batch: torch.Tensor, scale: float = 0.1) -> torch.Tensor:
    noise = np.random.randn(*batch.shape) * scale
    return batch + torch.from_numpy(noise)
