"""word_language_model style: no torch.optim, the parameters are updated by hand after backward."""
import torch
from torch import nn

model = nn.Sequential(nn.Embedding(50, 16), nn.Flatten(), nn.Linear(16 * 5, 50))
criterion = nn.CrossEntropyLoss()
lr = 0.5
for step in range(50):
    data, target = torch.randint(0, 50, (8, 5)), torch.randint(0, 50, (8,))
    model.zero_grad()
    loss = criterion(model(data), target)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)
