"""Import a kernel file written for a GPU on a machine without one.

Kernel files as people write them (Triton's tutorials) ask the driver for a device at
import, put tensors on it and launch the kernel once to try it. Without a GPU Triton
finds "0 active drivers" and the import dies. While such a file is imported, a
stand-in driver answers for the target irscope compiles for, hands out the ``meta``
device (tensors with a shape and a dtype and no memory), and every launch is recorded
through Triton's ``jit_cache_hook`` and skipped. The first recorded launch of a kernel
is an example of how the file calls it: its specialization is the signature irscope
compiles when the user gives none.

What a file asks of the device is answered as the card of the user's choice answers it
(``--gpu``, ``IRSCOPE_GPU``: a model of gpu_models.py; else the common card of the target's
arch): the driver's device properties (shared memory, registers, SM count, clocks), torch.cuda's
device count, capability, name and properties, so that a library picks the configs it would pick
on that card. What the stand-in cannot answer as the card would is listed (``Probes``), never
guessed. A ``warmup`` compiles for real, so that the kernel it returns reports the registers and
shared memory ptxas gave it (read from the binary, as the driver would on loading it); launching
that compiled kernel does nothing. In a program ``irscope run`` runs, every launch compiles
through the JIT that way (``compile_launches``), so that what the program compiled is Triton's
own compile for the stand-in's card, recorded as on a GPU.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ...gpu_models import GpuChoice, GpuModel, stand_in_gpu
from ..after_import import AfterImport
from .signature import SignatureArg

# triton and torch are imported inside the functions that use them: about a second each, which commands that
# never compile or launch should not pay.

# The module attribute where the example launches of an imported kernel file are kept.
LAUNCHES = "__irscope_example_launches__"


@dataclass(frozen=True)
class TensorArgument:
    """A tensor a recorded launch was given."""

    dtype: str  # torch's name, "torch.float32"
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    aligned: bool  # data_ptr % 16 == 0 (a meta tensor's pointer is 0: aligned, as torch's allocations are)

    def to_json(self) -> dict[str, Any]:
        return {"tensor": self.dtype, "shape": list(self.shape), "stride": list(self.stride), "aligned": self.aligned}


@dataclass(frozen=True)
class ExampleLaunch:
    """One launch a kernel file made while it was imported, as the JIT specialized it.

    ``signature`` maps each parameter to Triton's type (``"*fp32"``, ``"i32"``) or
    ``"constexpr"`` (a constexpr, or an int equal to 1); ``constants`` holds the values
    of those; ``divisible`` the parameters given ``tt.divisibility=16``.
    """

    kernel: str
    signature: dict[str, str]
    constants: dict[str, Any]
    divisible: frozenset[str]
    num_warps: int
    num_stages: int
    arguments: dict[str, Any] = field(default_factory=dict)  # a TensorArgument, or the value itself
    grid: tuple[int, ...] | None = None
    file: str | None = None  # where the kernel's def is


class Probes:
    """What a program asked of the stand-in that it could not answer as the card would: probe -> why.

    Never a guess: a field no source gives is not answered (the call raises as on a card that lacks
    it), and a query only a real device answers gets this machine's answer; each is listed here,
    once, for the run's output (``irscope run``) or a note (a kernel file imported by irscope).
    """

    def __init__(self) -> None:
        self.unanswered: dict[str, str] = {}
        self._lock = threading.Lock()

    def note(self, probe: str, why: str) -> None:
        with self._lock:
            self.unanswered.setdefault(probe, why)

    def lines(self) -> list[str]:
        return [f"{probe}: {why}" for probe, why in self.unanswered.items()]


def _as_choice(gpu: GpuChoice | int | str) -> GpuChoice:
    """A model given as itself, or as an arch (90, "gfx942"): then the model ``IRSCOPE_GPU`` names, else the arch's."""
    return gpu if isinstance(gpu, GpuChoice) else stand_in_gpu(gpu)


def device_properties(gpu: GpuChoice | int | str) -> dict[str, Any]:
    """What Triton's ``driver.active.utils.get_device_properties(device)`` returns on the stand-in's card."""
    return {k: v for k, v in _as_choice(gpu).model.triton_properties().items() if v is not None}


class _DriverProperties(dict):
    """The driver's properties of the card: a key its driver has but no source gives is listed when read."""

    def __init__(self, answers: dict[str, Any], missing: dict[str, str], probes: Probes | None) -> None:
        super().__init__(answers)
        self._missing = missing
        self._probes = probes

    def __missing__(self, key: str) -> Any:
        if key in self._missing and self._probes is not None:
            self._probes.note(f"driver.active.utils.get_device_properties()[{key!r}]", self._missing[key])
        raise KeyError(key)


