import torch
import torch.nn as nn

from fastops import fused_gelu


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 64)
        self.fc2 = nn.Linear(64, 1)

    def forward(self, x):
        return self.fc2(fused_gelu(self.fc1(x)))


def main() -> None:
    device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    model = MLP().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(5):
        x = torch.randn(32, 16, device=device)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
