"""A LightningModule trained by pl.Trainer (automatic optimisation: optimizer.step(closure))."""
import lightning as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))

    def training_step(self, batch, _):
        x, y = batch
        return nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


data = DataLoader(TensorDataset(torch.randn(2048, 32), torch.randn(2048, 1)), batch_size=32)
L.Trainer(max_steps=40, logger=False, enable_checkpointing=False, enable_progress_bar=False).fit(Net(), data)
