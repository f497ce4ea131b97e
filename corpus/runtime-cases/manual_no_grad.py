"""Plain SGD written out: the update runs under torch.no_grad() after backward."""
import torch

w = torch.randn(8, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(50):
    x = torch.randn(32, 8)
    loss = (x @ w + b - x.sum(1, keepdim=True)).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.01 * w.grad
        b -= 0.01 * b.grad
        w.grad.zero_()
        b.grad.zero_()
