"""Compile one variant with Triton and keep everything the compile produced.

Two paths, one result. Ahead of time (any machine): the kernel's example
arguments go through the JIT's own binder for the chosen target, so the compile
sees the same specialization (16-byte divisibility, constant 1s, i64 for large
ints) as a launch would, and yields the same PTX. Through the JIT (on a GPU):
``fn.run(..., warmup=True)`` on real CUDA tensors, which is exactly what runs.

Either way a stage hook records which stage Triton is in (so a failure names
it) and keeps ptxas's resource report, which Triton otherwise throws away.

For an AMD processor (``gfx942``) the same ahead-of-time path compiles with Triton's
HIP backend, which needs no ROCm and no GPU: TTIR, TTGIR, LLIR, AMDGCN and the HSACO
(kept where a cubin is), whose metadata gives the resources.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...nvidia.ptxas import SHARED_MEMORY_LIMIT, run_ptxas_report
from ...paths import IN_TRITON_CACHE
from ...stages import Stage
from ...storage.in_use import holding
from ...types import CaptureError, Config
from ..base import Compiled
from .inputs import example_namespace, launch_arguments
from .passes import PassRecorder
from .source_key import remember as remember_triton_key
from .specialize import gpu_target, specialize
from .versions import install_stage_hook, ptxas_path, triton_version

# triton is imported inside the functions that use it: about a second, which commands that never compile
# should not pay.

if TYPE_CHECKING:
    from .kernel import TritonKernel

# Triton's asm keys for the stages it produces (SASS comes from the cubin, in capture).
STAGES = {"ttir": Stage.TTIR, "ttgir": Stage.TTGIR, "llir": Stage.LLIR, "ptx": Stage.PTX, "amdgcn": Stage.AMDGCN}
# ... and for the binary: NVIDIA's cubin, AMD's HSACO (a variant keeps either in its one binary's place)
BINARIES = ("cubin", "hsaco")
ASM_KEYS = (*STAGES, *BINARIES)
# The launch options of the HIP backend, kept with a variant's options beside num_warps and num_stages.
AMD_OPTIONS = ("waves_per_eu", "matrix_instr_nonkdim", "kpack")


@dataclass
class _Result(Compiled):
    """A Compiled while Triton is still at work: its asm and metadata in Triton's own terms."""

    # ttir, ttgir, llir, ptx or amdgcn (str), cubin or hsaco (bytes)
    asm: dict[str, Any] = field(default_factory=dict)
    names: dict[str, Stage] = field(default_factory=lambda: dict(STAGES))  # asm key -> stage (the kernel's)
    metadata: dict[str, Any] = field(default_factory=dict)

    def compiled(self, arch: int | str) -> Compiled:
        """In the frontend-neutral terms capture works with (``arch``: a capability, or an AMD processor)."""
        meta = self.metadata
        log = self.ptxas_log
        if meta and not log and "ptx" in self.asm and isinstance(arch, int):  # a cache hit skips ptxas: ask again
            log = run_ptxas_report(self.asm["ptx"], arch, ptxas_path(arch))
        names = ("num_warps", "num_stages", "num_ctas", *(AMD_OPTIONS if isinstance(arch, str) else ()))
        options = {k: int(meta[k]) for k in names if meta.get(k) is not None}
        lanes = int(meta.get("warp_size") or 32)  # an AMD wave: 64 lanes on CDNA
        return Compiled(
            stages={self.names[k]: v for k, v in self.asm.items() if k in self.names},
            cubin=self.asm.get("cubin", self.asm.get("hsaco")),
            shared=int(meta.get("shared") or 0),
            options=options,
            threads_per_block=lanes * options["num_warps"] if "num_warps" in options else None,
            compiler=f"triton {meta.get('triton_version') or triton_version()}",
            ptxas_log=log,
            seconds=round(self.seconds, 4),
            error=self.error,
            signature=self.signature,
            divisible_by_16=self.divisible_by_16,
            heuristics=self.heuristics,
            gpu_registers=self.gpu_registers,
            gpu_spills=self.gpu_spills,
            passes=self.passes,
        )


class _StageTracker:
    """Installed as Triton's stage hook (``versions.install_stage_hook``): notes the running stage, keeps
    ptxas's log."""

    def __init__(self, passes: PassRecorder | None = None) -> None:
        self.stage: str | None = None
        self.ptxas_log: str | None = None
        self.passes = passes  # records every MLIR pass of the compile, where asked

    def __call__(self, backend: Any, stages: dict, options: Any, language: Any, capability: Any) -> None:
        for name, run in list(stages.items()):
            stages[name] = functools.partial(self._run, name, run)

    def _run(self, name: str, run: Any, src: Any, metadata: dict) -> Any:
        self.stage = name
        if self.passes is not None and name != "cubin":
            return self.passes.run(name, run, src, metadata)
        if name != "cubin":
            return run(src, metadata)
        from triton import knobs

        # Triton prints ptxas's -v report (and, on failure, a reproducer) to stdout
        # when asked to; catch it there instead of running ptxas a second time.
        buffer = io.StringIO()
        with knobs.nvidia.scope(), contextlib.redirect_stdout(buffer):
            knobs.nvidia.dump_ptxas_log = True
            try:
                return run(src, metadata)
            finally:
                self.ptxas_log = buffer.getvalue()


