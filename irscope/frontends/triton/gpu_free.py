"""Import a kernel file written for a GPU on a machine without one.

Kernel files as people write them (Triton's tutorials) ask the driver for a device at
import, put tensors on it and launch the kernel once to try it. Without a GPU Triton
finds "0 active drivers" and the import dies. While such a file is imported, a
stand-in driver answers for the target irscope compiles for, hands out the ``meta``
device (tensors with a shape and a dtype and no memory), and every launch is recorded
through Triton's ``jit_cache_hook`` and skipped. The first recorded launch of a kernel
is an example of how the file calls it: its specialization is the signature irscope
compiles when the user gives none.

What a file asks of the device at import is answered for that target too: the driver's
device properties (shared memory, registers, SM count: ``REFERENCE_GPUS``), torch.cuda's
capability and name queries, and a ``warmup`` compiles for real, so that the kernel it
returns reports the registers and shared memory ptxas gave it (read from the cubin, as
the driver would on loading it); launching that compiled kernel does nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

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


@dataclass(frozen=True)
class ReferenceGpu:
    """The GPU a stand-in answers for: a common one of its compute capability, as its driver reports it.

    Only what a file computes from these (a persistent grid from the SM count, say) depends on
    them, never the compile: the limits that do (shared memory, registers) are the arch's own,
    from ``annotate.occupancy``. The SM counts and clocks are the products' published figures,
    as their drivers report them (kHz, bits), to the precision a stand-in needs.
    """

    name: str
    multiprocessor_count: int
    sm_clock_khz: int
    mem_clock_khz: int
    mem_bus_width: int


REFERENCE_GPUS = {
    75: ReferenceGpu("Tesla T4", 40, 1590000, 5001000, 256),
    80: ReferenceGpu("NVIDIA A100-SXM4-80GB", 108, 1410000, 1593000, 5120),
    86: ReferenceGpu("NVIDIA A10", 72, 1695000, 6251000, 384),
    89: ReferenceGpu("NVIDIA L4", 58, 2040000, 6251000, 192),
    90: ReferenceGpu("NVIDIA H100 80GB HBM3", 132, 1980000, 2619000, 5120),
    100: ReferenceGpu("NVIDIA B200", 148, 1965000, 3996000, 8192),
    120: ReferenceGpu("NVIDIA GeForce RTX 5090", 170, 2407000, 14001000, 512),
}


def reference_gpu(capability: int) -> ReferenceGpu:
    """The stand-in GPU for ``capability``: its own, else the nearest older one listed."""
    older = [c for c in sorted(REFERENCE_GPUS) if c <= capability]
    return REFERENCE_GPUS[older[-1] if older else min(REFERENCE_GPUS)]


def device_properties(capability: int) -> dict[str, Any]:
    """What Triton's ``driver.active.utils.get_device_properties(device)`` returns, for the stand-in GPU."""
    from ...annotating.occupancy import sm_limits

    gpu, limits = reference_gpu(capability), sm_limits(capability)
    return {
        "max_shared_mem": limits.shared_per_block,
        "max_num_regs": limits.registers,
        "multiprocessor_count": gpu.multiprocessor_count,
        "warpSize": 32,
        "sm_clock_rate": gpu.sm_clock_khz,
        "mem_clock_rate": gpu.mem_clock_khz,
        "mem_bus_width": gpu.mem_bus_width,
        "max_threads_per_sm": limits.max_threads,
    }


