"""Trial port (`mpsport audit --remap cuda=cpu|mps`): CUDA requests made by the user's script are
redirected to the target device inside the process, and every redirect is recorded (API, count, first
user frame). What cannot be redirected (a CUDA-only extension, Triton, CUDA graphs) is recorded with
its exception and frame.

The patches replace attributes of torch's Python modules only; nothing in torch's C++ changes, so the
op table of a remapped step is the one the same script produces on the target device.
"""
import contextlib
import os
import re
import sys
import time

# Factory functions whose device= keyword is redirected (the keyword-only device of torch's factories).
_FACTORIES = ("tensor", "as_tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange",
              "range", "linspace", "logspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
              "randn_like", "randint_like", "empty_strided", "normal", "tril_indices", "triu_indices", "scalar_tensor")
_TENSOR_NEW = ("new_zeros", "new_ones", "new_empty", "new_full", "new_tensor")
_COLLECTIVE_BACKENDS = {"nccl": "gloo"}
_CUDNN_FLAGS = ("benchmark", "deterministic", "enabled", "allow_tf32")
_LEGACY_TYPES = ("FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor", "ShortTensor",
                 "CharTensor", "ByteTensor", "BoolTensor")

# Exceptions that say CUDA-only code met a tensor or a host it cannot use: (kind, pattern).
_BLOCKED_PATTERNS = (
    ("triton", re.compile(r"triton", re.I)),
    ("cuda-graphs", re.compile(r"CUDA ?Graph|cuda\.graphs", re.I)),
    ("cuda-extension", re.compile(r"must be a CUDA tensor|expected .*cuda|is_cuda\(\)|CUDA tensor|input must be on CUDA"
                                  r"|only supports CUDA|device\(\)\.is_cuda", re.I)),
    ("cuda-only-api", re.compile(r"Torch not compiled with CUDA|no NVIDIA driver|CUDA driver|Cannot access accelerator"
                                 r"|cuda(Get|Set|Malloc)|CUDA error", re.I)),
)


def _stand_in(real, make):
    """A class that builds objects with make() and answers isinstance/issubclass as the real class does."""

    class _Meta(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, real)

        def __subclasscheck__(cls, sub):
            return issubclass(sub, real)

    def new(cls, *args, **kwargs):
        return make(*args, **kwargs)

    return _Meta(real.__name__, (), {"__new__": new, "__doc__": real.__doc__, "__module__": "torch"})


class RemapBlocked(RuntimeError):
    """Raised by APIs the remap cannot provide on the target (CUDA graphs)."""


def classify_blocked(exc_type, text, tb_files):
    """The kind of a failure under remap, or None when it is not about CUDA-only code."""
    if exc_type is RemapBlocked:
        return "cuda-graphs"
    if any("triton" in f for f in tb_files) or exc_type.__name__ == "ModuleNotFoundError" and "triton" in text:
        return "triton"
    for kind, pattern in _BLOCKED_PATTERNS:
        if pattern.search(text):
            return kind
    return None


