import sys

from omegaconf import OmegaConf

name = sys.argv[1] if len(sys.argv) > 1 else "base"
cfg = OmegaConf.load(f"configs/{name}.yml")
if cfg.amp:
    print("amp on", cfg.device)