def compile_aot(kernel: TritonKernel, config: Config, arch: int | str, passes: bool = False) -> Compiled:
    """Compile for ``sm_<arch>`` (an int) or the AMD processor ``arch`` names without a GPU, specialised
    like the JIT.

    ``passes``: also record every MLIR pass (``passes.py``); Triton's cache is bypassed
    for this compile, as a cache hit runs no pass.
    """
    import triton
    from triton import knobs

    result = _Result(names=dict(kernel.asm_stages))
    keys = (*kernel.asm_stages, *BINARIES)
    tracker = _StageTracker()
    remember_triton_key()  # in a worker: Triton's hash of itself as an earlier worker computed it (source_key.py)
    start = time.perf_counter()
    try:
        src, options, result.signature, result.divisible_by_16 = specialize(kernel, config, arch)
        result.heuristics = heuristic_values(kernel, src)
    except Exception as exc:  # a spec whose args do not fit the kernel, say
        result.error = CaptureError.from_environment(exc, "specializing") or CaptureError("specialize", _one_line(exc))
        return result.compiled(arch)
    target = gpu_target(arch)
    recorder = tracker.passes = PassRecorder(kernel.name) if passes else None
    try:
        with triton_cache_for(kernel.file), install_stage_hook(tracker), knobs.compilation.scope():
            knobs.compilation.always_compile = knobs.compilation.always_compile or passes
            compiled = triton.compile(src, target=target, options=options)
        result.asm = {k: compiled.asm[k] for k in keys if k in compiled.asm}
        result.metadata = compiled.metadata._asdict()
    except Exception as exc:
        result.error = _failure(kernel, tracker.stage, exc)
        result.asm = _partial_stages(kernel, src, target, options)
    finally:
        if recorder is not None:
            result.passes = recorder.log()
            recorder.close()
    result.seconds = time.perf_counter() - start
    result.ptxas_log = tracker.ptxas_log
    if result.error is None and isinstance(arch, int):
        limit = SHARED_MEMORY_LIMIT.get(arch)
        shared = result.metadata.get("shared") or 0
        if limit is not None and shared > limit:
            result.error = CaptureError(
                "resources",
                f"out of resource: shared memory, Required: {shared}, Hardware limit: {limit} (sm_{arch}). "
                "Reducing block sizes or `num_stages` may help.",
            )
    return result.compiled(arch)


def compile_jit(kernel: TritonKernel, config: Config) -> Compiled:
    """Compile through Triton's JIT on the current GPU, for real CUDA tensors."""
    result = _Result(names=dict(kernel.asm_stages))
    keys = (*kernel.asm_stages, *BINARIES)
    tracker = _StageTracker()
    remember_triton_key()
    start = time.perf_counter()
    ns = example_namespace(kernel, config, device="cuda")
    args, kwargs = launch_arguments(kernel, config, ns)
    from triton.runtime import driver

    capability = driver.active.get_current_target().arch
    tensors = {name: getattr(ns, name) for name in kernel.launch_spec.tensors}
    src, options, result.signature, result.divisible_by_16 = specialize(kernel, config, capability, tensors)
    result.heuristics = heuristic_values(kernel, src)
    try:
        with triton_cache_for(kernel.file), install_stage_hook(tracker):
            compiled = kernel.fn.run(*args, grid=kernel.launch_spec.grid(ns), warmup=True, **kwargs)
        result.asm = {k: compiled.asm[k] for k in keys if k in compiled.asm}
        result.metadata = compiled.metadata._asdict()
        compiled._init_handles()  # loads the module: the driver's register and spill counts
        result.gpu_registers, result.gpu_spills = compiled.n_regs, compiled.n_spills
    except Exception as exc:
        result.error = _failure(kernel, tracker.stage, exc)
        if not result.asm:
            result.asm = _partial_stages(kernel, src, gpu_target(capability), options)
    result.seconds = time.perf_counter() - start
    result.ptxas_log = tracker.ptxas_log
    return result.compiled(capability)


def heuristic_values(kernel: TritonKernel, src: Any) -> dict[str, Any]:
    """What each ``@triton.heuristics`` value came to in this compile: the constexpr it was compiled with."""
    if kernel.tuning is None:
        return {}
    names = kernel.fn.arg_names
    out = {}
    for name, _, _ in kernel.tuning.heuristics():
        key = (names.index(name),)
        if key in src.constants:
            value = src.constants[key]
            out[name] = value if value is None or isinstance(value, (bool, int, float, str)) else str(value)
    return out


