"""The probe: environment gate, aten op observer, step boundary, device roles, checkpoint round-trip,
timing, memory, optional CPU comparison; writes one trace and ends the process after N steps."""
import atexit
import contextlib
import json
import os
import platform
import re
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings

from mpsport_probe import record as _record
from mpsport_probe import remap as _remap

SCHEMA = "mpsport.trace/1"
EXIT_DONE = 86  # the probe stopped the script after its steps: `mpsport audit` reads this as success
MAX_OP_KEYS = int(os.environ.get("MPSPORT_PROBE_MAX_KEYS", "4096"))  # distinct (op, phase, devices, dtypes) keys kept

# How PyTorch's MPS messages are found in a run: the audit passes rules/mps/runtime-messages.yaml's
# `match` patterns in MPSPORT_PROBE_MESSAGES; these are the same, for a probe run on its own (a test
# checks that they agree with the data).
_DEFAULT_MESSAGES = {
    "fallback_warning": r"The operator '([^']+)' is not currently supported on the MPS backend",
    "not_implemented": r"The operator '([^']+)' is not currently implemented for the MPS device",
    "float64": r"MPS framework doesn't support float64",
}


def _message_patterns():
    patterns = dict(_DEFAULT_MESSAGES)
    try:
        patterns.update(json.loads(os.environ.get("MPSPORT_PROBE_MESSAGES") or "{}"))
    except ValueError:
        pass  # a malformed value: the defaults
    return {k: re.compile(v) for k, v in patterns.items()}


_MESSAGES = _message_patterns()
_FALLBACK_WARNING = _MESSAGES["fallback_warning"]
_NOT_IMPLEMENTED = _MESSAGES["not_implemented"]
_FLOAT64_ERROR = _MESSAGES["float64"]

_state = None


def install():
    """Called from sitecustomize when MPSPORT_PROBE=1: arms the probe for this process only."""
    global _state
    if _state is not None:
        return
    if _record.is_rank_launcher(_record.command_line()):
        return  # torchrun & co.: the ranks it starts inherit MPSPORT_PROBE and are probed, the launcher is not
    os.environ.pop("MPSPORT_PROBE", None)  # child processes (DataLoader workers, launchers) stay unprobed
    _state = _Probe()
    _state.arm()


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


