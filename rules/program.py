# Fixture of rules/program.yaml: each `# guard: KIND` names the guard the program model must find
# around the statement on the next line (none: no guard; mps-aware: the check already knows MPS).
import os
import sys
import unittest
from typing import TYPE_CHECKING

import pytest
import torch
import torch.distributed as dist
from accelerate import Accelerator

try:
    # guard: import-fallback
    import flash_attn
except ImportError:
    flash_attn = None

try:
    # guard: none
    import apex
except ImportError:
    raise

try:
    # guard: import-fallback
    import apex.normalization
except:
    # a comment first: still the bare except's fallback
    apex = None

try:
    # guard: none
    import MultiScaleDeformableAttention as MSDA
except ModuleNotFoundError:
    info = "compile the op with make.sh"  # a message first, then a raise: still required (Mask2Former)
    raise ModuleNotFoundError(info)

try:
    # guard: none
    from xformers.ops import fmha
except ImportError:
    print("xFormers is required for training")
    sys.exit(1)

try:
    # guard: none
    from .correlation import correlation  # the same module again by another path (sniklaus/pytorch-pwc)
except:
    sys.path.insert(0, "./correlation")
    import correlation

try:
    # guard: import-fallback
    import ujson as json
except ImportError:
    import json

try:
    # guard: import-fallback
    import tensorrt as trt  # installed on demand, then imported again: weighed as before (yolov5's export.py)
except Exception:
    check_requirements("tensorrt")
    import tensorrt as trt

try:
    # guard: import-fallback
    from flash_attn import flash_attn_func
except ImportError:
    from .attention import flash_attn_func  # another module's function of the same name: a fallback

try:
    # guard: none
    import ops._ext as _ext
except ImportError:
    from torch.utils.cpp_extension import load

    _ext = load("_ext", sources=["ops/src/knn.cu"])  # the same CUDA code, built just in time: no fallback

use_cuda = torch.cuda.is_available()
ddp = int(os.environ.get("RANK", -1)) != -1
accelerator = Accelerator()


def attention(x):
    if x.is_cuda:
        # guard: device-check
        from .triton_ops import fused
        return fused(x)
    # guard: none
    return x.softmax(-1)


def by_type(x):
    if x.device.type == "cuda":
        # guard: device-check
        torch.cuda.synchronize()
    if not x.is_cuda:
        # guard: none
        y = x.double()
    else:
        # guard: device-check
        y = x.cuda()
    return y


def mps_known(x):
    if x.device.type != "mps":
        # guard: mps-aware
        x = x.double()
    return x


def by_device_object(model, device):
    # stable diffusion's txt2img.py, whose --device defaults to the CPU
    if device == torch.device("cuda"):
        # guard: device-check
        model.cuda()
    if device != torch.device("cpu"):
        # guard: non-cpu-branch
        model.half()
    return model


def by_device_text(device):
    # timm's utils/distributed.py: the device's name tested as text
    if device.startswith("cuda:"):
        # guard: device-check
        torch.cuda.set_device(device)
    if not device.startswith("cpu"):
        # guard: non-cpu-branch
        torch.cuda.synchronize()
    return device


def by_device_text_knowing_mps(device):
    if device.startswith("mps"):
        # guard: mps-aware
        torch.mps.synchronize()
    return device


def flags(model):
    if use_cuda:
        # guard: device-check
        model.cuda()
    if ddp:
        # guard: distributed-gate
        dist.init_process_group("nccl")
    if dist.is_initialized() and dist.get_world_size() > 1:
        # guard: distributed-gate
        model = torch.nn.parallel.DistributedDataParallel(model)
    if accelerator.is_main_process:
        # guard: none
        model.cuda()
    timestamps = [1, 2]
    if timestamps:
        # guard: none
        model.cuda()
    return model


def init_distributed(world_size, rank):
    # I-JEPA's init_distributed: where the multi-process start fails, the run goes on as one process
    try:
        # guard: distributed-gate
        dist.init_process_group(backend="nccl", world_size=world_size, rank=rank)
    except Exception as e:
        world_size, rank = 1, 0
        print(e)
    try:
        # guard: import-fallback
        model.cuda()
    except Exception:
        model = model.cpu()
    return world_size, rank


def platforms():
    if sys.platform == "linux":
        # guard: platform
        os.environ["NCCL_P2P_DISABLE"] = "1"
    if sys.platform == "darwin":
        # guard: none
        device = "mps"
    else:
        # guard: platform
        device = "cuda"
    if torch.version.hip:
        # guard: platform
        import rocm_kernels
    return device


