import torch

# ruleid: cudnn-backend-flag
torch.backends.cudnn.benchmark = True
# ruleid: cudnn-backend-flag
torch.backends.cuda.matmul.allow_tf32 = True
# ok: cudnn-backend-flag
enabled = torch.backends.cudnn.enabled
# ok: cudnn-backend-flag
torch.backends.mps.foo = 1
