import tomllib

import torch
import yaml

# A mention of "unread.yml" in a comment does not load it.
cfg = yaml.safe_load(open("config.yml"))
device = torch.device(cfg["device"])
eval_device = cfg.get("device", "cpu")
with open("settings.toml", "rb") as f:
    settings = tomllib.load(f)