def init_distributed_mode(args):
    # MAE's and VideoMAE's: past a chain whose else returns, one of its tests held; `dist_on_itp` is a
    # launch on a cluster (distributed_names), as the environment's RANK is
    if args.dist_on_itp:
        args.rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    elif "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        args.rank = int(os.environ["RANK"])
    else:
        args.distributed = False
        return
    # guard: distributed-gate
    torch.cuda.set_device(args.gpu)


def strategy(devices=8, gpus=None):
    # TinyLlama's setup(devices=8): the count of devices decides, whatever its default (device_count_names);
    # a list of devices on its own is no switch.
    if devices > 1:
        # guard: distributed-gate
        strategy = FSDPStrategy(auto_wrap_policy=None)
    if len(gpus) == 1:
        # guard: none
        model.cuda()
    else:
        # guard: distributed-gate
        model = torch.nn.DataParallel(model)
    if not devices:
        # guard: none
        model.cuda()
    return strategy


def backends(w, device, engine, onnx):
    # yolov5's DetectMultiBackend: the TensorRT arm imports tensorrt before its CUDA device, so a Mac
    # never gets that far (mac_absent_package_words); an arm that imports something else goes on.
    if engine:
        import tensorrt as trt
        # guard: none
        import pycuda.driver as cuda

        if device.type == "cpu":
            # guard: device-check
            device = torch.device("cuda:0")
    elif onnx:
        import onnxruntime

        # guard: none
        device = torch.device("cuda:0")
    elif w.endswith(".trt"):
        # ultralytics' AutoBackend: imported in a try whose handler installs it and imports it again
        try:
            import tensorrt as trt
        except ImportError:
            check_requirements("nvidia-tensorrt")
            import tensorrt as trt
        if device.type == "cpu":
            # guard: device-check
            device = torch.device("cuda:0")
    elif w.endswith(".xml"):
        # a handler that goes on without it: the arm runs on
        try:
            import tensorrt as trt
        except ImportError:
            trt = None
        # guard: none
        device = torch.device("cuda:0")
    return device


class Runner:
    # LAVIS-style runners (BLIP, MiniGPT-4): a property named for the distributed run.
    def model(self):
        if self.use_distributed:
            # guard: distributed-gate
            return DDP(self._model)
        return self._model


class BaseModel:
    # basicsr's (NAFNet, Restormer, CodeFormer): the options dict's key names the flag (distributed_keys);
    # a distance held under that name in a plain variable is no flag.
    def model_to_device(self, net, points):
        if self.opt['dist']:
            # guard: distributed-gate
            net = DDP(net, device_ids=[torch.cuda.current_device()])
        elif self.opt["num_gpu"] > 1:
            # guard: distributed-gate
            net = torch.nn.DataParallel(net)
        dist = (points ** 2).sum()
        if dist > 1.0:
            # guard: none
            points = points.cuda()
        if self.opt['lr'] > 0:
            # guard: none
            net = net.cuda()
        # `net = DDP(net, ...)` above wraps the model: `net` is no flag of the distributed run after it
        if net is not None:
            # guard: none
            points = points.cuda()
        return net, points


def early(x):
    if not torch.cuda.is_available():
        return x
    # guard: device-check
    return x.cuda()


def early_either(x, flash):
    # denoising-diffusion's Attend: past `if not cuda or not flash: return`, both hold
    if not torch.cuda.is_available() or not flash:
        return x
    # guard: device-check
    return x.cuda()


def amp_if_installed(model):
    # transformers' shape: the package is used only where it is installed
    if is_apex_available():
        # guard: import-fallback
        from apex import amp
        return amp.initialize(model)
    return model


def triton_if_installed(x):
    if importlib.util.find_spec("triton") is not None:
        # guard: import-fallback
        import triton
    return x


def triton_or_not(x):
    if importlib.util.find_spec("triton") is None:
        # guard: none
        return x.cuda()
    return x


def cuda_if_there(x):
    if is_torch_cuda_available():
        # guard: device-check
        return x.cuda()
    return x


def required(x):
    if not torch.cuda.is_available():
        raise RuntimeError("this needs a CUDA GPU")
    # guard: none
    return x.cuda()


def choose():
    a = (
        # guard: availability-select
        "cuda" if torch.cuda.is_available() else "cpu"
    )
    b = (
        # guard: mps-aware
        "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
    )
    if torch.backends.mps.is_available():
        c = "mps"
    elif torch.cuda.is_available():
        # guard: mps-aware
        c = "cuda"
    return a, b, c


