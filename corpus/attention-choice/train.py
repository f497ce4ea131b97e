import argparse

import torch

from choice.unet import UNet


def pick_device() -> torch.device:
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("--attention", default="flash", choices=["flash", "legacy"])
    parser.add_argument("--encoder", default="hash", choices=["hash", "frequency"])
    args = parser.parse_args()
    if args.encoder == "hash":
        from choice.hash_encoder import HashEncoder as Encoder
    else:
        from choice.frequency_encoder import FrequencyEncoder as Encoder
    device = pick_device()
    model = UNet(Encoder(), attention_type=args.attention).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(args.steps):
        x = torch.randn(4, 3, 16, 16, device=device)
        noise = torch.randn_like(x)
        loss = (model(x + noise) - noise).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
