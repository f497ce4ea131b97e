import yaml


def load(path="configs/train.yaml"):
    with open(path) as f:
        return yaml.safe_load(f)


def device_of(cfg):
    return cfg["device"]
