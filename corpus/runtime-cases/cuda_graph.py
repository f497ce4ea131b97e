"""Captures its step in a CUDA graph: the trial port cannot redirect torch.cuda.graphs."""
import torch
from torch import nn

model = nn.Linear(8, 8).cuda()
static_x = torch.randn(4, 8, device="cuda")
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    static_y = model(static_x)
graph.replay()