class KernelTest(unittest.TestCase):
    @unittest.skipIf(not torch.cuda.is_available(), "needs CUDA")
    def test_kernel(self):
        # guard: test-skip
        torch.ones(2).cuda()

    def test_early_skip(self):
        if not torch.cuda.is_available():
            self.skipTest("needs CUDA")
        # guard: test-skip
        torch.ones(2).cuda()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_pytest():
    # guard: test-skip
    torch.ones(2).cuda()


requires_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
not_a_skip = pytest.mark.slow


@requires_cuda
def test_aliased_skip():
    # guard: test-skip
    torch.ones(2).cuda()


@not_a_skip
def test_marked_slow():
    # guard: none
    torch.ones(2).cuda()


# a skip on a condition that says nothing of a Mac (fla's Intel Triton skips): the test runs there
@pytest.mark.skipif(os.environ.get("DEVICE_PLATFORM") == "intel", reason="Intel Triton failure")
def test_skipped_on_intel():
    # guard: none
    torch.ones(2).cuda()


@unittest.skipIf(sys.version_info < (3, 9), "needs 3.9")
def test_skipped_on_old_python():
    # guard: none
    torch.ones(2).cuda()


def _require_cuda():
    # a test helper that skips the test without CUDA (FastVideo's kernel tests)
    if not torch.cuda.is_available():
        pytest.skip("CUDA not available")


def _cpu_note():
    if not torch.cuda.is_available():
        print("no CUDA")


def _dtype_skip(dtype):
    # skips one dtype only: the others run on a Mac
    if dtype == torch.bfloat16 and not torch.cuda.is_bf16_supported():
        pytest.skip("no bfloat16 on this GPU")


def test_after_the_skip_helper():
    # guard: none
    torch.cuda.synchronize()
    _require_cuda()
    # guard: test-skip
    torch.ones(2).cuda()


def test_after_a_helper_that_does_not_skip(dtype):
    _cpu_note()
    _dtype_skip(dtype)
    # guard: none
    torch.ones(2).cuda()


def run_twice(step):
    def unused_helper(x):
        # a nested function that nothing in its function names (DeepSDF's empirical_stat): dead code
        # guard: never-called
        return x.cuda()

    def used_helper(x):
        # guard: none
        return x.cuda()

    return used_helper(step)


HAS_FUSED = False  # apex's tests: set where the CUDA extension fails to import


@unittest.skipIf(not HAS_FUSED, "the fused extension is not built")
def test_skipped_without_the_extension():
    # guard: test-skip
    torch.ones(2).cuda()


from vissl.utils.test_utils import gpu_test  # vissl's: skips below gpu_count CUDA devices


@gpu_test(gpu_count=1)
def test_on_one_gpu():
    # guard: test-skip
    torch.ones(2).cuda()


if TYPE_CHECKING:
    # guard: never-called
    import triton


def pick_dtype():
    bf16 = torch.cuda.is_available() and (
        # guard: device-check
        torch.cuda.is_bf16_supported()
    )
    mps_bf16 = torch.backends.mps.is_available() and (
        # guard: mps-aware
        torch.ones(1, device="mps").bfloat16()
    )
    either = torch.cuda.is_available() or (
        # guard: none
        torch.cuda.is_bf16_supported()
    )
    return bf16, mps_bf16, either


from tests.helpers import requires_gpu  # a repository's own skip decorator, imported by name
from transformers.testing_utils import require_torch_multi_gpu
from utils import comm


@requires_gpu
def test_imported_skip():
    # guard: test-skip
    torch.ones(2).cuda()


@require_torch_multi_gpu  # transformers' testing_utils: skips below two CUDA devices
def test_model_parallel():
    # guard: test-skip
    torch.cuda.set_device(1)


def reduce_loss(loss):
    if comm.get_world_size() > 1:
        # guard: distributed-gate
        dist.all_reduce(loss)
    if comm.get_world_size() == 1:
        # guard: none
        return loss.cuda()
    else:
        # guard: distributed-gate
        dist.all_reduce(loss)
    return loss


def setup_device(args):
    # Hugging Face's example scripts: -1 is one process.
    if args.local_rank == -1 or args.no_cuda:
        # guard: none
        device = torch.device("cuda")
    else:
        # guard: distributed-gate
        torch.cuda.set_device(args.local_rank)
    if args.local_rank not in [-1, 0]:
        # guard: distributed-gate
        torch.distributed.barrier()
    if args.local_rank in [-1, 0]:
        # guard: none
        model.cuda()
    return device


def upfirdn(x, ext):
    if x.device.type == "cpu":
        # guard: none
        return x * 2
    else:
        # guard: non-cpu-branch
        return ext.upfirdn(x)