@contextlib.contextmanager
def triton_cache_for(file: str):
    """Triton's cache, in a folder of its own for the kernel file's path.

    Triton keys its cache on the kernel's source and line, not its path, but the
    IR it caches names the path in every location: the same kernel file in two
    checkouts would get each other's IR, with source maps pointing at the wrong
    file. One cache folder per path keeps every location true.
    """
    from triton import knobs

    digest = hashlib.sha256(file.encode()).hexdigest()[:16]
    with knobs.cache.scope():
        knobs.cache.dir = str(Path(knobs.cache.dir) / IN_TRITON_CACHE / digest)  # irscope cache shows and trims it
        with holding(Path(knobs.cache.dir)):  # and a trim leaves alone while a compile writes into it
            yield


_STAGE_NAMES = {
    None: "ttir (frontend)",
    "ttir": "ttir",
    "ttgir": "ttgir",
    "llir": "llir",
    "ptx": "ptx",
    "cubin": "cubin (ptxas)",
    "amdgcn": "amdgcn (LLVM AMDGPU)",
    "hsaco": "hsaco (assembling, linking)",
}


def _failure(kernel: TritonKernel, stage: str | None, exc: Exception) -> CaptureError:
    from triton.compiler.errors import CompilationError

    environment = CaptureError.from_environment(exc, f"compiling ({_STAGE_NAMES.get(stage, stage or 'compile')})")
    if environment is not None:  # Triton's cache on a full or read-only disk, say: not the kernel's failure
        return environment
    if type(exc).__name__ == "OutOfResources":
        return CaptureError("resources", _one_line(exc))
    if isinstance(exc, CompilationError):
        return CaptureError(_STAGE_NAMES[None], _frontend_message(kernel, exc))
    if type(exc).__name__ == "PTXASError":
        lines = [ln.strip() for ln in str(exc).splitlines() if "error" in ln.lower() and "ptxas" in ln.lower()]
        return CaptureError(_STAGE_NAMES["cubin"], "; ".join(lines[1:] or lines) or _one_line(exc))
    return CaptureError(_STAGE_NAMES.get(stage, stage or "compile"), _one_line(exc))


def _frontend_message(kernel: TritonKernel, exc: Any) -> str:
    """``file:line:col: what failed in `the source line` `` for Triton's frontend errors.

    Triton's own text starts "at 2:4:" (lines counted from the def) and quotes up to 12
    source lines; for a message-less ``tl.static_assert`` that is all it has, so the line
    that failed is what says why. An error in a @jit function the kernel calls arrives
    wrapped in one at the call: the location is the call's (a line of the kernel's file),
    and the code shown runs from that call to the line that failed in the callee.
    """
    from triton.compiler.errors import CompilationError, CompileTimeAssertionFailure

    chain = [exc]
    while isinstance(chain[-1].__cause__, CompilationError):
        chain.append(chain[-1].__cause__)
    failed = chain[-1]
    message = failed.error_message
    if isinstance(failed, CompileTimeAssertionFailure):
        message = "static assertion failed" + (f": {message}" if message else "")
    elif not message:
        cause = failed.__cause__  # an error in a builtin Triton wraps without a message of its own
        message = _one_line(cause) if cause is not None else "does not compile"
    code = " -> ".join(filter(None, (_source_line(e) for e in chain)))
    text = _one_line(message) + (f" in `{code}`" if code else "")
    node = getattr(exc, "node", None)
    if node is not None and hasattr(node, "lineno"):
        line = kernel.def_line() + node.lineno - 1
        return f"{kernel.file}:{line}:{node.col_offset}: {text}"
    return text


def _source_line(exc: Any) -> str | None:
    """The line of its function's source that a Triton CompilationError points at."""
    src, lineno = getattr(exc, "src", None), getattr(getattr(exc, "node", None), "lineno", None)
    if not isinstance(src, str) or not isinstance(lineno, int):
        return None
    lines = src.splitlines()
    return lines[lineno - 1].strip() if 0 < lineno <= len(lines) else None


def _one_line(value: Any) -> str:
    """A message on one line: its first line, joined with the next when the first only introduces it."""
    lines = [ln.strip() for ln in str(value).strip().splitlines() if ln.strip()]
    if not lines:
        return type(value).__name__
    if len(lines) > 1 and (lines[0].endswith(":") or len(lines[0]) < 40):
        return f"{lines[0]} {lines[1]}"
    return lines[0]


def _partial_stages(kernel: TritonKernel, src: Any, target: Any, options: dict) -> dict[str, Any]:
    """The stages Triton finished before failing, read back from its cache folder."""
    try:
        with triton_cache_for(kernel.file):
            return _read_partial_stages(src, target, options, kernel.asm_stages)
    except Exception:
        return {}


def _read_partial_stages(src: Any, target: Any, options: dict, names: dict[str, Stage]) -> dict[str, Any]:
    from triton._C.libtriton import get_cache_invalidating_env_vars
    from triton.compiler import make_backend
    from triton.runtime.cache import get_cache_key, get_cache_manager

    backend = make_backend(target)
    key = get_cache_key(src, backend, backend.parse_options(dict(options)), get_cache_invalidating_env_vars())
    manager = get_cache_manager(hashlib.sha256(key.encode("utf-8")).hexdigest())
    out = {}
    for ext in names:
        path = manager.get_file(f"{src.name[:150]}.{ext}")
        if path:
            out[ext] = Path(path).read_text()
    return out
