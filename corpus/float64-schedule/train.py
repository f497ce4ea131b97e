import torch

from diffusion import Diffusion


def log_stats(losses: list) -> None:
    t = torch.tensor(losses, dtype=torch.float64)
    print(f"mean {t.mean().item():.4f} std {t.std().item():.4f}")


def main() -> None:
    device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    model = Diffusion().to(device)
    opt = torch.optim.Adam(model.parameters())
    losses = []
    for _ in range(3):
        x = torch.randn(16, 8, device=device)
        t = torch.randint(0, 100, (16,), device=device)
        loss = model(x, t).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    log_stats(losses)


if __name__ == "__main__":
    main()