class Remapper:
    def __init__(self, target, user_frame):
        self.target = target  # "cpu" or "mps"
        self.user_frame = user_frame  # () -> "file:line" of the first frame outside torch and the probe
        self.redirects = {}  # api -> {"api", "to", "count", "first_frame"}
        self.redirect_to = {}  # api -> what it becomes, where that is not simply the target device
        self.blocked = []  # {"kind", "api", "exception", "frame"}
        self.cudnn_flags = {}
        self.install_errors = []
        self.torch = None
        self.real = {}  # torch functions as they were, for the probe's own use

    # ---- bookkeeping ----------------------------------------------------------------------------

    def note(self, api, to=None):
        entry = self.redirects.get(api)
        if entry is None:
            entry = self.redirects[api] = {"api": api, "to": to or self.redirect_to.get(api, self.target), "count": 0,
                                           "first_frame": self.user_frame()}
        entry["count"] += 1

    def block(self, kind, api, exception, frame=None):
        self.blocked.append({"kind": kind, "api": api, "exception": exception[:400], "frame": frame or self.user_frame()})

    def trace(self):
        return {"target": self.target, "from": "cuda", "redirects": sorted(self.redirects.values(), key=lambda r: r["api"]),
                "blocked": self.blocked, "cudnn_flags": self.cudnn_flags, "install_errors": self.install_errors}

    def synchronize_target(self):
        if self.target == "mps":
            self.torch.mps.synchronize()

    def _is_cuda(self, dev):
        if isinstance(dev, str):
            return dev == "cuda" or dev.startswith("cuda:")
        if isinstance(dev, self.real["device"]):
            return dev.type == "cuda"
        return isinstance(dev, int) and not isinstance(dev, bool)  # .to(0), device=0: a CUDA index

    def _map(self, dev, api):
        if self._is_cuda(dev):
            self.note(api)
            return self.target
        return dev

    # ---- installing -----------------------------------------------------------------------------

    def install(self, torch):
        self.torch = torch
        self.real = {"device": torch.device, "cuda_is_available": torch.cuda.is_available,
                     "cuda_synchronize": torch.cuda.synchronize}
        for patch in (self._patch_device, self._patch_tensor_and_module, self._patch_factories, self._patch_cuda_module,
                      self._patch_amp, self._patch_cudnn, self._patch_load, self._patch_data_loader, self._patch_graphs):
            try:
                patch(torch)
            except Exception as err:  # noqa: BLE001 - another torch version: the rest of the remap still works
                self.install_errors.append("%s: %s: %s" % (patch.__name__, type(err).__name__, err))

    def _patch_device(self, torch):
        remap = self

        def device(*args, **kwargs):
            if args and (isinstance(args[0], str) and remap._is_cuda(args[0])
                         or isinstance(args[0], remap.real["device"]) and args[0].type == "cuda"):
                remap.note('torch.device("cuda")')
                return remap.real["device"](remap.target)
            return remap.real["device"](*args, **kwargs)

        torch.device = _stand_in(torch.device, device)

    def _rewrite_to_args(self, args, kwargs, api):
        if args and not isinstance(args[0], (self.torch.Tensor, self.torch.dtype)) and self._is_cuda(args[0]):
            args = (self._map(args[0], api),) + tuple(args[1:])
        if "device" in kwargs:
            kwargs["device"] = self._map(kwargs["device"], api)
        return args, kwargs

    def _patch_tensor_and_module(self, torch):
        remap = self
        Tensor, Module = torch.Tensor, torch.nn.Module
        real_tensor_to, real_module_to = Tensor.to, Module.to

        def tensor_cuda(t, device=None, non_blocking=False, **kwargs):
            remap.note("Tensor.cuda()")
            return real_tensor_to(t, remap.target, non_blocking=non_blocking)

        def tensor_to(t, *args, **kwargs):
            args, kwargs = remap._rewrite_to_args(args, kwargs, 'Tensor.to("cuda")')
            return real_tensor_to(t, *args, **kwargs)

        def module_cuda(m, device=None):
            remap.note("Module.cuda()")
            return real_module_to(m, remap.target)

        def module_to(m, *args, **kwargs):
            args, kwargs = remap._rewrite_to_args(args, kwargs, 'Module.to("cuda")')
            return real_module_to(m, *args, **kwargs)

        def pin_memory(t, *args, **kwargs):
            remap.note("Tensor.pin_memory()", to="not pinned")
            return t

        Tensor.cuda, Tensor.to, Module.cuda, Module.to, Tensor.pin_memory = tensor_cuda, tensor_to, module_cuda, module_to, pin_memory
        real_is_pinned = Tensor.is_pinned
        Tensor.is_pinned = lambda t, *a, **k: False if remap.target == "cpu" else real_is_pinned(t)
        for name in _TENSOR_NEW:
            self._wrap_device_keyword(Tensor, name, "Tensor.%s(device=cuda)" % name)

    def _wrap_device_keyword(self, owner, name, api, keyword="device"):
        real = getattr(owner, name, None)
        if real is None:
            return
        remap = self

        def wrapped(*args, **kwargs):
            if keyword in kwargs:
                kwargs[keyword] = remap._map(kwargs[keyword], api)
            return real(*args, **kwargs)

        wrapped.__name__ = getattr(real, "__name__", name)
        wrapped.__doc__ = getattr(real, "__doc__", None)
        setattr(owner, name, wrapped)

    def _patch_factories(self, torch):
        for name in _FACTORIES:
            self._wrap_device_keyword(torch, name, "torch.%s(device=cuda)" % name)
        real_generator = torch.Generator
        remap = self

        def generator(device="cpu"):
            return real_generator(device=remap._map(device, 'torch.Generator("cuda")'))

        torch.Generator = _stand_in(real_generator, generator)

    def _patch_cuda_module(self, torch):
        cuda = torch.cuda
        remap = self
        mps = self.target == "mps"
        target_available = (lambda: True) if not mps else (lambda: bool(torch.backends.mps.is_available()))

        torch_dir = os.path.dirname(torch.__file__) + os.sep

        def replace(name, api, value):
            real = getattr(cuda, name, None)

            def wrapped(*args, **kwargs):
                if real is not None and sys._getframe(1).f_code.co_filename.startswith(torch_dir):
                    return real(*args, **kwargs)  # torch's own calls (torch.manual_seed, DataLoader, GradScaler) see the host
                remap.note(api)
                return value(*args, **kwargs)

            wrapped.__name__ = name
            setattr(cuda, name, wrapped)

        def seed(s=None, *args, **kwargs):
            if s is None:
                return
            if mps:
                torch.mps.manual_seed(int(s))
            else:
                torch.default_generator.manual_seed(int(s))

        def synchronize(*args, **kwargs):
            if mps:
                torch.mps.synchronize()

        def allocated(*args, **kwargs):
            return int(torch.mps.current_allocated_memory()) if mps else 0

        def empty_cache(*args, **kwargs):
            if mps:
                torch.mps.empty_cache()

        replace("is_available", "torch.cuda.is_available()", lambda: target_available())
        replace("device_count", "torch.cuda.device_count()", lambda: 1)
        replace("current_device", "torch.cuda.current_device()", lambda: 0)
        replace("set_device", "torch.cuda.set_device()", lambda *a, **k: None)
        replace("get_device_name", "torch.cuda.get_device_name()", lambda *a, **k: "mpsport remap: " + remap.target)
        replace("is_bf16_supported", "torch.cuda.is_bf16_supported()", lambda *a, **k: mps)
        replace("synchronize", "torch.cuda.synchronize()", synchronize)
        for name in ("manual_seed", "manual_seed_all"):
            replace(name, "torch.cuda.%s()" % name, seed)
        for name in ("memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"):
            replace(name, "torch.cuda.%s()" % name, allocated)
        for name in ("reset_peak_memory_stats", "reset_max_memory_allocated", "reset_accumulated_memory_stats"):
            replace(name, "torch.cuda.%s()" % name, lambda *a, **k: None)
        replace("empty_cache", "torch.cuda.empty_cache()", empty_cache)
        replace("memory_summary", "torch.cuda.memory_summary()", lambda *a, **k: "")
        props = self._device_properties(torch)
        stand_in = "stand-in: %s, total_memory %d, multi_processor_count %d" % (props.name, props.total_memory, props.multi_processor_count)
        for name, api, value in (("get_device_properties", "torch.cuda.get_device_properties()", lambda *a, **k: props),
                                 ("get_device_capability", "torch.cuda.get_device_capability()", lambda *a, **k: (props.major, props.minor))):
            replace(name, api, value)
            self.redirect_to[api] = stand_in
        self._patch_streams(torch)
        self._patch_legacy_types(torch)

    def _device_properties(self, torch):
        """What get_device_properties() answers: the target's memory and core count under CUDA's field names.
        The target is the host (cpu) or its unified memory (mps); major/minor 0 say "no CUDA compute capability"."""
        try:
            host_memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            host_memory = 0
        total = host_memory
        if self.target == "mps" and hasattr(torch.mps, "recommended_max_memory"):
            total = int(torch.mps.recommended_max_memory())
        target = self.target

        class DeviceProperties:
            name = "mpsport remap: " + target
            total_memory = total
            multi_processor_count = os.cpu_count() or 1
            major, minor = 0, 0
            is_integrated = 1 if target == "mps" else 0
            is_multi_gpu_board = 0

            def __repr__(self):
                return "_CudaDeviceProperties(name='%s', major=0, minor=0, total_memory=%dMB, multi_processor_count=%d)" % (
                    self.name, self.total_memory // 1048576, self.multi_processor_count)

        return DeviceProperties()

    def _patch_legacy_types(self, torch):
        """torch.cuda.FloatTensor & co.: constructors, isinstance, Tensor.type() and set_default_tensor_type()."""
        remap = self
        legacy = {}  # "torch.cuda.FloatTensor" -> (the stand-in class, dtype, the CPU constructor)
        for name in _LEGACY_TYPES:
            real, host = getattr(torch.cuda, name, None), getattr(torch, name, None)
            if real is None or host is None:
                continue
            api = "torch.cuda." + name

            def make(*args, _api=api, _host=host, **kwargs):
                remap.note(_api)
                t = _host(*args, **kwargs)
                return t if remap.target == "cpu" else t.to(remap.target)

            class _Meta(type):
                def __instancecheck__(cls, obj, _dtype=real.dtype):
                    return isinstance(obj, torch.Tensor) and obj.dtype == _dtype and obj.device.type == remap.target

            cls = _Meta(name, (), {"__new__": lambda cls, *a, _make=make, **k: _make(*a, **k), "dtype": real.dtype,
                                   "is_cuda": False, "__module__": "torch.cuda"})
            legacy[api] = (cls, real.dtype, host)
            setattr(torch.cuda, name, cls)

        def legacy_of(kind):
            key = kind if isinstance(kind, str) else next((a for a, (c, _, _) in legacy.items() if c is kind), None)
            return key, legacy.get(key)

        real_type = torch.Tensor.type

        def tensor_type(t, dtype=None, non_blocking=False, **kwargs):
            api, found = legacy_of(dtype) if dtype is not None else (None, None)
            if found is None:
                return real_type(t, dtype, non_blocking, **kwargs) if dtype is not None else real_type(t)
            remap.note("Tensor.type(%s)" % api)
            return t.to(device=remap.target, dtype=found[1], non_blocking=non_blocking)

        torch.Tensor.type = tensor_type
        real_default = torch.set_default_tensor_type

        def set_default_tensor_type(kind):
            api, found = legacy_of(kind)
            if found is None:
                return real_default(kind)
            remap.note("torch.set_default_tensor_type(%s)" % api, to="torch." + api.rsplit(".", 1)[1] +
                       ("" if remap.target == "cpu" else " with torch.set_default_device(%r)" % remap.target))
            real_default(found[2])
            if remap.target != "cpu" and hasattr(torch, "set_default_device"):
                torch.set_default_device(remap.target)

        torch.set_default_tensor_type = set_default_tensor_type

    def _patch_streams(self, torch):
        remap = self

        class Stream:
            """A no-op stream: the target runs work in order on one queue."""

            def __init__(self, *args, **kwargs):
                remap.note("torch.cuda.Stream")

            def wait_stream(self, *a, **k):
                pass

            def wait_event(self, *a, **k):
                pass

            def synchronize(self):
                remap.synchronize_target()

            def query(self):
                return True

            def record_event(self, event=None):
                event = event or Event()
                event.record()
                return event

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

        class Event:
            """Records host time when recorded: elapsed_time() still answers in milliseconds."""

            def __init__(self, *args, **kwargs):
                remap.note("torch.cuda.Event")
                self.at = None

            def record(self, stream=None):
                remap.synchronize_target()
                self.at = time.perf_counter()

            def synchronize(self):
                pass

            def wait(self, stream=None):
                pass

            def query(self):
                return True

            def elapsed_time(self, end):
                return (end.at - self.at) * 1000.0

        default = Stream.__new__(Stream)
        torch.cuda.Stream, torch.cuda.Event = Stream, Event
        torch.cuda.current_stream = lambda *a, **k: (remap.note("torch.cuda.current_stream()"), default)[1]
        torch.cuda.default_stream = lambda *a, **k: (remap.note("torch.cuda.default_stream()"), default)[1]

        @contextlib.contextmanager
        def stream(s=None):
            remap.note("torch.cuda.stream()")
            yield s

        torch.cuda.stream = stream

    def _patch_amp(self, torch):
        remap = self
        real_autocast = torch.autocast
        target = self.target

        def target_dtype(dtype):
            # CPU autocast runs bfloat16 only (torch 1.13 disables itself for float16)
            return torch.bfloat16 if target == "cpu" else (dtype or torch.float16)

        class autocast(real_autocast):  # noqa: N801 - torch.autocast("cuda") and torch.cuda.amp.autocast
            def __init__(self, device_type="cuda", dtype=None, enabled=True, cache_enabled=None):
                if device_type == "cuda":
                    remap.note('torch.autocast("cuda")', to="torch.autocast(%r)" % target)
                    device_type, dtype = target, target_dtype(dtype)
                kwargs = {"dtype": dtype} if dtype is not None else {}
                if cache_enabled is not None:
                    kwargs["cache_enabled"] = cache_enabled
                super().__init__(device_type, enabled=enabled, **kwargs)

        class cuda_autocast(autocast):  # noqa: N801
            def __init__(self, enabled=True, dtype=None, cache_enabled=None):
                remap.note("torch.cuda.amp.autocast", to="torch.autocast(%r)" % target)
                super().__init__(target, dtype=target_dtype(dtype), enabled=enabled, cache_enabled=cache_enabled)

        torch.autocast = autocast
        if hasattr(torch, "amp") and hasattr(torch.amp, "autocast"):
            torch.amp.autocast = autocast
        torch.cuda.amp.autocast = cuda_autocast
        self._patch_grad_scaler(torch)

    def _patch_grad_scaler(self, torch):
        remap = self
        real_scaler = torch.cuda.amp.GradScaler
        amp_scaler = getattr(getattr(torch, "amp", None), "GradScaler", None)

        class GradScaler(real_scaler):
            """On the CPU a disabled scaler (scale() returns the loss, step() steps); on MPS torch.amp's, when it exists."""

            def __new__(cls, *args, **kwargs):
                if remap.target == "mps" and amp_scaler is not None and amp_scaler is not real_scaler:
                    remap.note("torch.cuda.amp.GradScaler", to='torch.amp.GradScaler("mps")')
                    kwargs.pop("device", None)
                    return amp_scaler("mps", *args, **kwargs)
                return super().__new__(cls)

            def __init__(self, *args, **kwargs):
                remap.note("torch.cuda.amp.GradScaler", to="GradScaler(enabled=False) on " + remap.target)
                kwargs.pop("device", None)
                kwargs["enabled"] = False
                if args and isinstance(args[0], str):
                    args = args[1:]
                super().__init__(*args, **kwargs)

        torch.cuda.amp.GradScaler = GradScaler
        if amp_scaler is not None and amp_scaler is not real_scaler:
            torch.amp.GradScaler = GradScaler

    def _patch_cudnn(self, torch):
        """cudnn flags stay settable; each set is recorded (they change nothing on the target)."""
        remap = self
        for module, prefix in ((torch.backends.cudnn, "torch.backends.cudnn"), (torch.backends.cuda.matmul, "torch.backends.cuda.matmul")):
            base = type(module)

            def setattr_(obj, name, value, base=base, prefix=prefix):
                if name in _CUDNN_FLAGS:
                    remap.note("%s.%s" % (prefix, name), to="no effect on " + remap.target)
                    remap.cudnn_flags["%s.%s" % (prefix, name)] = repr(value)
                base.__setattr__(obj, name, value)

            try:
                object.__setattr__(module, "__class__", type("Remapped" + base.__name__, (base,), {"__setattr__": setattr_}))
            except (TypeError, AttributeError, AssertionError):
                pass  # an object whose class cannot change: sets go unrecorded, they still work

    def _patch_load(self, torch):
        real_load = torch.load
        remap = self

        def load(f, map_location=None, *args, **kwargs):
            if isinstance(map_location, dict):
                map_location = {k: remap._map(v, "torch.load(map_location=cuda)") for k, v in map_location.items()}
            elif map_location is not None and not callable(map_location):
                map_location = remap._map(map_location, "torch.load(map_location=cuda)")
            try:
                return real_load(f, map_location, *args, **kwargs)
            except RuntimeError as err:
                if map_location is not None or "CUDA" not in str(err):
                    raise
                if hasattr(f, "seek"):
                    f.seek(0)
                remap.note("torch.load(CUDA tensors)")
                return real_load(f, remap.target, *args, **kwargs)

        torch.load = load

    def _patch_data_loader(self, torch):
        real_init = torch.utils.data.DataLoader.__init__
        remap = self

        def init(loader, *args, **kwargs):
            if kwargs.get("pin_memory"):
                remap.note("DataLoader(pin_memory=True)", to="pin_memory=False")
                kwargs["pin_memory"] = False
            real_init(loader, *args, **kwargs)

        torch.utils.data.DataLoader.__init__ = init

    def _patch_graphs(self, torch):
        remap = self

        def blocked(api):
            def raise_(*args, **kwargs):
                msg = "%s (CUDA Graphs) cannot be redirected to %s: capture and replay need a CUDA device" % (api, remap.target)
                remap.block("cuda-graphs", api, "RemapBlocked: " + msg)
                raise RemapBlocked(msg)

            return raise_

        for name in ("CUDAGraph", "graph", "make_graphed_callables", "graph_pool_handle"):
            if hasattr(torch.cuda, name):
                setattr(torch.cuda, name, blocked("torch.cuda." + name))

    def backend_of(self, backend):
        """The collective backend a process group gets on the target (nccl -> gloo); record.py's
        init_process_group/new_group patch asks this, so torch.distributed is patched in one place."""
        if isinstance(backend, str) and backend.lower() in _COLLECTIVE_BACKENDS:
            self.note('init_process_group("%s")' % backend.lower(), to=_COLLECTIVE_BACKENDS[backend.lower()])
            return _COLLECTIVE_BACKENDS[backend.lower()]
        return backend


def remapper_from_env(user_frame):
    spec = os.environ.get("MPSPORT_PROBE_REMAP", "")
    if not spec:
        return None
    target = spec.split("=", 1)[-1]
    if target not in ("cpu", "mps"):
        sys.stderr.write("mpsport probe: --remap %s: the target must be cpu or mps; not remapping\n" % spec)
        return None
    return Remapper(target, user_frame)
