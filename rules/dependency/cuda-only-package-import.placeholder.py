# A handler that only leaves None in the name's place holds no fallback where the code calls the name
# with nothing around the call that could take another way: on a Mac that call fails, as an unguarded
# import would.
import torch

try:
    # ruleid: cuda-only-package-import
    from flash_attn import flash_attn_func
except ImportError:
    flash_attn_func = None

try:
    # ruleid: cuda-only-package-import
    from apex import amp
except ImportError:
    amp = None

try:
    # ok: cuda-only-package-import
    from xformers.ops import memory_efficient_attention
except ImportError:
    memory_efficient_attention = None

try:
    # ok: cuda-only-package-import
    import triton
    HAS_TRITON = True
except ImportError:
    triton = None
    HAS_TRITON = False

try:
    # ok: cuda-only-package-import
    from deepspeed.ops.adam import FusedAdam
except ImportError:
    FusedAdam = None


def attention(q, k, v):
    return flash_attn_func(q, k, v)


def build(model, optimizer):
    model, optimizer = amp.initialize(model, optimizer, opt_level="O1")
    return model, optimizer


def optimizer_for(params, fused):
    # an arm of a choice, the other arm PyTorch's: weighed where the choice is
    if fused:
        return FusedAdam(params)
    return torch.optim.Adam(params)


def attention_guarded(q, k, v):
    if memory_efficient_attention is not None:
        return memory_efficient_attention(q, k, v)
    return torch.nn.functional.scaled_dot_product_attention(q, k, v)


def kernel_config():
    return triton.Config({}) if HAS_TRITON else None


try:
    # ok: cuda-only-package-import
    from mamba_ssm import MambaLMHeadModel
except ImportError:
    MambaLMHeadModel = None

try:
    # ok: cuda-only-package-import
    import tinycudann as tcnn
except ImportError:
    tcnn = None

USE_RASTERIZER = False
if USE_RASTERIZER:
    try:
        # ok: cuda-only-package-import
        import nvdiffrast.torch as dr
    except ImportError:
        dr = None


class Mamba(torch.nn.Module):
    # open_lm: a model the config picks, which tests the name itself
    def __init__(self, **params):
        if MambaLMHeadModel is None:
            raise ImportError("pip install mamba-ssm")
        super().__init__()
        self.model = MambaLMHeadModel(**params)


REGISTRY = {}


def register(name):
    def wrap(fn):
        REGISTRY[name] = fn
        return fn

    return wrap


@register("hashgrid")
def hash_encoding(n_input_dims, config):
    # a registered choice, as diffusers' attention backends
    return tcnn.Encoding(n_input_dims, config)


def rasterize(glctx, pos, tri, resolution):
    return dr.rasterize(glctx, pos, tri, resolution)