def act(x, ext):
    if x.is_cpu:
        # guard: none
        return x.relu()
    # guard: non-cpu-branch
    return ext.act(x)


def act_cuda(x, ext):
    if not x.is_cuda:
        return x.relu()
    # guard: device-check
    return ext.act(x)


def init_distributed_mode(args):
    # DETR's and MAE's shape: past the chain one of the launcher's variables is set
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        args.rank = int(os.environ["RANK"])
    elif "SLURM_PROCID" in os.environ:
        args.rank = int(os.environ["SLURM_PROCID"])
    else:
        args.distributed = False
        return
    # guard: distributed-gate
    torch.cuda.set_device(args.rank)


def init_distributed(loggers):
    # seamless_communication's shape: a single process (no launcher variable) leaves early
    if "RANK" not in os.environ:
        print("Cannot init the distributed context: the launcher variables are not set")
        return
    rank = int(os.environ["RANK"])
    # guard: distributed-gate
    torch.cuda.set_device(rank)


def trainer_strategy(config):
    # safari's and hyena-dna's shape: a DDP strategy only where several devices train
    n_devices = config.trainer.get("devices", 1)
    if n_devices > 1 and config.trainer.get("strategy", None) is None:
        # guard: distributed-gate
        config.trainer.strategy = dict(_target_="pytorch_lightning.strategies.DDPStrategy")


def get_devices():
    # pyannote's shape: a name the vocabulary calls distributed, bound from the device count
    num_gpus = torch.cuda.device_count()
    if num_gpus == 0:
        return [torch.device("cpu")]
    # guard: device-check
    return [torch.device(f"cuda:{index:d}") for index in range(num_gpus)]


def pick_backend(args):
    # the else leaves, but a branch names MPS: what follows runs on a Mac too
    if torch.cuda.is_available():
        device = "cuda"
    elif torch.backends.mps.is_available():
        device = "mps"
    else:
        return None
    # guard: mps-aware
    return torch.device(device)


def init_or_single(args):
    # a branch of the chain is the single-process one: no guard past it
    if "RANK" in os.environ:
        args.rank = int(os.environ["RANK"])
    elif args.world_size == 1:
        args.rank = 0
    else:
        return
    # guard: none
    torch.cuda.set_device(args.rank)


def leaves_in_the_branch_too(args):
    if "RANK" in os.environ:
        return
    else:
        return
    # guard: none
    torch.cuda.set_device(0)


class PerceptualLoss:
    # LPIPS' shape: the caller's switch for the GPU path
    def __init__(self, use_gpu=True):
        self.use_gpu = use_gpu

    def forward(self, x, args):
        if self.use_gpu:
            # guard: device-check
            x = x.cuda()
        if not args.use_cuda:
            # guard: none
            return x.cpu()
        # guard: device-check
        return x.cuda()

    def train_step(self, sample, args):
        # ogb's biokg example: `--cuda` is a store_true flag
        if args.cuda:
            # guard: device-check
            sample = sample.cuda()
        return sample

    def preload(self):
        # apex's prefetcher: a name bound from a `.cuda()` call is no switch
        batch = self.next_input.cuda(non_blocking=True)
        if batch is not None:
            # guard: none
            batch.record_stream(torch.cuda.current_stream())


def data_parallel(model, device):
    # yolov5's train.py: the single-process test does not undo the device check beside it
    RANK = int(os.getenv("RANK", "-1"))
    cuda = device.type != "cpu"
    if cuda and RANK == -1 and torch.cuda.device_count() > 1:
        # guard: device-check
        model = torch.nn.DataParallel(model)
    return model


def gathered(x):
    # a call through the torch.distributed module is no `distributed` flag
    owner = torch.distributed.get_rank()
    if owner is None:
        # guard: none
        x = x.cuda()
    return x


# PyTorch-style device-generic tests (apex's test_fused_layer_norm.py): the instantiation names the
# device types each class's tests are made for.
from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyCUDA


class TestFusedNorm(unittest.TestCase):
    def test_forward(self, device):
        # guard: test-skip
        x = torch.ones(2).cuda()

    @onlyCUDA
    def test_fused_only(self, device):
        # guard: test-skip
        return torch.ones(2).cuda()


class TestEverywhere(unittest.TestCase):
    def test_forward(self, device):
        # guard: none
        x = torch.ones(2).cuda()

    @onlyCUDA
    def test_fused_only(self, device):
        # guard: test-skip
        return torch.ones(2).cuda()


instantiate_device_type_tests(TestFusedNorm, globals(), only_for=("cuda",))
instantiate_device_type_tests(TestEverywhere, globals(), only_for=("cuda", "cpu"))


