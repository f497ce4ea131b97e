import argparse

import torch
from omegaconf import OmegaConf

from ldmlite.util import instantiate_from_config


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    config = OmegaConf.load("configs/ddpm.yaml")
    model = instantiate_from_config(config.model)
    sampler = instantiate_from_config(config.sampler)
    opt = torch.optim.AdamW(model.parameters(), lr=config.model.params.lr)
    for _ in range(args.steps):
        x = torch.randn(8, 4)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(sampler.sample(model, 4).shape)


if __name__ == "__main__":
    main()
