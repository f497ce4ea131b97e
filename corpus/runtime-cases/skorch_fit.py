"""A skorch NeuralNetClassifier.fit: skorch's own loop (one optimizer.step(closure) per batch, forward
and backward inside the closure), no training loop in the script."""
import numpy as np
import torch
from skorch import NeuralNetClassifier
from torch import nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 2))

    def forward(self, X):
        return self.net(X)


torch.manual_seed(0)
rng = np.random.default_rng(0)
X = rng.normal(size=(512, 20)).astype(np.float32)
y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
net = NeuralNetClassifier(MLP, criterion=nn.CrossEntropyLoss, max_epochs=20, lr=0.1, batch_size=32, iterator_train__shuffle=True,
                          device="cpu", verbose=0)
net.fit(X, y)
print("accuracy %.3f" % (net.predict(X) == y).mean())