# Choices between ways of doing one job: the arm a Mac selects does it without CUDA. The arm the
# parameter's default takes is the run as written (default-arm): the Mac passes the other value.
def attention_block(attention_type="flash", use_fused=False):
    if attention_type == "flash":
        # guard: default-arm
        from flash_attn import flash_attn_func as attend
    else:
        attend = torch.nn.functional.scaled_dot_product_attention
    if use_fused:
        # guard: alternative-branch
        import apex.normalization
        norm = apex.normalization.FusedLayerNorm(4)
    else:
        norm = torch.nn.LayerNorm(4)
    if attention_type in ("triton", "triton2"):
        # guard: none
        from .triton_attention import attend
    elif attention_type == "fused":
        # guard: none
        from .fused_cuda_attention import attend
    else:
        attend = torch.ops.cuda_attention.attend  # no alternative: the other arms need a GPU too
    return attend, norm


def wrap(model, version):
    if version == "1.12":
        # guard: none
        return torch.nn.parallel.DistributedDataParallel(model, static_graph=True)
    else:
        return torch.nn.parallel.DistributedDataParallel(model)


def per_parameter(model):
    for n, p in model.named_parameters():
        if n == "emb.weight":
            # guard: none
            p.data = p.data.cuda()
        else:
            p.data = p.data * 2


def cached(table, path):
    if table is None:
        # guard: none
        table = torch.load(path).cuda()
    else:
        table = table.float()
    return table


class SparseTensor:
    # A class's own device move (guards.device_move_methods): it runs only where its caller asks for CUDA.
    def cuda(self):
        # guard: device-check
        self.feats = self.feats.cuda()
        return self

    @property
    def on_gpu(self):
        # guard: none
        return self.feats.cuda()


def cuda(x):
    # guard: none
    return x.cuda()  # a module-level function named cuda is no method of a class


def build_network(opt):
    # A switch read off the options object (guards.option_objects): torch-ngp's `--ff`.
    if opt.ff:
        # guard: alternative-branch
        from .network_ff import NeRFNetwork
    else:
        from .network import NeRFNetwork
    return NeRFNetwork


def resume(state):
    # `state` is no options object: control flow, not a choice
    if state.ff:
        # guard: none
        from .network_ff import NeRFNetwork
    else:
        from .network import NeRFNetwork
    return NeRFNetwork


def _should_use_custom_op(x):
    # A predicate that answers no off CUDA (stylegan3's conv2d_gradfix): calling it is a device check.
    if not enabled:
        return False
    if x.device.type != "cuda":
        return False
    return True


def _has_weights(x):
    # A predicate whose no is not about the device: no device check.
    if x.weight is None:
        return False
    return True


def conv2d(x, w):
    if _should_use_custom_op(x):
        # guard: device-check
        return _conv2d_gradfix(x, w).cuda()
    if _has_weights(w):
        # guard: none
        return w.cuda()
    return x


def wrap(model, args):
    # A gate whose every other arm refuses to run (moco's main_moco.py): this arm is required.
    if args.distributed:
        # guard: none
        model = torch.nn.parallel.DistributedDataParallel(model.cuda())
    elif args.gpu is not None:
        model = model.cuda(args.gpu)
        raise NotImplementedError("Only DistributedDataParallel is supported.")
    else:
        raise NotImplementedError("Only DistributedDataParallel is supported.")
    return model


def implicit_gemm(x):
    # torchsparse: the CUDA op or nothing
    if x.device.type == "cuda":
        # guard: none
        return backend.conv_forward_implicit_gemm_cuda(x)
    else:
        raise NotImplementedError


def wrap_optional(model, args):
    # with a path beside it, the gate still makes the arm optional
    if args.distributed:
        # guard: distributed-gate
        model = torch.nn.parallel.DistributedDataParallel(model.cuda())
    else:
        model = model.to(args.device)
    return model


def parse_gpu(args):
    # A cluster a Mac is not (guards.cluster_strings): LoRA's examples/NLG/src/gpu.py.
    if args.platform == "local":
        # guard: none
        torch.cuda.set_device(args.local_rank)
    elif args.platform == "philly":
        # guard: platform
        torch.cuda.set_device(args.local_rank)
    if args.platform != "slurm":
        # guard: none
        torch.cuda.set_device(0)
    if args.platform == "philly" or args.platform == "local":
        # guard: none
        model = torch.nn.parallel.DistributedDataParallel(model)
    if args.platform == "philly" or args.platform == "k8s":
        # guard: platform
        model = torch.nn.parallel.DistributedDataParallel(model)


