import torch
from torch.cuda.amp import autocast

from model import PointTransformerLayer


def capture_step(model, opt, xyz, feats):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out, _ = model(xyz, feats)
        loss = out.square().mean()
        loss.backward()
        opt.step()
    return g


def main():
    assert torch.cuda.is_available(), "CUDA graphs and flash-attn need an NVIDIA GPU"
    model = PointTransformerLayer().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    xyz = torch.rand(2, 1024, 3, device="cuda")
    feats = torch.randn(2, 1024, 64, device="cuda")
    with autocast():
        graph = capture_step(model, opt, xyz, feats)
    for _ in range(100):
        graph.replay()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
