from omegaconf import OmegaConf


def backend():
    cfg = OmegaConf.load("configs/dist.yaml")
    return cfg.backend