class _Probe:
    def __init__(self):
        self.pid = os.getpid()
        self.trace_path = os.environ.get("MPSPORT_PROBE_TRACE", "mpsport-trace.json")
        self.rank_info = _record.rank_from_env()  # (rank, world size) under torchrun: one trace per rank
        if self.rank_info is not None:
            self.trace_path = re.sub(r"(\.json)?$", ".rank%d.json" % self.rank_info[0], self.trace_path, count=1)
        self.steps_wanted = max(1, int(os.environ.get("MPSPORT_PROBE_STEPS", "1")))
        self.expected_device = os.environ.get("MPSPORT_PROBE_DEVICE", "auto")
        self.compare = os.environ.get("MPSPORT_PROBE_COMPARE", "")
        # dispatch: a TorchDispatchMode sees every aten overload with its inputs' devices and dtypes and the
        # user frame; profiler: PyTorch's C++ profiler records names and dtypes only; native: a RecordFunction
        # callback compiled against this torch records names, devices and dtypes in C++ (no frames).
        self.observer = os.environ.get("MPSPORT_PROBE_OBSERVER", "dispatch")
        self.observer_note = ""
        self.profiler = None
        self.native = None
        self.rtol = float(os.environ.get("MPSPORT_PROBE_RTOL", "1e-2"))
        self.atol = float(os.environ.get("MPSPORT_PROBE_ATOL", "1e-5"))
        self.cwd = os.getcwd()
        self.in_step = False
        self.in_scaler_step = False
        self.probe_dir = os.path.dirname(os.path.abspath(__file__))
        self.started = time.perf_counter()
        self.torch = None
        self.mode = None
        self.phase = "forward"
        self.observing = False
        self.ops = {}
        self.op_names = {}
        self.first_frames = {}
        self.ops_dropped = 0
        self.steps_done = 0
        self.forward_seen = False
        self.backward_seen = False
        self.step_marks = []  # perf_counter at the end of each optimizer step (synchronised)
        self.unobserved_start = 0.0
        self.optimizers = []
        self.optimizer_param_ids = set()
        self.model = None
        self.model_depth = 0
        self.roles = {}
        self.mps_messages = []
        self.compare_capture = None
        self.exception = None
        self.finished = False
        self.lock = threading.Lock()
        self.hook_handles = []
        # Steps however the loop is written: optimizer steps (one per iteration however many optimizers),
        # closure optimizers, GradScaler.step, and manual parameter updates seen as changed parameters.
        self.no_update_limit = max(self.steps_wanted, int(os.environ.get("MPSPORT_PROBE_NO_UPDATE_BACKWARDS", "16")))
        self.backwards = 0
        self.pending_backwards = 0  # backwards since the last recognised update
        self.snapshot = None  # (parameter, copy) taken after a backward: a manual update changes it
        self.graph_leaves = []
        self.optimizer_steps = 0  # optimizer, closure and GradScaler steps seen
        self.probe_s = 0.0  # time spent in the probe's own work (_internal), taken out of step times
        self.known_optimizers = set()
        self.cycle = set()
        self.step_kinds = {}
        self.stepped = False
        self.internal_depth = 0
        self.step_log = []  # per step: end time, data-loader seconds, memory
        self.op_marks = []  # dispatch observer: op counts at each step end, for counts per step
        self.data_s = 0.0
        self.leak_threshold = float(os.environ.get("MPSPORT_PROBE_LEAK_THRESHOLD", "0.26"))
        self.time_compare = os.environ.get("MPSPORT_PROBE_TIME") == "1"
        self.remap = _remap.remapper_from_env(self._any_user_frame)
        self.recorder = _record.Recorder(self._any_user_frame)
        self.real_cuda = {}

    # ---- arming ---------------------------------------------------------------------------------

    def arm(self):
        atexit.register(self._at_exit)
        self._previous_excepthook = sys.excepthook
        sys.excepthook = self._excepthook
        self._previous_showwarning = warnings.showwarning
        warnings.showwarning = self._showwarning
        try:
            signal.signal(signal.SIGTERM, self._on_sigterm)
        except ValueError:
            pass  # not the main thread
        # torch may not be imported yet; patch it as soon as it is.
        if "torch" in sys.modules:
            self._patch_torch()
        else:
            self._install_import_hook()

    def _install_import_hook(self):
        probe = self

        class _TorchFinder:
            def find_spec(self, name, path=None, target=None):
                if name != "torch":
                    return None
                sys.meta_path.remove(self)
                import importlib.util

                spec = importlib.util.find_spec("torch")
                if spec is None or spec.loader is None:
                    return spec
                loader = spec.loader
                original_exec = loader.exec_module

                def exec_module(module):
                    original_exec(module)
                    probe._patch_torch()

                loader.exec_module = exec_module
                return spec

        sys.meta_path.insert(0, _TorchFinder())

    def _patch_torch(self):
        import torch

        self.torch = torch
        probe = self
        self.real_cuda = {"is_available": torch.cuda.is_available, "synchronize": torch.cuda.synchronize,
                          "max_memory_allocated": torch.cuda.max_memory_allocated, "memory_allocated": torch.cuda.memory_allocated}
        if self.remap is not None:
            self.remap.install(torch)
            self.expected_device = self.remap.target
        self.recorder.install(torch, backend_of=self.remap.backend_of if self.remap is not None else None)
        self._patch_loops(torch)

        original_init = torch.optim.Optimizer.__init__

        def optimizer_init(opt, *args, **kwargs):
            original_init(opt, *args, **kwargs)
            probe._register_optimizer(opt)

        torch.optim.Optimizer.__init__ = optimizer_init

        for owner, name in ((torch.Tensor, "backward"), (torch.autograd, "backward")):
            original = getattr(owner, name)

            def backward(tensor, *args, _original=original, **kwargs):
                outer = probe._before_backward(tensor)
                try:
                    return _original(tensor, *args, **kwargs)
                finally:
                    probe._after_backward(outer)

            setattr(owner, name, backward)
        self._start_observing()

    # ---- the op observer --------------------------------------------------------------------------

    def _start_observing(self):
        if self.observer == "native":
            try:
                self._start_native()
                return
            except Exception as err:  # noqa: BLE001 - no compiler, no headers: fall back, and say so
                self.observer_note = "native observer unavailable (%s); used dispatch" % str(err).splitlines()[0][:300]
                self.observer = "dispatch"
        if self.observer == "profiler":
            self._start_profiler()
            return
        from torch.utils._python_dispatch import TorchDispatchMode

        torch = self.torch
        probe = self
        Tensor = torch.Tensor
        ops = self.ops
        names = self.op_names

        class _OpObserver(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **kwargs) if kwargs else func(*args)
                if probe.internal_depth:
                    return out  # the probe's own snapshots and checks
                devices = []
                dtypes = []
                for a in args:
                    if isinstance(a, Tensor):
                        d = a.device
                        if d not in devices:
                            devices.append(d)
                        t = a.dtype
                        if t not in dtypes:
                            dtypes.append(t)
                    elif isinstance(a, (list, tuple)):
                        for x in a:
                            if isinstance(x, Tensor):
                                if x.device not in devices:
                                    devices.append(x.device)
                                if x.dtype not in dtypes:
                                    dtypes.append(x.dtype)
                if kwargs:
                    for a in kwargs.values():
                        if isinstance(a, Tensor):
                            if a.device not in devices:
                                devices.append(a.device)
                            if a.dtype not in dtypes:
                                dtypes.append(a.dtype)
                if not devices and isinstance(out, Tensor):
                    devices.append(out.device)
                    dtypes.append(out.dtype)
                key = (func, probe.phase, tuple(devices), tuple(dtypes))
                count = ops.get(key)
                if count is not None:
                    ops[key] = count + 1
                elif len(ops) < MAX_OP_KEYS:
                    ops[key] = 1
                    if func not in names:
                        schema = func._schema
                        names[func] = schema.name + ("." + schema.overload_name if schema.overload_name else "")
                    probe.first_frames[key] = probe._user_frame()
                else:
                    probe.ops_dropped += 1
                return out

        self.mode = _OpObserver()
        self.mode.__enter__()
        self.observing = True
        self._install_module_hooks()

    def _stop_observing(self):
        if self.observing:
            self.observing = False
            try:
                if self.native is not None:
                    self._collect_native_ops()
                elif self.profiler is not None:
                    self.profiler.__exit__(None, None, None)
                    self._collect_profiler_ops()
                else:
                    self.mode.__exit__(None, None, None)
            except Exception:  # the mode stack may already be gone at interpreter exit
                pass
        for h in self.hook_handles:
            h.remove()
        self.hook_handles = []

    # ---- the native observer ------------------------------------------------------------------------

    _PHASES = ("forward", "backward", "optimizer", "data", "probe")  # "probe": the probe's own ops, dropped

    def _build_native(self):
        """Compiles observer.cpp against this torch once (cached by torch version and source), returns the .so."""
        import hashlib
        import torch.utils.cpp_extension as ce

        torch = self.torch
        src = os.path.join(self.probe_dir, "observer.cpp")
        with open(src, "rb") as f:
            digest = hashlib.sha256(f.read() + torch.__version__.encode() + sys.executable.encode()).hexdigest()[:16]
        cache = os.environ.get("MPSPORT_PROBE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "mpsport")
        lib = os.path.join(cache, "observer-%s.so" % digest)
        if os.path.exists(lib):
            return lib
        os.makedirs(cache, exist_ok=True)
        lib_dir = ce.library_paths()[0]
        cmd = [os.environ.get("CXX", "c++"), "-O2", "-std=c++17", "-shared", "-fPIC", "-DNDEBUG", "-w",
               "-D_GLIBCXX_USE_CXX11_ABI=%d" % int(torch._C._GLIBCXX_USE_CXX11_ABI)]
        cmd += ["-I" + p for p in ce.include_paths()[:2]]
        cmd += [src, "-o", lib + ".tmp", "-L" + lib_dir, "-lc10", "-ltorch_cpu", "-Wl,-rpath," + lib_dir]
        if platform.system() == "Darwin":
            cmd += ["-undefined", "dynamic_lookup"]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise RuntimeError("compiling the native observer failed: " + (done.stderr or done.stdout).strip()[-400:])
        os.replace(lib + ".tmp", lib)
        return lib

    def _start_native(self):
        import ctypes

        lib = ctypes.CDLL(self._build_native())
        lib.mpsport_observer_phase.argtypes = [ctypes.c_int]
        lib.mpsport_observer_stop.argtypes = [ctypes.c_char_p]
        if lib.mpsport_observer_start() != 0:
            raise RuntimeError("native observer already running")
        self.native = lib
        self.observing = True
        self._install_module_hooks()

    def _native_phase(self, phase):
        if self.native is not None and self.observing:
            self.native.mpsport_observer_phase(self._PHASES.index(phase))

    def _collect_native_ops(self):
        fd, path = tempfile.mkstemp(prefix="mpsport-ops-", suffix=".tsv")
        os.close(fd)
        try:
            self.native.mpsport_observer_stop(path.encode())
            with open(path) as f:
                for line in f:
                    op, phase, devices, dtypes, count = line.rstrip("\n").split("\t")
                    if self._PHASES[int(phase)] == "probe":
                        continue
                    key = (op, self._PHASES[int(phase)], tuple(d for d in devices.split(",") if d),
                           tuple(t for t in dtypes.split(",") if t))
                    self.ops[key] = self.ops.get(key, 0) + int(count)
                    self.op_names[op] = op
        finally:
            os.unlink(path)

    # ---- the profiler observer ----------------------------------------------------------------------

    _KINETO_DTYPES = {"float": "float32", "double": "float64", "c10::Half": "float16", "c10::BFloat16": "bfloat16",
                      "c10::complex<float>": "complex64", "c10::complex<double>": "complex128", "long int": "int64",
                      "int": "int32", "short int": "int16", "signed char": "int8", "unsigned char": "uint8", "bool": "bool"}

    def _start_profiler(self):
        torch = self.torch
        self.profiler = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True)
        self.profiler.__enter__()
        self.observing = True
        self._install_module_hooks()

    def _phase_scope(self, name):
        """A profiler range marking a phase, so ops can be attributed to it afterwards."""
        if self.profiler is None or not self.observing:
            return None
        scope = self.torch.autograd.profiler.record_function("mpsport::" + name)
        scope.__enter__()
        return scope

    def _collect_profiler_ops(self):
        events = self.profiler.profiler.kineto_results.events()
        ranges = []
        for e in events:
            if e.name() in ("mpsport::backward", "mpsport::optimizer", "mpsport::data", "mpsport::probe"):
                ranges.append((e.start_us(), e.start_us() + e.duration_us(), e.name()[9:]))
        for e in events:
            name = e.name()
            if not name.startswith("aten::"):
                continue
            start = e.start_us()
            phase = "forward"
            for lo, hi, ph in ranges:
                if lo <= start <= hi:
                    phase = ph
                    break
            dtypes = []
            for d in e.dtypes():
                t = self._KINETO_DTYPES.get(d)
                if t and t not in dtypes:
                    dtypes.append(t)
            if phase == "probe":
                continue
            key = (name, phase, (), tuple(dtypes))
            self.ops[key] = self.ops.get(key, 0) + 1
            self.op_names[name] = name

    def _any_user_frame(self):
        return self._user_frame(1)

    def _user_frame(self, depth=2):
        f = sys._getframe(depth)
        while f is not None:
            name = f.f_code.co_filename
            if not (name.startswith("<") or os.sep + "torch" + os.sep in name or name.startswith(self.probe_dir)
                    or os.sep + "site-packages" + os.sep in name or os.sep + "dist-packages" + os.sep in name):
                rel = os.path.relpath(name, self.cwd) if name.startswith(self.cwd) else name
                return "%s:%d" % (rel, f.f_lineno)
            f = f.f_back
        return ""

    # ---- device roles: module hooks, backward, optimizer ------------------------------------------

    def _install_module_hooks(self):
        import torch.nn.modules.module as module_mod

        probe = self

        def pre_hook(module, inputs):
            probe.model_depth += 1
            if probe.model_depth != 1 or probe.internal_depth:
                return
            is_loss = type(module).__name__.endswith("Loss")
            owns = any(id(p) in probe.optimizer_param_ids for p in module.parameters(recurse=False)) or any(
                id(p) in probe.optimizer_param_ids for p in module.parameters())
            # Without an optimizer (manual updates), the first top-level module with trainable parameters is the model.
            trainable = not owns and not is_loss and probe.model is None and any(p.requires_grad for p in module.parameters())
            if (owns or trainable or module is probe.model) and probe.pending_backwards and not probe.in_step:
                probe._check_manual_update()
            if owns or trainable or module is probe.model:
                probe.forward_seen = True
                probe.model = module
                probe._note_role("inputs", inputs)
                if probe.compare and probe.compare_capture is None and probe.steps_done == 0:
                    probe._capture_for_compare(module, inputs)
            elif is_loss and len(inputs) >= 2:
                probe._note_role("targets", inputs[1:])
                if probe.compare_capture is not None and "loss_module" not in probe.compare_capture:
                    probe._capture_loss(module, inputs[1:])

        def post_hook(module, inputs, output):
            if probe.model_depth == 1 and module is probe.model:
                probe._note_role("outputs", output)
                cap = probe.compare_capture
                if cap is not None and "outputs" not in cap and isinstance(output, probe.torch.Tensor):
                    cap["outputs"] = output.detach().to("cpu", copy=True)
            probe.model_depth -= 1

        self.hook_handles.append(module_mod.register_module_forward_pre_hook(pre_hook))
        self.hook_handles.append(module_mod.register_module_forward_hook(post_hook))

    def _note_role(self, role, value):
        devices, dtypes = self.roles.setdefault(role, (set(), set()))
        for t in self._tensors(value):
            devices.add(str(t.device))
            dtypes.add(_dtype_name(t.dtype))

    def _tensors(self, value, depth=0):
        Tensor = self.torch.Tensor
        if isinstance(value, Tensor):
            yield value
        elif depth < 3 and isinstance(value, (list, tuple)):
            for v in value:
                yield from self._tensors(v, depth + 1)
        elif depth < 3 and isinstance(value, dict):
            for v in value.values():
                yield from self._tensors(v, depth + 1)

    def _register_optimizer(self, opt):
        if os.getpid() != self.pid:
            return
        self.optimizers.append(opt)
        self.known_optimizers.add(id(opt))
        for group in opt.param_groups:
            for p in group["params"]:
                self.optimizer_param_ids.add(id(p))
        cls = type(opt)
        if getattr(cls.step, "_mpsport_wrapped", False):
            return
        original_step = cls.step
        probe = self

        def step(self_opt, *args, **kwargs):
            if probe.in_step:
                return original_step(self_opt, *args, **kwargs)
            probe.in_step = True
            probe.stepped = True
            kind = "optimizer"
            if args and callable(args[0]):
                args, kind = (probe._wrap_closure(args[0]),) + tuple(args[1:]), "closure optimizer"
            elif callable(kwargs.get("closure")):
                kwargs["closure"], kind = probe._wrap_closure(kwargs["closure"]), "closure optimizer"
            probe._set_phase("optimizer")
            scope = probe._phase_scope("optimizer")
            try:
                return original_step(self_opt, *args, **kwargs)
            finally:
                if scope is not None:
                    scope.__exit__(None, None, None)
                probe.in_step = False
                probe._set_phase("forward")
                if not probe.in_scaler_step:
                    probe._optimizer_stepped(self_opt, kind)

        step._mpsport_wrapped = True
        step.__wrapped__ = original_step
        cls.step = step

    def _before_backward(self, tensor):
        """Returns the phase to go back to, or None inside another backward (Tensor.backward calls autograd.backward)."""
        if os.getpid() != self.pid or self.phase == "backward" or self.internal_depth:
            return None
        if self.pending_backwards and not self.in_step:
            self._check_manual_update()  # a manual update since the last backward, or gradient accumulation
        self.backward_seen = True
        self._note_role("loss", tensor)
        if getattr(tensor, "grad_fn", None) is not None:
            self.forward_seen = True  # whatever computed the loss, with or without modules and optimizers
            if self.snapshot is None and self.model is None and not self.optimizers:
                self.graph_leaves = self._graph_leaves(tensor.grad_fn)
        outer = self.phase
        self._set_phase("backward")
        self._backward_scope = self._phase_scope("backward")
        return outer

    def _after_backward(self, outer):
        if outer is None:
            return
        self._set_phase(outer)
        scope = getattr(self, "_backward_scope", None)
        if scope is not None:
            self._backward_scope = None
            scope.__exit__(None, None, None)
        if self.finished:
            return
        self.backwards += 1
        if self.in_step:
            return  # a closure optimizer's backward belongs to its step
        self.pending_backwards += 1
        if self.snapshot is None and not self.optimizer_steps:
            self._take_snapshot()  # once the loop steps an optimizer, updates are its steps: no copies per backward
        if self.pending_backwards >= self.no_update_limit:
            msg = ("saw %d backward pass(es) since the last parameter update and no update: no optimizer or GradScaler step, and the "
                   "parameters did not change after backward; stopped instead of running to the timeout"
                   % self.pending_backwards)
            sys.stderr.write("mpsport probe: %s\n" % msg)
            self._record_placement()
            self._finish("incomplete", msg)

    # ---- steps, however the loop is written ---------------------------------------------------------

    def _set_phase(self, phase):
        self.phase = phase
        self._native_phase(phase)

    @contextlib.contextmanager
    def _internal(self):
        """The probe's own tensor work: not observed, not part of any phase."""
        start = time.perf_counter()
        self.internal_depth += 1
        outer = self.phase
        self._native_phase("probe")
        scope = self._phase_scope("probe")
        try:
            yield
        finally:
            if scope is not None:
                scope.__exit__(None, None, None)
            self.internal_depth -= 1
            self._native_phase(outer)
            if self.internal_depth == 0:
                self.probe_s += time.perf_counter() - start  # left out of the step times

    def _wrap_closure(self, closure):
        probe = self

        def wrapped(*args, **kwargs):
            probe._set_phase("forward")
            try:
                return closure(*args, **kwargs)
            finally:
                probe._set_phase("optimizer")

        return wrapped

    def _trainable_params(self):
        if self.model is not None:
            return [p for p in self.model.parameters() if p.requires_grad]
        if self.optimizers:
            return [p for o in self.optimizers for g in o.param_groups for p in g["params"]]
        return self.graph_leaves

    @staticmethod
    def _graph_leaves(grad_fn, limit=100000):
        """The leaf tensors a loss depends on (AccumulateGrad nodes): the parameters of a loop with no module."""
        leaves, seen, todo = [], set(), [grad_fn]
        while todo and len(seen) < limit:
            node = todo.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            variable = getattr(node, "variable", None)
            if variable is not None:
                leaves.append(variable)
            todo.extend(n for n, _ in getattr(node, "next_functions", ()))
        return leaves

    def _take_snapshot(self):
        """Keeps a copy of the smallest parameter that has a gradient: a manual update changes it."""
        with self._internal():
            params = [p for p in self._trainable_params() if p.grad is not None and p.numel() > 0]
            if params:
                p = min(params, key=lambda t: t.numel())
                self.snapshot = (p, p.detach().clone())

    def _check_manual_update(self):
        """After a backward without an optimizer step: did the parameters change (p.data.add_, p -= lr * p.grad)?"""
        if self.snapshot is None or self.finished or getattr(self, "_checking", False):
            return False
        self._checking = True
        try:
            with self._internal():
                p, copy = self.snapshot
                changed = not self.torch.equal(p.detach(), copy)
        except Exception:  # noqa: BLE001 - a parameter freed or resized: no verdict from it
            changed = False
        finally:
            self._checking = False
        if changed:
            self._after_step(None, "manual update")
        return changed

    def _optimizer_stepped(self, opt, kind):
        """One training iteration ends when every optimizer created so far has stepped once (a GAN's D and G), or when
        an optimizer steps again (then the others are not stepped by the loop)."""
        if os.getpid() != self.pid or self.finished:
            return
        self.pending_backwards = 0  # an update happened, even when the iteration goes on (a GAN's second optimizer)
        self.snapshot = None
        self.optimizer_steps += 1
        oid = id(opt)
        if oid in self.cycle:
            self.known_optimizers = set(self.cycle)
            self.cycle = set()
            self._after_step(opt, kind)
        self.cycle.add(oid)
        if self.cycle >= self.known_optimizers:
            self.cycle = set()
            self._after_step(opt, kind)

    def _patch_loops(self, torch):
        """GradScaler.step (which skips the optimizer on inf/NaN gradients), no_grad blocks that may hold a manual
        update, and the DataLoader's iterator, whose time is the data-loader share of each step."""
        probe = self
        self.in_step = False
        self.in_scaler_step = False
        scalers = {torch.cuda.amp.GradScaler, getattr(getattr(torch, "amp", None), "GradScaler", torch.cuda.amp.GradScaler)}
        for cls in scalers:
            real_step = cls.step

            def scaler_step(scaler, optimizer, *args, _real=real_step, **kwargs):
                if probe.in_scaler_step:
                    return _real(scaler, optimizer, *args, **kwargs)
                probe.in_scaler_step, probe.stepped = True, False
                try:
                    return _real(scaler, optimizer, *args, **kwargs)
                finally:
                    probe.in_scaler_step = False
                    probe._optimizer_stepped(optimizer, "GradScaler.step" if probe.stepped else "GradScaler.step (skipped: inf/NaN)")

            cls.step = scaler_step
        real_exit = torch.no_grad.__exit__

        def no_grad_exit(ctx, *args):
            result = real_exit(ctx, *args)
            if probe.pending_backwards and not probe.in_step and not probe.internal_depth and os.getpid() == probe.pid:
                probe._check_manual_update()
            return result

        torch.no_grad.__exit__ = no_grad_exit
        from torch.utils.data import dataloader

        real_next = dataloader._BaseDataLoaderIter.__next__

        def next_batch(it):
            start = time.perf_counter()
            outer = probe.phase
            probe._set_phase("data")
            try:
                return real_next(it)
            finally:
                probe._set_phase(outer)
                probe.data_s += time.perf_counter() - start

        dataloader._BaseDataLoaderIter.__next__ = next_batch

    def _synchronize(self):
        torch = self.torch
        try:
            if self.real_cuda["is_available"]() and torch.cuda.is_initialized():
                self.real_cuda["synchronize"]()
            if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
                torch.mps.synchronize()
        except Exception:
            pass

    def _after_step(self, opt, kind="optimizer"):
        if os.getpid() != self.pid or self.finished:
            return
        self.pending_backwards = 0
        self.snapshot = None
        self._synchronize()
        now = time.perf_counter() - self.probe_s  # step times leave the probe's own work out
        self.step_marks.append(now)
        self.steps_done += 1
        self.step_kinds[kind] = self.step_kinds.get(kind, 0) + 1
        self._log_step(kind)
        if opt is not None and self.compare_capture is not None and "after" not in self.compare_capture and self.model is not None:
            self.compare_capture["after"] = {k: v.detach().to("cpu", copy=True) for k, v in self.model.state_dict().items()}
            self.compare_capture["optimizer"] = opt
        if self.steps_done == self.steps_wanted:
            self._record_placement()
            self._stop_observing()  # the next step runs unobserved: it is the one that is timed
            self._synchronize()
            self.unobserved_start = time.perf_counter() - self.probe_s
        elif self.steps_done == self.steps_wanted + 1:
            self._finish("complete", "")

    def _log_step(self, kind):
        """Memory and data-loader time of the step that just ended; op counts so far (dispatch observer)."""
        with self._internal():  # torch.cuda.memory_allocated builds all memory stats: not part of the step
            self._sample_step(kind)

    def _sample_step(self, kind):
        mem = {"rss_bytes": _record.current_rss_bytes()}
        torch = self.torch
        try:
            if self.real_cuda["is_available"]() and torch.cuda.is_initialized():
                mem["accelerator_bytes"] = int(self.real_cuda["memory_allocated"]())
            elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
                mem["accelerator_bytes"] = int(torch.mps.current_allocated_memory())
        except Exception:  # noqa: BLE001
            pass
        self.step_log.append(dict(mem, step=self.steps_done, kind=kind, data_s=self.data_s))
        self.data_s = 0.0
        if self.observing and self.mode is not None and self.steps_done <= self.steps_wanted:
            self.op_marks.append(dict(self.ops))

    def _record_placement(self):
        if not self.optimizers:
            for p in self._trainable_params():
                self._note_role("params", p)
                if p.grad is not None:
                    self._note_role("grads", p.grad)
        for opt in self.optimizers:
            for group in opt.param_groups:
                for p in group["params"]:
                    self._note_role("params", p)
                    if p.grad is not None:
                        self._note_role("grads", p.grad)
            for st in opt.state.values():
                self._note_role("optimizer_state", st)

    # ---- CPU comparison --------------------------------------------------------------------------

    def _capture_for_compare(self, module, inputs):
        self.compare_capture = {
            "before": {k: v.detach().to("cpu", copy=True) for k, v in module.state_dict().items()},
            "inputs": [t.detach().to("cpu", copy=True) if isinstance(t, self.torch.Tensor) else t for t in inputs],
        }

    def _capture_loss(self, module, targets):
        self.compare_capture["loss_module"] = module
        self.compare_capture["targets"] = [t.detach().to("cpu", copy=True) if isinstance(t, self.torch.Tensor) else t for t in targets]

    def _run_compare(self):
        import copy

        torch = self.torch
        cap = self.compare_capture
        if cap is None or "after" not in cap or self.model is None:
            return {"within_tolerance": False, "detail": "not compared: no model forward and optimizer step were observed"}
        opt = cap["optimizer"]
        cpu_model = copy.deepcopy(self.model).to("cpu")
        cpu_model.load_state_dict(cap["before"])
        names = {id(p): n for n, p in self.model.named_parameters()}
        cpu_params = dict(cpu_model.named_parameters())
        groups = []
        for g in opt.param_groups:
            params = [cpu_params[names[id(p)]] for p in g["params"] if id(p) in names]
            if params:
                groups.append(dict({k: v for k, v in g.items() if k != "params"}, params=params))
        cpu_opt = type(opt)(groups)
        cpu_opt.zero_grad()
        out = cpu_model(*cap["inputs"])
        detail = []
        ok = True
        if "loss_module" in cap:
            loss_module = copy.deepcopy(cap["loss_module"]).to("cpu")
            loss = loss_module(out, *cap["targets"])
            loss.backward()
            cpu_opt.step()
            if self.time_compare:
                result_time = self._time_cpu_step(copy.deepcopy(self.model).to("cpu"), loss_module, opt, names, cap)
            before, after_acc = cap["before"], cap["after"]
            after_cpu = cpu_model.state_dict()
            max_abs = 0.0
            max_update = 0.0
            for k, b in before.items():
                if not b.is_floating_point():
                    continue
                upd_acc = after_acc[k].double() - b.double()
                upd_cpu = after_cpu[k].detach().double() - b.double()
                max_abs = max(max_abs, (upd_acc - upd_cpu).abs().max().item() if upd_acc.numel() else 0.0)
                max_update = max(max_update, upd_cpu.abs().max().item() if upd_cpu.numel() else 0.0)
            max_rel = max_abs / max_update if max_update > 0 else 0.0
            within = max_abs <= self.atol + self.rtol * max_update
            ok = ok and within
            detail.append("parameter update: max abs diff %.3g, max rel diff %.3g (of max update %.3g)" % (max_abs, max_rel, max_update))
            loss_cpu = loss.item()
            result = {"loss_cpu": loss_cpu, "max_abs_update_diff": max_abs, "max_rel_update_diff": max_rel}
            if self.time_compare:
                result["cpu_step_s"] = result_time
        else:
            result = {}
            detail.append("loss not computed by an nn.Module loss (e.g. nn.CrossEntropyLoss): compared outputs only")
        out_acc = self._captured_outputs_cpu()
        if out_acc is not None and isinstance(out, torch.Tensor) and out.shape == out_acc.shape:
            diff = (out.detach().double() - out_acc.double()).abs().max().item()
            scale = out.detach().double().abs().max().item()
            within = diff <= self.atol + self.rtol * scale
            ok = ok and within
            detail.append("outputs: max abs diff %.3g (max |output| %.3g)" % (diff, scale))
            result["max_abs_output_diff"] = diff
        result.update({"within_tolerance": ok, "rtol": self.rtol, "atol": self.atol, "detail": "; ".join(detail),
                       "against": "cpu"})
        return result

    def _time_cpu_step(self, model, loss_module, opt, names, cap, repeats=5):
        """Median time of the captured step (forward, loss, backward, optimizer) replayed on the CPU."""
        params = dict(model.named_parameters())
        groups = []
        for g in opt.param_groups:
            ps = [params[names[id(p)]] for p in g["params"] if id(p) in names]
            if ps:
                groups.append(dict({k: v for k, v in g.items() if k != "params"}, params=ps))
        cpu_opt = type(opt)(groups)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            cpu_opt.zero_grad()
            loss_module(model(*cap["inputs"]), *cap["targets"]).backward()
            cpu_opt.step()
            times.append(time.perf_counter() - start)
        times.sort()
        return times[len(times) // 2]

    def _captured_outputs_cpu(self):
        return self.compare_capture.get("outputs") if self.compare_capture else None

    # ---- checkpoint round-trip --------------------------------------------------------------------

    def _checkpoint_round_trip(self):
        torch = self.torch
        if not self.optimizers:
            return {"ok": False, "detail": "not run: no optimizer was created"}
        state = {"optimizer": [o.state_dict() for o in self.optimizers]}
        if self.model is not None:
            state["model"] = self.model.state_dict()
        else:
            state["params"] = [p.detach() for g in self.optimizers[0].param_groups for p in g["params"]]
        saved = {}
        for path, t in self._flatten(state):
            saved[path] = (tuple(t.shape), _dtype_name(t.dtype), str(t.device))
        fd, tmp = tempfile.mkstemp(prefix="mpsport-ckpt-", suffix=".pt")
        os.close(fd)
        try:
            torch.save(state, tmp)
            loaded = torch.load(tmp, map_location="cpu")
        except Exception as err:  # noqa: BLE001 - any failure is the finding
            return {"ok": False, "detail": "save/load failed: %s: %s" % (type(err).__name__, err)}
        finally:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        restored = {path: (tuple(t.shape), _dtype_name(t.dtype)) for path, t in self._flatten(loaded)}
        problems = []
        for path, (shape, dtype, _) in saved.items():
            got = restored.get(path)
            if got is None:
                problems.append("missing %s" % path)
            elif got != (shape, dtype):
                problems.append("%s: %s/%s -> %s/%s" % (path, shape, dtype, got[0], got[1]))
        float64 = sorted(p for p, (_, dtype, _) in saved.items() if dtype in ("float64", "complex128"))
        devices = sorted({d for (_, _, d) in saved.values()})
        if problems:
            return {"ok": False, "tensors": len(saved), "detail": "; ".join(problems[:5])}
        detail = "%d tensors saved from %s and restored on cpu with the same keys, shapes and dtypes" % (len(saved), ",".join(devices) or "-")
        if float64:
            detail += "; %d float64/complex128 tensors will not load onto MPS (e.g. %s)" % (len(float64), float64[0])
        return {"ok": not float64, "tensors": len(saved), "detail": detail, "float64_tensors": len(float64)}

    def _flatten(self, value, prefix=""):
        Tensor = self.torch.Tensor
        if isinstance(value, Tensor):
            yield prefix, value
        elif isinstance(value, dict):
            for k, v in value.items():
                yield from self._flatten(v, "%s.%s" % (prefix, k) if prefix else str(k))
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                yield from self._flatten(v, "%s.%d" % (prefix, i) if prefix else str(i))

    # ---- environment gate -------------------------------------------------------------------------

    def _environment(self):
        env = {
            "system": platform.system(),
            "machine": platform.machine(),
            "python": platform.python_version(),
            "executable": sys.executable,
            "mps_fallback_env": os.environ.get("PYTORCH_ENABLE_MPS_FALLBACK", ""),
            "expected_device": self.expected_device,
        }
        if platform.system() == "Darwin":
            env["macos"] = platform.mac_ver()[0]
            try:
                out = subprocess.run(["sysctl", "-n", "sysctl.proc_translated"], capture_output=True, text=True, timeout=5)
                env["rosetta"] = out.stdout.strip() == "1"
            except (OSError, subprocess.SubprocessError):
                env["rosetta"] = None
        torch = self.torch
        if torch is None:
            return env
        mps = getattr(torch.backends, "mps", None)
        env.update({
            "torch": torch.__version__,
            "cuda_built": bool(torch.backends.cuda.is_built()),
            "cuda_available": bool(self.real_cuda["is_available"]()),
            "mps_built": bool(mps is not None and mps.is_built()),
            "mps_available": bool(mps is not None and mps.is_available()),
        })
        device = self.expected_device
        if device == "auto":
            device = "cuda" if env["cuda_available"] else "mps" if env["mps_available"] else "cpu"
        try:
            env["dummy_tensor_device"] = str(torch.zeros(1, device=device).device)
        except Exception as err:  # noqa: BLE001
            env["dummy_tensor_device"] = "error: %s: %s" % (type(err).__name__, err)
        env["device"] = device
        return env

    # ---- MPS messages, crashes, exit ----------------------------------------------------------------

    def _showwarning(self, message, category, filename, lineno, file=None, line=None):
        text = str(message)
        m = _FALLBACK_WARNING.search(text)
        if m:
            self.mps_messages.append({"kind": "fallback-warning", "op": m.group(1), "message": text[:500],
                                      "frame": "%s:%d" % (os.path.relpath(filename, self.cwd), lineno)})
        return self._previous_showwarning(message, category, filename, lineno, file, line)

    def _excepthook(self, exc_type, exc, tb):
        text = str(exc)
        for pattern, kind in ((_NOT_IMPLEMENTED, "not-implemented"), (_FLOAT64_ERROR, "float64-error")):
            m = pattern.search(text)
            if m:
                self.mps_messages.append({"kind": kind, "op": m.group(1) if m.groups() else "float64", "message": text[:500]})
        frames = []  # (file, line, function) outside torch, outermost first
        files = []
        t = tb
        while t is not None:
            code = t.tb_frame.f_code
            files.append(code.co_filename)
            name = code.co_filename
            if not (os.sep + "torch" + os.sep in name or name.startswith("<") or os.sep + "site-packages" + os.sep in name
                    or os.sep + "dist-packages" + os.sep in name):  # installed libraries (Triton, …): their caller is the place
                frames.append((name, t.tb_lineno, code.co_name))
            t = t.tb_next
        frame = "%s:%d" % (os.path.relpath(frames[-1][0], self.cwd), frames[-1][1]) if frames else ""
        self.exception = "%s: %s%s" % (exc_type.__name__, text.splitlines()[0] if text else "", " at " + frame if frame else "")
        if self.remap is not None:
            self._record_blocked(exc_type, text, files, frames)
        return self._previous_excepthook(exc_type, exc, tb)

    def _record_blocked(self, exc_type, text, files, frames):
        """Under --remap, a failure of CUDA-only code is the trial port's finding: what, why, and where it was called."""
        kind = _remap.classify_blocked(exc_type, text, files)
        if kind is None or any(b["kind"] == kind for b in self.remap.blocked):
            return
        import linecache

        rel = lambda f: os.path.relpath(f, self.cwd)  # noqa: E731
        callee, caller = frames[-1] if frames else ("", 0, ""), None
        for f in reversed(frames[:-1]):
            if f[0] != callee[0]:
                caller = f
                break
        if caller is not None:  # the deepest frame is a module of its own (an extension's Python side): name it
            api = "%s.%s" % (os.path.splitext(os.path.basename(callee[0]))[0], callee[2])
            at = "%s:%d" % (rel(caller[0]), caller[1])
        else:  # raised from compiled code called on the user's line
            api = linecache.getline(callee[0], callee[1]).strip() if callee[0] else "?"
            at = "%s:%d" % (rel(callee[0]), callee[1]) if callee[0] else ""
        self.remap.block(kind, api, "%s: %s" % (exc_type.__name__, text.splitlines()[0] if text else ""), frame=at)

    def _on_sigterm(self, signum, frame):
        self._finish("incomplete", "stopped by the audit timeout (SIGTERM) after %d optimizer step(s)" % self.steps_done,
                     exit_code=128 + signum)

    def _at_exit(self):
        if self.finished or os.getpid() != self.pid:
            return
        if self.pending_backwards and self.steps_done < self.steps_wanted and not self.exception:
            try:
                self._check_manual_update()
            except Exception:  # noqa: BLE001 - interpreter shutting down
                pass
            if self.finished:
                return
        if self.exception:
            reason = "crashed after %d optimizer step(s): %s" % (self.steps_done, self.exception)
        elif self.steps_done == 0:
            reason = "the command exited before any optimizer step (0 of %d)" % self.steps_wanted
            if self.backwards:
                reason += "; it ran %d backward pass(es) and no parameter update was seen" % self.backwards
        elif self.steps_done < self.steps_wanted:
            reason = "the command exited after %d of %d optimizer step(s)" % (self.steps_done, self.steps_wanted)
        else:
            reason = ""
        if self.steps_done >= self.steps_wanted:
            self._finish("complete", reason, exit_code=None)
        else:
            if self.steps_done < self.steps_wanted:
                self._record_placement()
            self._finish("incomplete", reason, exit_code=None)

    def _finish(self, status, reason, exit_code=EXIT_DONE):
        with self.lock:
            if self.finished or os.getpid() != self.pid:
                return
            self.finished = True
        self._stop_observing()
        trace = self._trace(status, reason)
        tmp = self.trace_path + ".tmp"
        try:
            with open(tmp, "w") as f:
                json.dump(trace, f, indent=1)
            os.replace(tmp, self.trace_path)
        except OSError as err:
            sys.stderr.write("mpsport probe: cannot write %s: %s\n" % (self.trace_path, err))
        if exit_code == EXIT_DONE and self.rank_info is not None:
            exit_code = 0  # torchrun reads any other status as a failed rank and stops the others
        if exit_code is not None:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(exit_code)

    def _trace(self, status, reason):
        trace = {"schema": SCHEMA, "status": status, "reason": reason, "producer": "python-probe"}
        trace["env"] = self._environment()
        trace["device"] = trace["env"].get("device", "")
        trace["steps"] = {"requested": self.steps_wanted, "completed": min(self.steps_done, self.steps_wanted),
                          "timed": self.steps_done > self.steps_wanted,
                          "forward": self.forward_seen, "backward": self.backward_seen, "backwards": self.backwards,
                          "kinds": self.step_kinds}
        trace["roles"] = {role: {"devices": sorted(d), "dtypes": sorted(t)} for role, (d, t) in sorted(self.roles.items())}
        ops = []
        for key, count in self.ops.items():
            func, phase, devices, dtypes = key
            op = {"op": self.op_names.get(func, str(func)), "phase": phase, "devices": [str(d) for d in devices],
                  "dtypes": [t if isinstance(t, str) else _dtype_name(t) for t in dtypes], "count": count,
                  "first_frame": self.first_frames.get(key, "")}
            if self.op_marks:  # calls in each traced step (step 1 includes what ran before it: set-up)
                counts = [m.get(key, 0) for m in self.op_marks]
                op["per_step"] = [c - (counts[i - 1] if i else 0) for i, c in enumerate(counts)]
            ops.append(op)
        trace["observer"] = self.observer
        if self.observer_note:
            trace["observer_note"] = self.observer_note
        trace["ops"] = ops
        trace["ops_dropped"] = self.ops_dropped
        trace["mps_messages"] = self.mps_messages
        if self.optimizers and self.steps_done > 0:
            trace["checkpoint"] = self._checkpoint_round_trip()
        if self.compare and self.steps_done > 0:
            try:
                trace["compare"] = self._run_compare()
            except Exception as err:  # noqa: BLE001
                trace["compare"] = {"within_tolerance": False, "detail": "comparison failed: %s: %s" % (type(err).__name__, err)}
        timing = {"since_start_s": time.perf_counter() - self.started}
        marks = self.step_marks
        if len(marks) >= self.steps_wanted + 1:
            timing["unobserved_step_s"] = marks[self.steps_wanted] - self.unobserved_start
        traced = [marks[i] - marks[i - 1] for i in range(1, min(len(marks), self.steps_wanted))]
        if traced:
            # steps 2..N: the first step pays one-off costs (allocator, kernels, autotuning)
            traced.sort()
            timing["traced_steps"] = len(traced)
            timing["observed_step_s"] = traced[len(traced) // 2]
        if len(self.step_log) > self.steps_wanted:
            timing["unobserved_data_s"] = self.step_log[self.steps_wanted]["data_s"]
        timing["data_s_per_step"] = [s["data_s"] for s in self.step_log]
        if self.compare and isinstance(trace.get("compare"), dict) and "cpu_step_s" in trace["compare"]:
            trace["compare"]["time"] = self._time_against_cpu(timing, trace["compare"]["cpu_step_s"])
        trace["timing"] = timing
        trace["memory"] = self._memory()
        trace["memory"]["steps"] = [{k: s[k] for k in ("step", "rss_bytes", "accelerator_bytes") if k in s} for s in self.step_log]
        trace["memory"]["leak_threshold"] = self.leak_threshold
        trace["record"] = self.recorder.record(self.torch)
        if self.remap is not None:
            trace["remap"] = self.remap.trace()
        if self.rank_info is not None or self.recorder.collectives or self.recorder.ddp_wraps or self.recorder.backend:
            trace["distributed"] = self.recorder.distributed(self.torch, self.rank_info)
        return trace

    def _time_against_cpu(self, timing, cpu_step_s):
        """The same iteration on the CPU: its replayed step plus the same data-loader time (the loader runs on the host)."""
        out = {"cpu_step_s": cpu_step_s}
        if "unobserved_step_s" in timing:
            step = timing["unobserved_step_s"]
            data = timing.get("unobserved_data_s", 0.0)
            out.update({"accelerator_iteration_s": step, "data_s": data, "accelerator_step_s": max(step - data, 0.0),
                        "cpu_iteration_s": cpu_step_s + data})
        return out

    def _memory(self):
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        mem = {"rss_peak_bytes": rss if platform.system() == "Darwin" else rss * 1024}
        torch = self.torch
        if torch is None:
            return mem
        try:
            if self.real_cuda["is_available"]() and torch.cuda.is_initialized():
                mem["accelerator_allocated_bytes"] = self.real_cuda["max_memory_allocated"]()
            elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
                mem["accelerator_allocated_bytes"] = torch.mps.current_allocated_memory()
        except Exception:  # noqa: BLE001
            pass
        return mem
