import torch


def prefetch(batch):
    # ruleid: torch-cuda-stream-event
    stream = torch.cuda.Stream()
    # ruleid: torch-cuda-stream-event
    with torch.cuda.stream(stream):
        batch = batch.to("mps")
    # ruleid: torch-cuda-stream-event
    start = torch.cuda.Event(enable_timing=True)
    # ok: torch-cuda-stream-event
    mps_event = torch.mps.event.Event(enable_timing=True)
    return batch, start, mps_event
