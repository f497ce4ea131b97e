import torch
from torch import set_default_dtype

# ruleid: default-dtype-float64
torch.set_default_dtype(torch.float64)
# ruleid: default-dtype-float64
set_default_dtype(torch.double)
# ruleid: default-dtype-float64
torch.set_default_tensor_type(torch.DoubleTensor)
# ok: default-dtype-float64
torch.set_default_dtype(torch.float32)
