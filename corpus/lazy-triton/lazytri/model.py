import torch.nn as nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(1, 4, 3)
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        return self.head(self.conv(x).mean(-1))
