import torch


def main(model, x, y, local_rank):
    # ruleid: cuda-method-call
    model = model.cuda()
    # ruleid: cuda-method-call
    x = x.cuda(non_blocking=True)
    # ruleid: cuda-method-call
    y = y.cuda(local_rank)
    # ok: cuda-method-call
    z = x.to(y.device)
    if torch.cuda.is_available():
        # ruleid: cuda-method-call
        model.cuda()
    # ok: cuda-method-call
    ok = torch.cuda.is_available()
    # ok: cuda-method-call
    text = "call x.cuda() first"
    return model, x, y, z, ok, text
