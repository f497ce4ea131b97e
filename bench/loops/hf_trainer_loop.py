"""A plain nn.Module trained by the Hugging Face Trainer (its forward returns the loss)."""
import tempfile

import torch
from torch import nn
from transformers import Trainer, TrainingArguments


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x, labels=None):
        out = self.net(x)
        return {"loss": nn.functional.mse_loss(out, labels), "logits": out}


class Data(torch.utils.data.Dataset):
    def __len__(self):
        return 2048

    def __getitem__(self, i):
        return {"x": torch.randn(32), "labels": torch.randn(1)}


args = TrainingArguments(output_dir=tempfile.mkdtemp(), max_steps=40, per_device_train_batch_size=32, report_to=[],
                         save_strategy="no", logging_strategy="no", disable_tqdm=True)
Trainer(model=Net(), args=args, train_dataset=Data()).train()
