import torch


class DDIMSampler:
    def __init__(self, steps=50, device=torch.device("cuda")):
        self.steps = steps
        self.device = device

    @torch.no_grad()
    def sample(self, model, n):
        x = torch.randn(n, 4).cuda()
        for _ in range(self.steps):
            x = x - 0.01 * model(x)
        return x
