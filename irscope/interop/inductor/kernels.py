"""Inductor's Triton kernels as irscope kernels: a file to compile, a signature, launch configs.

Inductor wraps each kernel in a ``@triton_heuristics.<kind>(...)`` decorator whose
autotuner picks XBLOCK/R0_BLOCK, num_warps and num_stages at run time. irscope
strips the decorator (the parser keeps line numbers), writes the kernel to a file
of its own, and rebuilds the launch configs with Inductor's own heuristics
(``return_configs=True``), so the variant it compiles is one Inductor would launch.

The file is there to be read (sessions and source panes show it, the IR's
locations name it); it is never imported. A log is data: the kernel is rebuilt
from its text (frontends/triton/rebuild.py), which runs nothing of it.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...arch import Vendor, normalise_arch
from ...errors import KernelNotFound, SessionError
from ...frontends.triton.compile import AMD_OPTIONS
from ...frontends.triton.kernel import TritonKernel
from ...frontends.triton.options import AMD_OPTION_DEFAULTS, VENDOR_OPTIONS
from ...frontends.triton.rebuild import rebuild_functions, rebuilt_kernel
from ...frontends.triton.signature import SignatureArg
from ...storage.files import atomic_write, read_text
from ...types import CaptureError, Config, Stage, Status, Variant
from .parse import InductorKernel

# Inductor's kernels call this at import; it needs a GPU and changes nothing the compile sees.
DRIVER_LINE = "triton_helpers.set_driver_to_gpu()"


@dataclass(frozen=True)
class LaunchConfig:
    constexprs: dict[str, Any]
    num_warps: int
    num_stages: int
    options: dict[str, int] = field(default_factory=dict)  # ROCm's: waves_per_eu, matrix_instr_nonkdim, kpack

    @classmethod
    def of(cls, kwargs: dict[str, Any], num_warps: int, num_stages: int) -> LaunchConfig:
        """A ``triton.Config``'s parts. On ROCm its kwargs hold the HIP backend's launch options beside the
        constexprs; Inductor hands those to ``triton.compile`` as options (``_create_compile_meta``)."""
        options = {k: v for k, v in kwargs.items() if k in AMD_OPTIONS}
        constexprs = {k: v for k, v in kwargs.items() if k not in AMD_OPTIONS}
        return cls(constexprs, num_warps, num_stages, options)

    def label(self) -> str:
        parts = [f"{k}={v}" for k, v in self.constexprs.items()]
        options = [f"{k}={v}" for k, v in self.options.items()]
        return " ".join(parts + [f"num_warps={self.num_warps}", f"num_stages={self.num_stages}", *options])


def kernel_text(kernel: InductorKernel) -> str:
    """The kernel's source as irscope shows and compiles it: decorator removed, same line numbers.

    A lone surrogate (a ``\\ud800`` escape in the log's string) is written back as
    that escape: the text must be UTF-8 to be written, hashed and stored.
    """
    text = kernel.jit_source.replace(DRIVER_LINE, "pass  # " + DRIVER_LINE + ": not needed to compile")
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def write_kernel_file(kernel: InductorKernel, directory: Path) -> Path:
    """``kernel_text`` as ``directory/<name>.py``, to be read (never imported)."""
    text = kernel_text(kernel)
    path = Path(directory) / f"{kernel.name}.py"
    try:
        same = read_text(path) == text  # regular files only: a FIFO left there is not waited on
    except SessionError:
        same = False
    if not same:
        atomic_write(path, text)
    return path.resolve()


def default_directory(kernel: InductorKernel) -> Path:
    """Where a kernel file goes when no session is asked for: the cache, by content."""
    from ...capturing.housekeeping import mark_used
    from ...paths import INDUCTOR_FILES, cache_dir

    digest = hashlib.sha256(kernel.jit_source.encode()).hexdigest()[:16]
    mark_used(cache_dir() / INDUCTOR_FILES / digest)  # used again: irscope cache --trim keeps it longest
    return cache_dir() / INDUCTOR_FILES / digest


def signature(kernel: InductorKernel, fn: Any) -> tuple[SignatureArg, ...]:
    """The JIT specialization Inductor recorded (triton_meta), as irscope's signature."""
    sig = kernel.signature
    constants = kernel.constants
    out = []
    for param in fn.params:
        name = param.name
        if param.is_constexpr:
            out.append(SignatureArg(None, None, constants.get(name)))
        elif name in constants:
            value = constants[name]
            out.append(SignatureArg("i32", 1) if value == 1 else SignatureArg(None, None, value))
        else:
            ty = sig.get(name, "i32")
            if ty == "constexpr":
                out.append(SignatureArg(None, None, constants.get(name)))
            else:
                hint = 16 if name in kernel.divisible_by_16 else None
                out.append(SignatureArg(ty, hint, pointer_range=32 if name in kernel.pointer_range_32 else None))
    return tuple(out)


def triton_kernel_of(kernel: InductorKernel, file: Path) -> TritonKernel:
    """The kernel rebuilt from its text, its locations naming ``file``; raises UsageError if it is refused."""
    text = kernel_text(kernel)
    fn = rebuild_functions(text, str(file), inductor=True).get(kernel.name)
    if fn is None:
        raise KernelNotFound(f"{file}: the log's kernel {kernel.name} has no @triton.jit def of that name")
    return rebuilt_kernel(text, str(file), kernel.name, signature(kernel, fn), inductor=True)


def refused_variant(kernel: InductorKernel, file: Path, launch: LaunchConfig, arch: str, why: str) -> Variant:
    """What a kernel whose source was refused (or did not rebuild) becomes: FAILED, nothing compiled."""
    from ...types import KernelId

    text = kernel_text(kernel)
    stages = {stage: "not produced: the source was not compiled (see the error)" for stage in TritonKernel.stages}
    return Variant(
        kernel=KernelId(kernel.name, str(file), hashlib.sha256(text.encode()).hexdigest()),
        config=config_of(launch),
        arch=normalise_arch(arch) or arch,
        status=Status.FAILED,
        listings={Stage.SOURCE: text},
        stage_errors=stages,
        error=CaptureError("source", why),
        frontend="triton",
        source_language="python",
        generated_by="inductor",
    )


def launch_configs(kernel: InductorKernel) -> list[LaunchConfig]:
    """The configs Inductor's heuristics give this kernel (its autotuner picks among them)."""
    args = dict(kernel.heuristic_args)
    if kernel.kind == "template":
        return [LaunchConfig({}, int(args.get("num_warps", 4)), int(args.get("num_stages", 1)))]
    from torch._inductor.runtime import triton_heuristics
    from torch._inductor.runtime.hints import DeviceProperties, ReductionHint, TileHint

    meta = dict(args.get("triton_meta") or {})
    device = {k: v for k, v in (meta.get("device") or {}).items() if k != "_type"}
    if device:
        meta["device"] = DeviceProperties(**device)
    args["triton_meta"] = meta
    for key, enum in (("reduction_hint", ReductionHint), ("tile_hint", TileHint)):
        if isinstance(args.get(key), str):
            args[key] = enum[args[key]]
    args.pop("filename", None)
    # The kind is a name from the log: only Inductor's config heuristics may be called by it.
    heuristic = inspect.getattr_static(triton_heuristics, kernel.kind, None)
    if not (
        inspect.isfunction(heuristic)
        and heuristic.__module__ == triton_heuristics.__name__
        and "return_configs" in inspect.signature(heuristic).parameters
    ):
        raise ValueError(f"{kernel.kind!r} is not one of Inductor's config heuristics")
    with _as_built_for(kernel.vendor):
        configs = heuristic(**args, return_configs=True)
    return [LaunchConfig.of(dict(c.kwargs), int(c.num_warps), int(c.num_stages)) for c in configs]


ROCM = "rocm (the log's; irscope's torch is not)"  # any true torch.version.hip takes ROCm's branches


@contextlib.contextmanager
def _as_built_for(vendor: Vendor | None) -> Iterator[None]:
    """Inductor's heuristics as the torch build that wrote the log runs them.

    They ask ``torch.version.hip``, not the kernel's DeviceProperties, whether to give ROCm's configs
    (``waves_per_eu``, the extra pointwise tiles, the 2^31-thread grid limit, no 4-warp floor), and
    hints.py fixed ``TRITON_MAX_BLOCK["X"]`` (8192 on ROCm, 4096 on CUDA) when it was imported. For a
    kernel a ROCm build wrote, both say ROCm while the heuristic runs; nothing else runs meanwhile
    that reads them (a capture's planning is one thread), and both are put back.
    """
    if vendor is not Vendor.AMD:
        yield
        return
    import torch
    from torch._inductor.runtime import hints

    hip, block_x = torch.version.hip, hints.TRITON_MAX_BLOCK["X"]
    torch.version.hip = torch.version.hip or ROCM
    hints.TRITON_MAX_BLOCK["X"] = 8192
    try:
        yield
    finally:
        torch.version.hip = hip
        hints.TRITON_MAX_BLOCK["X"] = block_x


def config_of(launch: LaunchConfig, vendor: Vendor | None = None) -> Config:
    """The launch as irscope's config; for ``vendor``'s GPUs, without the other vendor's launch options
    (a ROCm log's ``waves_per_eu`` where its kernel is compiled for sm_90: NVIDIA's compiler takes none)."""
    options = {"num_warps": launch.num_warps, "num_stages": launch.num_stages, **launch.options}
    if vendor is not None:
        options = {k: v for k, v in options.items() if VENDOR_OPTIONS.get(k, vendor.value) == vendor.value}
    return Config(dict(launch.constexprs), options, {})


def parameter_table(candidates: list[LaunchConfig], chosen: LaunchConfig) -> dict[str, dict[str, Any]]:
    """The session's parameter table: the chosen config as defaults, the candidates as the sweep."""
    table: dict[str, dict[str, Any]] = {}
    for name, value in chosen.constexprs.items():
        values: list[Any] = sorted({c.constexprs.get(name) for c in candidates if name in c.constexprs} | {value})
        table[name] = {"default": value, "sweep": values, "kind": "constexpr"}
    for name in ("num_warps", "num_stages"):
        value = getattr(chosen, name)
        table[name] = {
            "default": value,
            "sweep": sorted({getattr(c, name) for c in candidates} | {value}),
            "kind": "option",
        }
    for name in sorted({n for c in [*candidates, chosen] for n in c.options}):  # ROCm's launch options
        value = chosen.options.get(name, AMD_OPTION_DEFAULTS[name])
        options = {c.options.get(name, AMD_OPTION_DEFAULTS[name]) for c in candidates} | {value}
        table[name] = {"default": value, "sweep": sorted(options), "kind": "option"}
    return table
