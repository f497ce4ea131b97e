"""Uses ops that have no MPS kernel in PyTorch 2.14.1: linalg_eig, take and multi_margin_loss."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(6, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(12, 6)
target = torch.randint(0, 3, (12,))
for _ in range(3):
    opt.zero_grad()
    logits = model(x)
    spectrum = torch.linalg.eig(x[:6, :6]).eigenvalues.real.detach()
    picked = torch.take(logits, torch.tensor([0, 4, 8]))
    loss = nn.functional.multi_margin_loss(logits, target) + 1e-3 * picked.sum() + 0 * spectrum.sum()
    loss.backward()
    opt.step()