class _StandInUtils:
    """``driver.active.utils`` without a GPU: the device's properties, and a module "loaded" from its binary."""

    def __init__(self, gpu: GpuChoice, probes: Probes | None = None) -> None:
        self.gpu = gpu
        self.probes = probes

    def get_device_properties(self, device: int = 0) -> dict[str, Any]:
        _check_index(self.gpu, device)
        model = self.gpu.model
        every = model.triton_properties()
        missing = {k: f"{model.name}'s figure is not published (gpu_models.py)" for k, v in every.items() if v is None}
        return _DriverProperties(device_properties(self.gpu), missing, self.probes)

    def load_binary(self, name: str, kernel: bytes, shared: int, device: int) -> tuple[Any, Any, int, int, int]:
        """``(module, function, n_regs, n_spills, n_max_threads)`` as the driver's load gives them, from the binary."""
        model = self.gpu.model
        if model.gfx is not None:
            from ...ir.hsaco import kernel_resources

            found = kernel_resources(kernel)
            vgprs = found[0].vgprs if len(found) == 1 else 0
            spills = found[0].vgpr_spills if len(found) == 1 else 0
            return 0, 0, vgprs, spills, model.max_threads_per_block
        from ...annotating.occupancy import sm_limits
        from ...ir.elf import Cubin, function_resources

        functions = list(function_resources(Cubin(kernel)).values())
        registers = functions[0].get("registers", 0) if len(functions) == 1 else 0
        frame = functions[0].get("frame", 0) if len(functions) == 1 else 0
        limits = sm_limits(model.nvidia_capability or 90)
        # Registers go to a warp in units of 256; a block may use the SM's whole file (cudaFuncGetAttributes).
        per_warp = -(-max(registers, 1) * 32 // limits.register_unit) * limits.register_unit
        max_threads = min(1024, limits.registers // per_warp * 32)
        return 0, 0, registers, frame // 4, max_threads  # Triton's driver: n_spills = local bytes / 4


def _check_index(gpu: GpuChoice, device: Any) -> int:
    index = _device_index(device)
    if not 0 <= index < gpu.count:
        raise RuntimeError(f"invalid device ordinal {index}: the stand-in has {gpu.count} {gpu.model.name}")
    return index


def _device_index(device: Any) -> int:
    """torch's and Triton's ways of naming a device: None, 1, "cuda", "cuda:1", torch.device("cuda", 1)."""
    if device is None:
        return 0
    if isinstance(device, int):
        return device
    index = getattr(device, "index", None)
    if index is not None or hasattr(device, "type"):
        return int(index or 0)
    _, _, number = str(device).partition(":")
    return int(number) if number.strip().isdigit() else 0


# Set while an autotuner benchmarks a config on the stand-in: a compile that fails then is the autotuner's to skip
# (as on the card), not a launch of the program's.
BENCHMARKING = threading.local()


def _no_launch(*args: Any, **kwargs: Any) -> None:
    """A compiled kernel's launch without a GPU: nothing runs (the JIT's own launches are recorded instead)."""


def _hooks_only(grid_x, grid_y, grid_z, stream, function, packed, launch_metadata, enter, exit, *args) -> None:
    """A launch on the stand-in: nothing runs, but Triton's launch hooks see it as the real launcher would
    call them (irscope run counts launches there)."""
    if enter is not None:
        enter(launch_metadata)
    if exit is not None:
        exit(launch_metadata)


def stand_in_driver(gpu: GpuChoice | int | str, probes: Probes | None = None, hooks: bool = False) -> Any:
    """A Triton driver that answers for the GPU ``gpu`` names (a model, or an arch: its common card) without one.

    ``hooks``: a launch calls Triton's launch hooks, as the real launcher does (nothing runs).
    """
    from triton.backends.compiler import GPUTarget
    from triton.backends.driver import DriverBase

    choice = _as_choice(gpu)
    model = choice.model

    class StandInDriver(DriverBase):
        @classmethod
        def is_active(cls) -> bool:
            return False  # never chosen by Triton itself; only set for an import

        def __init__(self) -> None:
            super().__init__()
            if model.gfx is not None:
                self.target = GPUTarget("hip", model.gfx, model.warp_size)
            else:
                self.target = GPUTarget("cuda", model.nvidia_capability, 32)
            self.utils = _StandInUtils(choice, probes)
            launcher = _hooks_only if hooks else _no_launch
            self.launcher_cls = lambda src, metadata: launcher
            self.gpu = choice

        def map_python_to_cpp_type(self, ty: str) -> str:
            from triton.backends.nvidia.driver import ty_to_cpp

            return ty_to_cpp(ty)

        def get_current_target(self) -> Any:
            return self.target

        def get_active_torch_device(self) -> Any:
            import torch

            return torch.device("meta")

        def get_benchmarker(self) -> Any:
            def no_timing(kernel_call: Any, *, quantiles: Any = None, **kwargs: Any) -> Any:
                if hooks:  # the autotuner's benchmark: each config compiles through the JIT, and is timed as 0
                    BENCHMARKING.active = True
                    try:
                        kernel_call()
                    finally:
                        BENCHMARKING.active = False
                return [0.0] * len(quantiles) if quantiles else 0.0

            return no_timing

        def get_current_device(self) -> int:
            return 0

        def set_current_device(self, device: int) -> None:
            _check_index(choice, device)

        def get_current_stream(self, device: int | None = None) -> int:
            return 0

        def get_device_capability(self, device: int = 0) -> tuple[int, int]:
            return model.capability

        def get_device_interface(self) -> Any:
            import torch

            return torch.cuda

        def get_empty_cache_for_benchmark(self) -> Any:
            import torch

            return torch.empty(0, device="meta")

        def clear_cache(self, cache: Any) -> None:
            pass

    return StandInDriver()


class _TorchProperties:
    """torch.cuda.get_device_properties() of the stand-in's card: a field no source gives is listed when read."""

    def __init__(self, model: GpuModel, probes: Probes | None) -> None:
        self._fields = model.torch_properties()
        self._model = model
        self._probes = probes

    def __getattr__(self, name: str) -> Any:
        fields = self.__dict__.get("_fields") or {}
        if name.startswith("_") or name not in fields:
            raise AttributeError(name)
        value = fields[name]
        if value is None:
            if self._probes is not None:
                self._probes.note(
                    f"torch.cuda.get_device_properties().{name}",
                    f"{self._model.name}'s figure is not published (gpu_models.py)",
                )
            raise AttributeError(f"the stand-in {self._model.name} does not know its {name}")
        return value

    def __repr__(self) -> str:
        known = ", ".join(f"{k}={v!r}" for k, v in self._fields.items() if v is not None)
        return f"_CudaDeviceProperties(stand-in: {known})"


# torch.cuda's queries only a real device answers: they keep torch's own answer here (False, an error),
# and a program that asks is told so in the run's output.
_REAL_DEVICE_ONLY = {
    "is_available": "answered False: this machine has no GPU, so no tensor can be made on cuda (a library "
    "that picks its path by it takes its CPU path)",
    "mem_get_info": "only a real device knows its free memory",
    "memory_allocated": "only a real device knows its allocations",
    "memory_reserved": "only a real device knows its allocations",
    "max_memory_allocated": "only a real device knows its allocations",
    "get_arch_list": "the archs this torch was built for (a CPU build: none)",
    "utilization": "only a real device knows its load",
    "clock_rate": "only a real device knows its current clock",
    "current_stream": "no stream without a device",
    "default_stream": "no stream without a device",
}


@contextlib.contextmanager
def _torch_cuda_answers(gpu: GpuChoice, probes: Probes | None) -> Iterator[None]:
    """Within: torch.cuda's device queries answer for the stand-in's card (a CPU torch raises on each).

    Files read the capability before their kernels exist (Triton's attention tutorial filters its
    autotuner configs by it; FLA sizes its lists by the device count and shared memory). Only
    queries are answered: a tensor on "cuda" still fails as before, and ``is_available()`` keeps
    torch's own answer (a file that picks its device by it then launches on CPU tensors, which the
    stand-in records as well); what only a real device answers is listed in ``probes``.

    torch is not imported here (a second): where it is not imported yet, the answers are put in
    place the moment something imports it (a library a kernel file imports, say).
    """
    applied: list[dict[str, Any]] = []

    def answer(torch: Any) -> None:
        applied.append(_answer_torch_cuda(torch, gpu, probes))

    if "torch" in sys.modules:
        answer(sys.modules["torch"])
        finder = None
    else:
        finder = AfterImport("torch", answer)
        sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        if finder is not None and finder in sys.meta_path:
            sys.meta_path.remove(finder)
        torch: Any = sys.modules.get("torch")  # set: ``applied`` holds what was changed on its torch.cuda
        for saved in applied:
            for name, original in saved.items():
                if original is _ABSENT:
                    delattr(torch.cuda, name)
                else:
                    setattr(torch.cuda, name, original)


_ABSENT = object()


def _answer_torch_cuda(torch: Any, gpu: GpuChoice, probes: Probes | None) -> dict[str, Any]:
    """torch.cuda's queries answered for ``gpu``; returns what each replaced, to put back."""
    model = gpu.model
    properties = _TorchProperties(model, probes)

    def checked(value: Any) -> Any:
        def ask(device: Any = None) -> Any:
            _check_index(gpu, device)
            return value

        return ask

    answers: dict[str, Any] = {
        "device_count": lambda: gpu.count,
        "current_device": lambda: 0,
        "get_device_capability": checked(model.capability),
        "get_device_name": checked(model.name),
        "get_device_properties": checked(properties),
        "synchronize": lambda device=None: None,
        "set_device": lambda device: _check_index(gpu, device) and None,
        "is_bf16_supported": lambda including_emulation=True: model.gfx is not None or model.capability >= (8, 0),
    }

    def listed(name: str, original: Any) -> Any:
        def probe(*args: Any, **kwargs: Any) -> Any:
            if probes is not None:
                probes.note(f"torch.cuda.{name}()", _REAL_DEVICE_ONLY[name])
            return original(*args, **kwargs)

        return probe

    for name in _REAL_DEVICE_ONLY:
        if hasattr(torch.cuda, name):
            answers[name] = listed(name, getattr(torch.cuda, name))
    saved = {name: getattr(torch.cuda, name, _ABSENT) for name in answers}
    for name, value in answers.items():
        setattr(torch.cuda, name, value)
    return saved


@contextlib.contextmanager
def gpu_free_import(
    gpu: GpuChoice | int | str,
    torch_queries: bool = True,
    *,
    compile_launches: bool = False,
    probes: Probes | None = None,
    failed: Callable[[str, str | None, Exception, bool], None] | None = None,
) -> Iterator[list[ExampleLaunch]]:
    """Within: Triton's driver is a stand-in for ``gpu`` (a model, or an arch: its common card) and launches are
    recorded (into the list yielded), not run.

    ``torch_queries``: torch.cuda's device queries answer for the stand-in too (from the moment torch is
    imported, by the file or by a library it imports). ``compile_launches``: each
    launch compiles through Triton's JIT for the stand-in's target as it would on the card (and is
    then not run), an autotuner's benchmark compiling every config (irscope run); without it only a
    ``warmup`` compiles (a kernel file irscope imports). ``failed(kernel, file, error, benchmark)``: a
    launch whose compile raised, before the error goes on to the program (``benchmark``: an autotuner
    was trying a config, and skips it).
    """
    from triton import knobs
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.driver import driver
    from triton.runtime.jit import JITFunction

    choice = _as_choice(gpu)
    launches: list[ExampleLaunch] = []

    def record(*, key: Any, repr: str, fn: Any, compile: dict, is_manual_warmup: bool, already_compiled: bool) -> bool:
        jit = fn.jit_function
        names = [p.name for p in jit.params]
        attrs = compile["configs"][0] if compile["configs"] else {}
        launches.append(
            ExampleLaunch(
                kernel=jit.fn.__name__,
                signature=dict(compile["signature"]),
                constants={names[k[0]] if len(k) == 1 else k: v for k, v in compile["constants"].items()},
                divisible=frozenset(
                    names[k[0]]
                    for k, v in attrs.items()
                    if len(k) == 1 and ["tt.divisibility", 16] in [list(a) for a in v]
                ),
                num_warps=compile["num_warps"],
                num_stages=compile["num_stages"],
                file=getattr(getattr(jit.fn, "__code__", None), "co_filename", None),
            )
        )
        # A launch: Triton neither compiles nor launches (unless asked to compile). A warmup: Triton
        # compiles for the stand-in's target and returns the kernel, whose registers and shared memory
        # the file may read.
        return not (is_manual_warmup or compile_launches)

    original_run = JITFunction.run
    original_disk_cache = Autotuner.check_disk_cache

    def run(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
        before = len(launches)
        try:
            result = original_run(self, *args, grid=grid, warmup=warmup, **kwargs)
        except Exception as exc:
            if failed is not None:
                file = getattr(getattr(self.fn, "__code__", None), "co_filename", None)
                failed(self.fn.__name__, file, exc, bool(getattr(BENCHMARKING, "active", False)))
            raise
        if len(launches) > before:  # add what only the call sees: the arguments and the grid
            launches[-1] = _with_call(launches[-1], self, args, kwargs, grid)
        return result

    def benchmark_every_config(self: Any, tuning_key: Any, configs: Any, bench_fn: Any) -> bool:
        # Timings on the stand-in are all 0: they must neither come from, nor go to, Triton's autotune cache.
        bench_fn()
        return False

    # Triton serializes a launch's constants with json.dumps before it calls the hook set below, and a Gluon
    # layout constexpr (a BlockedLayout) is no JSON: every Gluon launch would raise TypeError (Triton 3.5-3.9,
    # jit.py: serialize_specialization_data). Within, a constant JSON cannot write goes by its repr; record()
    # reads the constants themselves, never that text.
    from triton.runtime import jit as jit_module

    original_serialize = jit_module.serialize_specialization_data
    jit_module.serialize_specialization_data = _serialized_by_repr(original_serialize)
    # Triton creates its driver lazily; None here means none was made yet, and stays so afterwards.
    previous = driver._active
    driver.set_active(stand_in_driver(choice, probes, hooks=compile_launches))
    JITFunction.run = run
    if compile_launches:
        Autotuner.check_disk_cache = benchmark_every_config
    try:
        answers = _torch_cuda_answers(choice, probes) if torch_queries else contextlib.nullcontext()
        with knobs.runtime.scope(), answers:
            knobs.runtime.jit_cache_hook = record
            yield launches
    finally:
        jit_module.serialize_specialization_data = original_serialize
        JITFunction.run = original_run
        Autotuner.check_disk_cache = original_disk_cache
        driver.set_active(previous)


def _serialized_by_repr(serialize: Callable[..., str]) -> Callable[..., str]:
    """Triton's ``serialize_specialization_data``, with constants it cannot write as JSON (Gluon's layouts) by repr."""

    def serialized(name: Any, signature: Any, constants: Any, *rest: Any, **kwargs: Any) -> str:
        try:
            return serialize(name, signature, constants, *rest, **kwargs)
        except TypeError:
            plain = {k: v if _jsonable(v) else repr(v) for k, v in dict(constants).items()}
            return serialize(name, signature, plain, *rest, **kwargs)

    return serialized


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value if type(value).__name__ != "constexpr" else value.value)
        return True
    except (TypeError, ValueError):
        return False


def _with_call(launch: ExampleLaunch, jit: Any, args: tuple, kwargs: dict, grid: Any) -> ExampleLaunch:
    params = {k: v for k, v in kwargs.items() if k in jit.signature.parameters}
    try:
        bound = jit.signature.bind(*args, **params)
    except TypeError:
        return launch
    bound.apply_defaults()
    arguments = {name: describe(value) for name, value in bound.arguments.items()}
    if callable(grid):
        try:
            grid = grid(dict(bound.arguments))
        except Exception:
            grid = None
    try:
        shape = None if grid is None else tuple(int(g) for g in grid)
    except (TypeError, ValueError):
        shape = None
    return ExampleLaunch(
        launch.kernel,
        launch.signature,
        launch.constants,
        launch.divisible,
        launch.num_warps,
        launch.num_stages,
        arguments,
        shape,
        launch.file,
    )


def describe(value: Any) -> Any:
    """A tensor as a TensorArgument (never its data); a plain value as itself; anything else by its repr."""
    if hasattr(value, "data_ptr") and hasattr(value, "dtype") and hasattr(value, "shape"):
        return TensorArgument(str(value.dtype), tuple(value.shape), tuple(value.stride()), value.data_ptr() % 16 == 0)
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return repr(value)


def example_launches(module: Any, kernel: str) -> list[ExampleLaunch]:
    """The launches of ``kernel`` recorded while ``module`` was imported without a GPU, first first."""
    return [launch for launch in getattr(module, LAUNCHES, ()) if launch.kernel == kernel]


def signature_of(launch: ExampleLaunch, fn: Any) -> tuple | None:
    """The launch as a ``-S`` signature of JITFunction ``fn`` (None where it cannot be one: tuple arguments)."""
    if any(not isinstance(k, str) for k in launch.constants):
        return None
    out = []
    for param in fn.params:
        ty = launch.signature.get(param.name)
        if ty is None:
            return None
        if ty == "constexpr":  # a constexpr, or an int equal to 1 the JIT made one
            out.append(SignatureArg(None, None, launch.constants.get(param.name)))
        elif not isinstance(ty, str):
            return None
        else:
            out.append(SignatureArg(ty, 16 if param.name in launch.divisible else None))
    return tuple(out)


__all__ = [
    "LAUNCHES",
    "ExampleLaunch",
    "Probes",
    "TensorArgument",
    "describe",
    "device_properties",
    "example_launches",
    "gpu_free_import",
    "signature_of",
    "stand_in_driver",
]