def gan_losses(parser, args, real, fake):
    # The arm the option's default takes is the documented run, not one way among others
    # (style-based-gan-pytorch: `--loss` defaults to "wgan-gp").
    parser.add_argument("--loss", type=str, default="wgan-gp", choices=["wgan-gp", "r1"])
    if args.loss == "wgan-gp":
        # guard: none
        eps = torch.rand(2, 1).cuda()
        loss = (eps * real).mean()
    elif args.loss == "r1":
        loss = fake.mean()
    # not the default arm: another arm does the job without CUDA
    parser.add_argument("--penalty", type=str, default="none", choices=["none", "gp"])
    if args.penalty == "gp":
        # guard: alternative-branch
        extra = torch.rand(2, 1).cuda().mean()
    else:
        extra = torch.zeros(1).mean()
    return loss + extra


def gang_backend(device):
    # fairseq2's process group: the CPU arm is a way round, whatever the else refuses
    if device.type == "cpu":
        backend = "gloo"
    elif device.type == "cuda":
        # guard: device-check
        backend = dist.Backend.NCCL
    else:
        raise ValueError("cpu or cuda")
    return backend


def latency_device(parser, args):
    # The value a flag off by default picks, as under `if args.gpu:` (doctr's latency scripts, judged
    # too loud in a sample of 2026-12-07); the value of the other arm is the default run's.
    parser.add_argument("--gpu", action="store_true")
    device = torch.device(
        # guard: off-by-default
        "cuda:0"
        if args.gpu
        else "cpu"
    )
    other = torch.device(
        "cpu"
        if args.gpu
        else
        # guard: none
        "cuda:0"
    )
    return device, other


class MPTConfig:
    # A switch __init__ stores as it is (`self.X = X`) has its parameter's default wherever the class
    # reads it (llm-foundry's MPTConfig: `use_pad_tok_in_ffn: bool = True`, then `if not
    # self.use_pad_tok_in_ffn:` in another method). `not X` with X on by default is off by default.
    def __init__(self, use_pad_tok_in_ffn=True, fused=False, fc_type="torch"):
        self.use_pad_tok_in_ffn = use_pad_tok_in_ffn
        self.fused = fused
        self.fc_type = fc_type

    def validate(self):
        if not self.use_pad_tok_in_ffn:
            # guard: off-by-default
            from flash_attn.bert_padding import unpad_input
        if not self.fused:
            # guard: none
            import apex
        # a lazy import where the run picks an implementation by name, with no other arm: the code
        # goes on without it for any other value
        if self.fc_type == "te" or self.fc_type in ("te_fp8", "te_mlp"):
            # guard: alternative-branch
            import transformer_engine.pytorch as te
        if self.fc_type == "te":
            # guard: none
            import transformer_engine.pytorch as te
        else:
            print("an other arm that binds nothing: the choice is no way round")
        return te


if sys.argv[1] == "te":
    # guard: none
    import transformer_engine.pytorch as te  # at module level, not lazy: the option test is no guard here


def build_model(cfg, model):
    # A config key names the process count as the flag does, in any case (TimeSformer's cfg.NUM_GPUS).
    if cfg.NUM_GPUS > 1:
        # guard: distributed-gate
        model = torch.nn.parallel.DistributedDataParallel(model)
    return model


# A test that names the package its branch imports says whether the package is there (Fooocus'
# `if model_management.xformers_enabled(): import xformers`): where it is not, the code goes on without
# it. Matched in the test's identifiers, four letters or more; a negated test or another name is none.
if model_management.xformers_enabled():
    # guard: import-fallback
    import xformers.ops
if model_management.attention_enabled():
    # guard: none
    import xformers
if not model_management.xformers_enabled():
    # guard: none
    import xformers


class Trainer:
    # transformers.Trainer's switches for a sharded run (trl's `elif self.is_fsdp_enabled: prepare_fsdp(...)`)
    def prepare_reference(self, model):
        if self.is_deepspeed_enabled:
            # guard: distributed-gate
            return prepare_deepspeed(model)
        elif self.is_fsdp_enabled:
            # guard: distributed-gate
            return torch.distributed.fsdp.FullyShardedDataParallel(model)
        return model


def should_use_fp16(device=None):
    # Fooocus' model_management: an early return on a test whose name says MPS (`mps_mode()`, split at
    # `_`): the code after it never runs on a Mac. `dumps` and `timestamps` say nothing of MPS.
    if device is not None and is_device_mps(device):
        return False
    if cpu_mode() or model_management.mps_mode():
        return False
    # guard: mps-aware
    return torch.cuda.is_bf16_supported()


