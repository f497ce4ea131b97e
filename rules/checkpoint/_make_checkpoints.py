"""Shared helpers for the checkpoint rule fixtures (run by tests/test_rules_fixtures.cpp with
/usr/bin/python3 and torch): real torch.save output, written at test time so that no binary is
committed. Files named ruleid-* must make the rule fire, ok-* must not."""
import json
import os
import struct
import sys

import torch


def out(name):
    return os.path.join(sys.argv[1], name)


def save_as_cuda(obj, name, **kwargs):
    """torch.save as on a GPU machine: every storage tagged cuda:0 (this host needs no GPU)."""
    def tagger(storage):
        return "cuda:0"

    def restore(storage, location):
        return None

    registry = torch.serialization._package_registry
    saved = list(registry)
    torch.serialization.register_package(0, tagger, restore)
    try:
        torch.save(obj, out(name), **kwargs)
    finally:
        registry[:] = saved


def save_safetensors(tensors, name):
    """A safetensors file by hand (the format is a JSON header plus raw bytes)."""
    header, blobs, offset = {}, [], 0
    codes = {torch.float64: "F64", torch.float32: "F32", torch.int64: "I64", torch.float16: "F16"}
    for key, t in tensors.items():
        data = t.contiguous().numpy().tobytes()
        header[key] = {"dtype": codes[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    raw = json.dumps(header).encode()
    with open(out(name), "wb") as f:
        f.write(struct.pack("<Q", len(raw)) + raw + b"".join(blobs))
