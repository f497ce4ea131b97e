"""What the probe records besides ops: the reproducibility record (versions, seeds, MPS variables, command
line), the distributed picture of this rank (backend, world size, collectives) and memory samples."""
import os
import platform
import resource
import sys

# Collectives and point-to-point calls of torch.distributed counted per rank.
COLLECTIVES = ("all_reduce", "broadcast", "all_gather", "all_gather_into_tensor", "_all_gather_base", "reduce_scatter",
               "reduce_scatter_tensor", "_reduce_scatter_base", "reduce", "gather", "scatter", "barrier", "all_to_all",
               "all_to_all_single", "send", "recv", "isend", "irecv", "broadcast_object_list", "all_gather_object",
               "gather_object", "scatter_object_list", "monitored_barrier")

# DDP's gradient reductions, one per bucket per backward (counted by a comm hook, not by dist.all_reduce).
DDP_BUCKETS = "all_reduce (DDP gradient buckets)"

# Launchers that start one Python process per rank with the same environment (the probe arms in the ranks).
_LAUNCHER_MODULES = ("torch.distributed.run", "torch.distributed.launch")
_LAUNCHER_SCRIPTS = ("torchrun",)


def command_line():
    argv = getattr(sys, "orig_argv", None)
    if argv:
        return list(argv)
    try:
        with open("/proc/self/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return [sys.executable] + list(sys.argv)


def is_rank_launcher(argv):
    """True for `torchrun …` and `python -m torch.distributed.run|launch …`: they only spawn the ranks."""
    for i, a in enumerate(argv[:-1]):
        if a == "-m" and argv[i + 1] in _LAUNCHER_MODULES:
            return True
    return any(os.path.basename(a) in _LAUNCHER_SCRIPTS for a in argv[:2])


def rank_from_env():
    """(rank, world_size) when started by a distributed launcher, else None."""
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ and ("TORCHELASTIC_RUN_ID" in os.environ or "LOCAL_RANK" in os.environ):
        try:
            return int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        except ValueError:
            return None
    return None


def current_rss_bytes():
    """Resident set size now (Linux: /proc/self/statm); elsewhere the peak, which only rises."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return rss if platform.system() == "Darwin" else rss * 1024


def mps_environment():
    return {k: v for k, v in sorted(os.environ.items()) if k.startswith("PYTORCH_MPS_") or k == "PYTORCH_ENABLE_MPS_FALLBACK"}


class Recorder:
    """Seeds and collectives, each call recorded with its first user frame."""

    def __init__(self, user_frame):
        self.user_frame = user_frame
        self.seeds = []
        self.collectives = {}
        self.backend = ""
        self.world_size = 0
        self.ddp_wraps = 0
        self.uncounted_hooks = []  # builtin DDP comm hooks without a Python twin: their reductions go uncounted
        self.deterministic = None

    def install(self, torch, backend_of=None):
        """backend_of: the remap's backend rewrite (nccl -> gloo) for init_process_group and new_group, or None."""
        self._patch_seeds(torch)
        self._patch_distributed(torch, backend_of or (lambda backend: backend))

    def _patch_seeds(self, torch):
        recorder = self
        torch_dir = os.path.dirname(torch.__file__) + os.sep
        targets = [(torch, "manual_seed", "torch.manual_seed"), (torch.cuda, "manual_seed", "torch.cuda.manual_seed"),
                   (torch.cuda, "manual_seed_all", "torch.cuda.manual_seed_all")]
        import random

        targets.append((random, "seed", "random.seed"))
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            targets.append((numpy.random, "seed", "numpy.random.seed"))
        for owner, name, api in targets:
            real = getattr(owner, name, None)
            if real is None:
                continue

            def wrapped(*args, _real=real, _api=api, **kwargs):
                value = args[0] if args else kwargs.get("seed", kwargs.get("a"))
                internal = sys._getframe(1).f_code.co_filename.startswith(torch_dir)  # torch.manual_seed seeding CUDA too
                if len(recorder.seeds) < 64 and not internal:
                    recorder.seeds.append({"api": _api, "value": value if isinstance(value, (int, float, str, type(None))) else repr(value)[:40],
                                           "frame": recorder.user_frame()})
                return _real(*args, **kwargs)

            wrapped.__name__ = getattr(real, "__name__", name)
            setattr(owner, name, wrapped)
        real_det = getattr(torch, "use_deterministic_algorithms", None)
        if real_det is not None:
            def use_deterministic_algorithms(mode, *args, **kwargs):
                recorder.deterministic = bool(mode)
                return real_det(mode, *args, **kwargs)

            torch.use_deterministic_algorithms = use_deterministic_algorithms

    def _patch_distributed(self, torch, backend_of):
        """The one patch of torch.distributed: process groups (backend rewritten under --remap, then recorded),
        collectives counted with their first user frame, and DDP's own gradient all-reduces."""
        try:
            import torch.distributed as dist
        except ImportError:
            return
        if not getattr(dist, "is_available", lambda: False)():
            return
        recorder = self
        real_init_pg, real_new_group = dist.init_process_group, getattr(dist, "new_group", None)
        real_all_reduce = dist.all_reduce

        def init_process_group(*args, **kwargs):
            if "backend" in kwargs:
                kwargs["backend"] = backend_of(kwargs["backend"])
            elif args:
                args = (backend_of(args[0]),) + tuple(args[1:])
            result = real_init_pg(*args, **kwargs)
            try:
                recorder.backend, recorder.world_size = str(dist.get_backend()), dist.get_world_size()
            except Exception:  # noqa: BLE001
                pass
            return result

        def new_group(*args, **kwargs):
            if "backend" in kwargs:
                kwargs["backend"] = backend_of(kwargs["backend"])
            return real_new_group(*args, **kwargs)

        dist.init_process_group = init_process_group
        if real_new_group is not None:
            dist.new_group = new_group
        for name in COLLECTIVES:
            real = getattr(dist, name, None)
            if real is None:
                continue

            def wrapped(*args, _real=real, _name=name, **kwargs):
                recorder.count_collective(_name, recorder.user_frame)
                return _real(*args, **kwargs)

            wrapped.__name__ = name
            setattr(dist, name, wrapped)
        self._patch_ddp(torch, dist, real_all_reduce)

    def count_collective(self, op, frame):
        entry = self.collectives.get(op)
        if entry is None:
            entry = self.collectives[op] = {"op": op, "count": 0, "first_frame": frame() if callable(frame) else frame}
        entry["count"] += 1

    def _patch_ddp(self, torch, dist, real_all_reduce):
        """DDP reduces gradients from C++, out of reach of the patched dist.all_reduce: a comm hook counts them,
        one all_reduce per gradient bucket. The user's own hook is wrapped instead. A builtin C++ hook
        (_register_builtin_comm_hook) is replaced by torch's Python reference of the same reduction
        (default_hooks.allreduce_hook / fp16_compress_hook), counted; one without a Python twin runs as is,
        uncounted, and the trace says so."""
        ddp = getattr(getattr(torch.nn, "parallel", None), "DistributedDataParallel", None)
        if ddp is None:
            return
        recorder = self
        real_init, real_forward, real_register = ddp.__init__, ddp.forward, ddp.register_comm_hook
        builtin_name = next((n for n in ("_register_builtin_comm_hook", "register_builtin_comm_hook") if hasattr(ddp, n)), None)
        real_builtin = getattr(ddp, builtin_name) if builtin_name else None

        def allreduce_hook(process_group, bucket):
            """DDP's default reduction (torch's default_hooks.allreduce_hook), with the all_reduce the user's
            calls do not share: the bucket divided by the world size, then summed over the ranks."""
            group = process_group if process_group is not None else dist.group.WORLD
            tensor = bucket.buffer() if hasattr(bucket, "buffer") else bucket.get_tensor()
            tensor.div_(group.size())
            return real_all_reduce(tensor, group=group, async_op=True).get_future().then(lambda fut: fut.value()[0])

        def counting(hook, op, frame):
            def counted(state, bucket):
                recorder.count_collective(op, frame)
                return hook(state, bucket)

            return counted

        def ddp_init(wrapper, *args, **kwargs):
            recorder.ddp_wraps += 1
            wrapper._mpsport_frame = recorder.user_frame()
            real_init(wrapper, *args, **kwargs)
            wrapper._mpsport_hooked = False

        def register_comm_hook(wrapper, state, hook):
            wrapper._mpsport_hooked = True
            op = "DDP comm hook %s (gradient buckets)" % getattr(hook, "__name__", "hook")
            return real_register(wrapper, state, counting(hook, op, getattr(wrapper, "_mpsport_frame", "")))

        def python_twin(kind):
            """torch's Python hook doing what the builtin C++ hook `kind` does, or None."""
            name = getattr(kind, "name", str(kind)).rsplit(".", 1)[-1]
            if name == "ALLREDUCE":
                return allreduce_hook, DDP_BUCKETS
            try:
                from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
            except ImportError:
                return None
            hook = {"FP16_COMPRESS": getattr(default_hooks, "fp16_compress_hook", None)}.get(name)
            return (hook, "all_reduce (DDP gradient buckets, builtin %s hook)" % name) if hook else None

        def register_builtin_comm_hook(wrapper, comm_hook_type, *args, **kwargs):
            wrapper._mpsport_hooked = True
            twin = python_twin(comm_hook_type)
            if twin is None or args or kwargs:
                recorder.uncounted_hooks.append(getattr(comm_hook_type, "name", str(comm_hook_type)))
                return real_builtin(wrapper, comm_hook_type, *args, **kwargs)
            hook, op = twin
            return real_register(wrapper, wrapper.process_group, counting(hook, op, getattr(wrapper, "_mpsport_frame", "")))

        def forward(wrapper, *args, **kwargs):
            if getattr(wrapper, "_mpsport_hooked", True) is False:
                wrapper._mpsport_hooked = True
                try:
                    real_register(wrapper, wrapper.process_group, counting(allreduce_hook, DDP_BUCKETS, getattr(wrapper, "_mpsport_frame", "")))
                except Exception:  # noqa: BLE001 - an older or newer DDP: its reductions go uncounted
                    pass
            return real_forward(wrapper, *args, **kwargs)

        ddp.__init__, ddp.forward, ddp.register_comm_hook = ddp_init, forward, register_comm_hook
        if real_builtin is not None:
            setattr(ddp, builtin_name, register_builtin_comm_hook)

    def distributed(self, torch, rank_info):
        out = {"collectives": sorted(self.collectives.values(), key=lambda c: c["op"]), "ddp_wraps": self.ddp_wraps}
        if self.uncounted_hooks:
            out["uncounted_comm_hooks"] = sorted(set(self.uncounted_hooks))
        if self.backend:
            out["backend"], out["world_size"] = self.backend, self.world_size
        if rank_info is not None:
            out["rank"], out["world_size"] = rank_info
        try:
            import torch.distributed as dist

            if dist.is_available() and dist.is_initialized():
                out["backend"] = str(dist.get_backend())
                out["world_size"] = dist.get_world_size()
                out["rank"] = dist.get_rank()
        except Exception:  # noqa: BLE001 - a torn-down group: what the environment said stays
            pass
        return out

    def record(self, torch):
        rec = {"command": command_line(), "cwd": os.getcwd(), "python": platform.python_version(), "os": platform.platform(),
               "torch": getattr(torch, "__version__", "") if torch else "", "seeds": self.seeds, "mps_env": mps_environment()}
        if torch is not None:
            rec["cuda_version"] = getattr(torch.version, "cuda", None) or ""
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            rec["numpy"] = getattr(numpy, "__version__", "")
        if self.deterministic is not None:
            rec["deterministic_algorithms"] = self.deterministic
        return rec
