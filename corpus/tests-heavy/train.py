import torch

from tinynet.model import make_model


def main() -> None:
    device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    model = make_model().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(64, 10, device=device), torch.randint(0, 2, (64,), device=device)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


if __name__ == "__main__":
    main()
