"""The earlier Lightning trainer, still offered by train.py --trainer lightning."""
import pytorch_lightning as pl
import torch
import torch.nn.functional as F

from data.loader import synthetic_loader
from model import SmallConvNet


class LitClassifier(pl.LightningModule):
    def __init__(self, lr: float):
        super().__init__()
        self.net = SmallConvNet()
        self.lr = lr

    def training_step(self, batch, batch_idx):
        images, labels = batch
        return F.cross_entropy(self.net(images), labels)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.lr, momentum=0.9)


def fit_with_lightning(epochs: int, lr: float) -> None:
    # Lightning refuses a DDP-family strategy on the MPS accelerator: "auto" on the Mac
    trainer = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp", max_epochs=epochs)
    trainer.fit(LitClassifier(lr), synthetic_loader())