class _StandInUtils:
    """``driver.active.utils`` without a GPU: the device's properties, and a module "loaded" from its cubin."""

    def __init__(self, capability: int) -> None:
        self.capability = capability

    def get_device_properties(self, device: int = 0) -> dict[str, Any]:
        return device_properties(self.capability)

    def load_binary(self, name: str, kernel: bytes, shared: int, device: int) -> tuple[Any, Any, int, int, int]:
        """``(module, function, n_regs, n_spills, n_max_threads)`` as the driver's load gives them, from the cubin."""
        from ...annotating.occupancy import sm_limits
        from ...ir.elf import Cubin, function_resources

        found = list(function_resources(Cubin(kernel)).values())
        registers = found[0].get("registers", 0) if len(found) == 1 else 0
        frame = found[0].get("frame", 0) if len(found) == 1 else 0
        limits = sm_limits(self.capability)
        # Registers go to a warp in units of 256; a block may use the SM's whole file (cudaFuncGetAttributes).
        per_warp = -(-max(registers, 1) * 32 // limits.register_unit) * limits.register_unit
        max_threads = min(1024, limits.registers // per_warp * 32)
        return 0, 0, registers, frame // 4, max_threads  # Triton's driver: n_spills = local bytes / 4


def _no_launch(*args: Any, **kwargs: Any) -> None:
    """A compiled kernel's launch without a GPU: nothing runs (the JIT's own launches are recorded instead)."""


def stand_in_driver(capability: int) -> Any:
    """A Triton driver that answers for ``sm_<capability>`` without a GPU."""
    from triton.backends.compiler import GPUTarget
    from triton.backends.driver import DriverBase

    class StandInDriver(DriverBase):
        @classmethod
        def is_active(cls) -> bool:
            return False  # never chosen by Triton itself; only set for an import

        def __init__(self) -> None:
            super().__init__()
            self.target = GPUTarget("cuda", capability, 32)
            self.utils = _StandInUtils(capability)
            self.launcher_cls = lambda src, metadata: _no_launch

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
                return [0.0] * len(quantiles) if quantiles else 0.0

            return no_timing

        def get_current_device(self) -> int:
            return 0

        def set_current_device(self, device: int) -> None:
            pass

        def get_current_stream(self, device: int | None = None) -> int:
            return 0

        def get_device_capability(self, device: int = 0) -> tuple[int, int]:
            return divmod(capability, 10)

    return StandInDriver()


@contextlib.contextmanager
def _torch_cuda_answers(capability: int) -> Iterator[None]:
    """Within: torch.cuda's device queries answer for the stand-in GPU (a CPU torch raises on each).

    Files read the capability before their kernels exist (Triton's attention tutorial filters its
    autotuner configs by it). Only queries are answered: a tensor on "cuda" still fails as before.
    """
    try:
        import torch
    except ImportError:  # no torch: nothing to answer for
        yield
        return
    from types import SimpleNamespace

    gpu, props = reference_gpu(capability), device_properties(capability)
    major, minor = divmod(capability, 10)
    properties = SimpleNamespace(
        name=gpu.name,
        major=major,
        minor=minor,
        multi_processor_count=gpu.multiprocessor_count,
        shared_memory_per_block_optin=props["max_shared_mem"],
        regs_per_multiprocessor=props["max_num_regs"],
        max_threads_per_multi_processor=props["max_threads_per_sm"],
        warp_size=32,
    )
    # is_available() and device_count() keep torch's own answer: no tensor can be made on "cuda" here, and a
    # file that picks its device by them ("cuda" if available else "cpu") then launches on CPU tensors,
    # which the stand-in records as well.
    answers = {
        "current_device": lambda: 0,
        "get_device_capability": lambda device=None: (major, minor),
        "get_device_name": lambda device=None: gpu.name,
        "get_device_properties": lambda device=None: properties,
        "synchronize": lambda device=None: None,
    }
    saved = {name: getattr(torch.cuda, name) for name in answers}
    for name, answer in answers.items():
        setattr(torch.cuda, name, answer)
    try:
        yield
    finally:
        for name, original in saved.items():
            setattr(torch.cuda, name, original)


@contextlib.contextmanager
def gpu_free_import(capability: int, torch_queries: bool = True) -> Iterator[list[ExampleLaunch]]:
    """Within: Triton's driver is a stand-in and launches are recorded (into the list yielded), not run.

    ``torch_queries``: torch.cuda's device queries answer for the stand-in too, which imports torch
    (a second): for a file that uses torch, not for one that does not.
    """
    from triton import knobs
    from triton.runtime.driver import driver
    from triton.runtime.jit import JITFunction

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
        # A launch: Triton neither compiles nor launches. A warmup: Triton compiles for the stand-in's
        # target and returns the kernel, whose registers and shared memory the file may read.
        return not is_manual_warmup

    original_run = JITFunction.run

    def run(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
        before = len(launches)
        result = original_run(self, *args, grid=grid, warmup=warmup, **kwargs)
        if len(launches) > before:  # add what only the call sees: the arguments and the grid
            launches[-1] = _with_call(launches[-1], self, args, kwargs, grid)
        return result

    # Triton creates its driver lazily; None here means none was made yet, and stays so afterwards.
    previous = driver._active
    driver.set_active(stand_in_driver(capability))
    JITFunction.run = run
    try:
        answers = _torch_cuda_answers(capability) if torch_queries else contextlib.nullcontext()
        with knobs.runtime.scope(), answers:
            knobs.runtime.jit_cache_hook = record
            yield launches
    finally:
        JITFunction.run = original_run
        driver.set_active(previous)


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
    "REFERENCE_GPUS",
    "ExampleLaunch",
    "ReferenceGpu",
    "TensorArgument",
    "describe",
    "device_properties",
    "example_launches",
    "gpu_free_import",
    "reference_gpu",
    "signature_of",
    "stand_in_driver",
]
