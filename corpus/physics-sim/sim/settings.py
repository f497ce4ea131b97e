import tomllib


def load():
    with open("sim/config.toml", "rb") as f:
        cfg = tomllib.load(f)
    return cfg["solver"]["dtype"]
