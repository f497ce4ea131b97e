"""A GAN iteration: the discriminator's and the generator's optimizer each step once."""
import torch
from torch import nn

G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
for step in range(30):
    real, z = torch.randn(16, 2), torch.randn(16, 4)
    opt_d.zero_grad()
    d_loss = bce(D(real), torch.ones(16, 1)) + bce(D(G(z).detach()), torch.zeros(16, 1))
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = bce(D(G(z)), torch.ones(16, 1))
    g_loss.backward()
    opt_g.step()
