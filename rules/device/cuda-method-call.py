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
    # ok: cuda-method-call
    criterion = torch.nn.CrossEntropyLoss(ignore_index=255).cuda(local_rank)
    loss_fn = torch.nn.MSELoss()
    # ok: cuda-method-call
    loss_fn.cuda()
    # ruleid: cuda-method-call
    weighted = torch.nn.CrossEntropyLoss(weight=z).cuda()
    # ruleid: cuda-method-call
    head = torch.nn.Linear(4, 2).cuda()
    act = torch.nn.Softmax(1)
    # ruleid: cuda-method-call
    act.cuda()
    return model, x, y, z, ok, text, criterion, weighted, head