def pick_kernel(x, use_mps=False):
    # negated, the test still names MPS: past it only MPS runs
    if not use_mps:
        return x
    # guard: mps-aware
    return torch.cuda.is_bf16_supported()


def log_timestamps(rows):
    if json_dumps_enabled() or use_timestamps:
        return rows
    # guard: none
    return torch.cuda.is_bf16_supported()


# An import with a fallback under a switch that is off unless set: the default run never tries it
# (ChatRWKV's RWKV_CUDA_ON around its kernel build).
if os.environ.get("RWKV_CUDA_ON") == "1":
    try:
        # guard: off-by-default
        import wkv_cuda
    except ImportError:
        wkv_cuda = None


# An import with a fallback in one arm of a choice is optional whichever arm runs (Fooocus).
if args.disable_xformers:
    XFORMERS_IS_AVAILABLE = False
else:
    try:
        # guard: import-fallback
        import xformers
        XFORMERS_IS_AVAILABLE = True
    except ImportError:
        XFORMERS_IS_AVAILABLE = False


class ClapConditioner:
    # AudioLDM's CLAP conditioner: an `and` holds only where each operand does, and `not
    # self.training_mode` is off while training_mode keeps its default, True.
    def __init__(self, training_mode=True):
        self.training_mode = training_mode

    def forward(self, x):
        if self.model.training == True and not self.training_mode:
            # guard: off-by-default
            x = x.to("cuda")
        if self.model.training == True or not self.training_mode:
            # guard: none
            x = x.to("cuda")
        return x


def train_cluster(features, use_gpu=False):
    # so-vits-svc: a device flag compared with False is its test negated; the else is the GPU path
    if use_gpu is False:
        # guard: none
        kmeans = KMeans(n_clusters=8).fit(features)
    else:
        # guard: device-check
        kmeans = KMeansGPU(n_clusters=8, device=torch.device("cuda:0"))
    if use_gpu == True:
        # guard: device-check
        features = features.cuda()
    return kmeans


def pick_device(args):
    # CogView3's sat/arguments.py: `device_count() == 0` is the branch without CUDA; the arms after it
    # run only with CUDA
    if torch.cuda.device_count() == 0:
        # guard: none
        args.device = "cpu"
    elif args.pinned is not None:
        # guard: device-check
        args.device = args.pinned
    else:
        # guard: device-check
        args.device = args.seed % torch.cuda.device_count()
    if torch.cuda.device_count() > 1:
        # guard: device-check
        args.parallel = True


def run_graph(device, function, inputs):
    # RVC's tools/cuda_graph.py: a function named for CUDA and for being enabled tests for CUDA
    if not cuda_graph_enabled(device):
        return function(*inputs)
    # guard: device-check
    torch.cuda.synchronize()
    return function(*inputs)


def triangulate(X):
    # kornia's triangulation: an arm after a test naming MPS runs only off MPS
    if is_mps_tensor_safe(X):
        compute_dtype = torch.float32
    elif X.dtype == torch.float32:
        # guard: mps-aware
        compute_dtype = torch.float64
    else:
        # guard: mps-aware
        compute_dtype = X.dtype
    return compute_dtype


class Metric:
    def __init__(self, device):
        self._device = torch.device(device)
        # ignite's Metric: the value is replaced under a test naming MPS right after
        self._double_dtype = (
            # guard: mps-aware
            torch.float64
        )
        if self._device.type == "mps":
            self._double_dtype = torch.float32
        # guard: none
        self._half_dtype = torch.float16


class Holder:
    # an annotation alone (no value) has no right side to look into
    # guard: none
    device: torch.device


def free_memory():
    # accelerate's get_max_memory: a loop over the CUDA devices runs no time on a Mac
    max_memory = {}
    for i in range(torch.cuda.device_count()):
        # guard: device-check
        max_memory[i] = torch.cuda.mem_get_info(i)[0]
    num_gpus = torch.cuda.device_count()
    for i in range(num_gpus):
        # guard: device-check
        torch.cuda.set_device(i)
    for i in range(4):
        # guard: none
        torch.cuda.set_device(i)
    # guard: none
    return max_memory


def spawn(args, gpu):
    # SimCLR's main.py: more than one node is a multi-node run, which a Mac never starts
    if args.nodes > 1:
        # guard: distributed-gate
        dist.init_process_group("nccl", rank=gpu, world_size=args.world_size)
    # guard: none
    return gpu


def unwrap(net):
    # accelerate's extract_model_from_parallel: an attribute read with a false default holds only
    # where some code set it (convert_model() marks the model it converted)
    if getattr(net, "_is_converted", False):
        # guard: off-by-default
        net = net.to("cuda")
    if getattr(net, "_is_converted", True):
        # guard: none
        net = net.to("cuda")
    return net


class MegatronPlugin:
    # accelerate's MegatronLMPlugin: a field of a dataclass with a false default, which no method sets
    set_all_logging_options: bool = field(default=False, metadata={"help": "log everything"})
    use_cuda_graphs: bool = True

    def __post_init__(self):
        if self.set_all_logging_options:
            # guard: off-by-default
            torch.cuda.synchronize()
        if self.use_cuda_graphs:
            # guard: none
            torch.cuda.synchronize()


def prepare(self, model):
    # accelerate's prepare(): a member of an enumeration names one implementation, as a string does
    if self.fp8_backend == FP8BackendType.TE:
        # guard: alternative-branch
        model = model.to("cuda")
    elif self.fp8_backend == FP8BackendType.AO:
        model = model.float()
    if self.dtype == torch.float16:
        # guard: none
        model = model.to("cuda")
    return model


def check_kernel_requirement(abort=False):
    # OpenNMT-py's check_sru_requirement(): False (or an error) without CUDA, True past the checks
    if torch.cuda.is_available() is False:
        if not abort:
            return False
        raise AssertionError("needs CUDA")
    return True


def has_weights(path):
    # True either way: a warning without CUDA is no answer about it
    if not torch.cuda.is_available():
        print("no CUDA: slow")
    return True


def load_kernels():
    if check_kernel_requirement():
        # guard: device-check
        from cupy.cuda import function
    if has_weights("w.pt"):
        # guard: none
        torch.cuda.synchronize()


def to_device_index(x, device=-1, gpu_count=0):
    # allennlp's and OpenNMT-py's CUDA device index, -1 for the CPU
    if device > -1:
        # guard: device-check
        x = x.cuda(device)
    if opt.gpu == -1:
        # guard: none
        x = x.float()
    else:
        # guard: device-check
        x = x.cuda(opt.gpu)
    if gpu_count > -1:
        # guard: none
        torch.cuda.synchronize()
    return x


# A flag an import error handler sets to False says whether the package imported (VMamba's
# ssd_minimal.py): for a package a Mac never has, a device check; for another, an import fallback.
WITH_TRITON = True
try:
    import triton
except ImportError:
    WITH_TRITON = False
HAS_APEX = True
try:
    from apex.normalization import FusedLayerNorm
except ImportError:
    HAS_APEX = False
if WITH_TRITON:
    # guard: device-check
    from .ssd_combined import mamba_chunk_scan_combined
if HAS_APEX:
    # guard: import-fallback
    torch.cuda.synchronize()
try:
    import torch
    has_cuda = torch.cuda.is_available()
except Exception:
    has_cuda = False
if has_cuda:
    # guard: device-check
    torch.cuda.synchronize()
SEEN = True
try:
    SEEN = load_seen()
except OSError:
    SEEN = False
if SEEN:
    # guard: none
    torch.cuda.synchronize()


class Pix2PixModel:
    # SPADE's and pix2pix's CUDA device ids, an empty list for the CPU (`--gpu_ids -1`)
    def use_gpu(self):
        return len(self.opt.gpu_ids) > 0

    def preprocess(self, data, net):
        if self.use_gpu():
            # guard: device-check
            data = data.cuda()
        if len(self.opt.gpu_ids) > 0:
            # guard: device-check
            net.cuda()
        if len(self.opt.gpu_ids) == 0:
            # guard: none
            torch.cuda.synchronize()
        else:
            # guard: device-check
            net = torch.nn.DataParallel(net.cuda(), self.opt.gpu_ids)
        if self.opt.gpu_ids:
            # guard: device-check
            torch.cuda.synchronize()
        if len(self.opt.label_ids) > 0:
            # guard: none
            torch.cuda.synchronize()
        return data, net


# A name the file binds once, at module level, to an option off by default is that option
# (PyTorch-GAN's cluster_gan: `wass_metric = args.wass_flag`, then `if wass_metric:`); one bound
# again is not. A parameter of the same name is its function's own.
class Critic:
    def __init__(self, wass_metric=False):
        self.wass = wass_metric


wass_metric = args.gpu
if wass_metric:
    # guard: off-by-default
    penalty = torch.ones(1).cuda()
rebound = args.gpu
rebound = True
if rebound:
    # guard: none
    penalty = torch.ones(1).cuda()


if __name__ == "__main__":
    # the `__main__` block's own functions: one nothing names, one it calls
    def never_run(x):
        # guard: never-called
        return x.cuda()

    def run(x):
        # guard: none
        return x.cuda()

    run(torch.ones(2))
