"""A TileLang kernel: a ``@tilelang.jit`` factory (or a ``T.prim_func``), the parameters a config gives it,
and its compile.

One compile runs in this process, with TileLang's own functions and no GPU: the factory's
``get_tir(**parameters)`` makes the PrimFunc, ``tilelang.lower`` lowers it for ``{"kind": "cuda",
"arch": ...}`` inside the pass context a ``JITKernel`` uses (opt level 3, the decorator's
``pass_configs``, plus ``tl.emit_line_directives``: TileLang's switch for ``#line`` directives from the
TIR's spans, so that nvcc's line table, and the PTX's ``.loc``, name the Python lines), and
``tilelang.contrib.nvcc`` makes the PTX and the cubin exactly as ``JITKernel.export_ptx`` and
``export_sass`` do (tests/test_tilelang.py compares them with TileLang's own ``tilelang.compile``).

For an AMD GPU (``gfx942``) the same ``lower`` for ``{"kind": "hip", "mcpu": ...}`` gives the TIR and the HIP
source with no ROCm at all: ``lower`` runs TileLang's device codegen without its compile callback
(``target.build.tilelang_hip_without_compile``). The code object is hipcc's (``tilelang_callback_hip_compile``,
inside ``target.build.tilelang_hip``): where no hipcc is found the AMDGCN stage says so and the rest stands.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import math
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...arch import Target, Vendor
from ...errors import IrscopeError, KernelFileError, KernelNotFound, ParameterError
from ...ir.elf import kernel_resources
from ...ir.hsaco import kernel_resources as hsaco_resources
from ...stages import Stage
from ...types import CaptureError, Config, KernelId
from ..base import Compiled, Kernel, KernelHandle, choose_kernel
from .source import Parameter, kernel_defs, kind, parameters
from .stages import CUDA, HIP, LOWERED_TIR, TIR

# .maxntid 256, 1, 1     (a kernel's __launch_bounds__, which TileLang writes from T.Kernel's threads)
MAXNTID = re.compile(r"^\.maxntid\s+(\d+)(?:,\s*(\d+))?(?:,\s*(\d+))?", re.MULTILINE)
LINE_DIRECTIVES = "tl.emit_line_directives"
# extern "C" __global__ void __launch_bounds__(256) main_kernel(float* __restrict__ A, ...   (TileLang's HIP)
HIP_ENTRY = re.compile(r"__global__\s+void\s+(?:__launch_bounds__\((\d+)\)\s+)?(\w+)\s*\(")


def gpu_arch(capability: int) -> str:
    """TileLang's name for a capability, as it picks one for a GPU it finds (``nvcc.get_target_arch``):
    sm_90 and later with their arch-specific features (``sm_90a``, ``sm_100a``), earlier ones plain."""
    return f"sm_{capability}{'a' if capability >= 90 else ''}"


def tilelang_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"tilelang {version('tilelang')}"
    except PackageNotFoundError:
        return "tilelang"


class TileLangKernel(Kernel):
    frontend = "tilelang"
    stages = (TIR, LOWERED_TIR, CUDA, HIP, Stage.PTX, Stage.SASS, Stage.AMDGCN)
    vendors = (Vendor.NVIDIA, Vendor.AMD)

    def __init__(self, file: str, name: str, params: list[Parameter], text: str, factory: bool) -> None:
        self.file = file
        self.name = name
        self.params = params
        self.factory = factory  # a @tilelang.jit factory (else a T.prim_func, compiled as it is)
        self._text = text
        self._object: Any = None

    def __repr__(self) -> str:
        return f"TileLangKernel({self.name!r}, {self.file!r})"

    def source(self) -> str:
        return self._text

    def identity(self) -> KernelId:
        digest = hashlib.sha256(self._text.encode("utf-8", "surrogatepass")).hexdigest()
        return KernelId(self.name, self.file, digest)

    def parameter_table(self) -> dict[str, dict[str, Any]]:
        """Every factory parameter (a shape, a block size, ``num_stages``, ``threads``, a dtype): its literal
        default, where it has one, is its one sweep value."""
        return {
            p.name: {"default": p.default, "sweep": [p.default] if p.has_default else [], "kind": "constexpr"}
            for p in self.params
        }

    def check_config(self, config: Config) -> None:
        """Every parameter without a default given; and TileLang installed, so that a missing one is refused
        before anything starts (one line naming the extra, exit 2), not found again by every variant."""
        self._check_values(config)
        if importlib.util.find_spec("tilelang") is None:
            raise ModuleNotFoundError("No module named 'tilelang'", name="tilelang")

    def _check_values(self, config: Config) -> None:
        missing = [p.name for p in self.params if not p.has_default and p.name not in config.constexprs]
        if missing:
            raise ParameterError(f"{self.name} needs a value for {', '.join(missing)} (-c NAME=VALUE)")

    def handle(self) -> KernelHandle:
        return KernelHandle(self.frontend, self.file, self.name, {})

    def cache_material(self) -> dict[str, Any]:
        # whether a hipcc is here: a gfx942 compile without one has no AMDGCN, which must not outlive it
        return {"source": self.identity().source_hash, "tilelang": tilelang_version(), "hipcc": hipcc_here()}

    def python_object(self) -> Any:
        """The factory or PrimFunc, from the file the user named (imported once)."""
        if self._object is None:
            from ..files import import_file

            module = import_file(Path(self.file), "irscope_tilelang", "kernel file")
            self._object = getattr(module, self.name, None)
            if self._object is None:
                raise KernelNotFound(f"{self.file} defines no TileLang kernel {self.name!r} when imported")
        return self._object

    @property
    def records_passes(self) -> bool:
        return True

    def compile_passes(self, config: Config, target: Target) -> Compiled:
        """``compile``, with every TIR pass of the lowering recorded by TileLang's own pass instrumentation
        (``passes.py``): what ``TL_LOWER_TRACE`` lists, in its order."""
        return self.compile(config, target, record_passes=True)

    def compile(self, config: Config, target: Target, record_passes: bool = False) -> Compiled:
        start = time.perf_counter()
        amd = target.gfx is not None
        arch = target.gfx if target.gfx is not None else gpu_arch(target.nvidia_capability("TileLang"))
        values = {p.name: config.constexprs[p.name] for p in self.params if p.name in config.constexprs}
        try:
            self._check_values(config)
        except ParameterError as exc:
            return Compiled(error=CaptureError("config", str(exc)))
        try:
            kernel = self.python_object()
        except IrscopeError as exc:  # the file does not import here (no TileLang: its line names the extra)
            return Compiled(error=CaptureError("import", str(exc)), compiler=tilelang_version())
        stages: dict[Stage, str] = {}
        missing: dict[Stage, str] = {}
        recorder = None
        try:
            if record_passes:
                from .passes import recorder_tool

                recorder = recorder_tool()
            func = kernel.get_tir(**values) if hasattr(kernel, "get_tir") else kernel
            stages[TIR] = func.script()
            if amd:
                cubin, shared = _lower_and_build_hip(kernel, func, arch, stages, missing, recorder)
            else:
                cubin, shared = _lower_and_build(kernel, func, arch, stages, recorder)
        except Exception as exc:
            environment = CaptureError.from_environment(exc, "compiling (TileLang)")
            return Compiled(
                stages=stages,
                error=environment or CaptureError("tilelang", _message(exc, "hipcc" if amd else "nvcc")),
                compiler=tilelang_version(),
                seconds=round(time.perf_counter() - start, 4),
                passes=recorder.log() if recorder is not None else None,
            )
        if amd:
            found = HIP_ENTRY.search(stages[HIP])
            entry, threads = (
                (found.group(2), int(found.group(1)) if found.group(1) else None) if found else (None, None)
            )
            resources: dict[str, int] = {}
        else:
            ptx = stages.get(Stage.PTX, "")
            entry = next(iter(re.findall(r"\.entry\s+(\w+)\s*\(", ptx)), None)
            bounds = MAXNTID.search(ptx)
            threads = math.prod(int(e or 1) for e in bounds.groups()) if bounds else None
            # TileLang's nvcc calls ask for no ptxas report: the cubin's .nv.info says (cuobjdump -res-usage)
            resources = kernel_resources(cubin) if cubin is not None else {}
        return Compiled(
            stages=stages,
            cubin=cubin,
            shared=shared,
            options={**values, "gpu_arch": arch, "entry": entry},
            threads_per_block=threads,
            cubin_resources=resources,
            compiler=tilelang_version(),
            seconds=round(time.perf_counter() - start, 4),
            passes=recorder.log() if recorder is not None else None,
            stage_errors=missing,
        )


def hipcc_here() -> str | None:
    """The hipcc TileLang's ``find_hipcc`` would try first (``$ROCM_PATH/bin/hipcc``, then PATH's, then
    ``/opt/rocm/bin/hipcc``), found without importing TileLang: part of a compile's cache key."""
    rocm = os.environ.get("ROCM_PATH")
    candidates = [os.path.join(rocm, "bin", "hipcc")] if rocm else []
    candidates += [shutil.which("hipcc") or "", "/opt/rocm/bin/hipcc"]
    return next((c for c in candidates if c and os.path.isfile(c)), None)


@contextlib.contextmanager
def _lowered(kernel: Any, func: Any, spec: dict[str, str], stages: dict[Stage, str], recorder: Any) -> Iterator[int]:
    """Lower ``func`` for the TVM target ``spec`` in the pass context a ``JITKernel`` uses, keeping the lowered
    TIR and the generated source (CUDA or HIP) as stages; yields, still inside that context (TileLang's compile
    calls read it), the dynamic shared memory its kernel asks for at launch: the device function's
    ``dyn_shared_memory_buf`` (ptxas sees only the static). ``recorder``: a ``passes.recorder_tool()`` to hand
    every pass to, in a compile session of its own as ``JITKernel``'s (TileLang's default tools,
    ``TL_LOWER_TRACE``'s among them, left out: its output is not ours to make)."""
    import tilelang
    from tilelang import tvm

    target = tvm.target.Target(spec)
    configs = {**dict(getattr(kernel, "pass_configs", None) or {}), LINE_DIRECTIVES: True}
    instruments: list[Any] = []
    with contextlib.ExitStack() as stack:
        if recorder is not None:
            from tilelang.instrumentation import compile_pass_instrumentation

            session = stack.enter_context(
                compile_pass_instrumentation(
                    "irscope", tools=[recorder], include_default_tools=False, reuse_existing=False
                )
            )
            instruments = session.create_pass_instruments()
        stack.enter_context(tvm.transform.PassContext(opt_level=3, config=configs, instruments=instruments))
        stack.enter_context(target)
        artifact = tilelang.lower(func, target=target)  # codegen without the compile callback: no nvcc, no hipcc
        stages[LOWERED_TIR] = artifact.device_mod.script()
        stages[HIP if spec["kind"] == "hip" else CUDA] = artifact.kernel_source
        yield sum(int(f.attrs.get("dyn_shared_memory_buf", 0)) for f in artifact.device_mod.functions.values())


def _lower_and_build(
    kernel: Any, func: Any, arch: str, stages: dict[Stage, str], recorder: Any = None
) -> tuple[bytes, int]:
    """Lower ``func`` for ``arch`` and build its PTX and cubin, each stage kept as soon as it is made (a failing
    nvcc leaves the TIR and the CUDA to read); and the dynamic shared memory (``_lowered``)."""
    from tilelang.contrib import nvcc

    flags = getattr(kernel, "compile_flags", None)
    flags = [flags] if isinstance(flags, str) else flags
    with _lowered(kernel, func, {"kind": "cuda", "arch": arch}, stages, recorder) as shared:
        code = stages[CUDA]
        stages[Stage.PTX] = nvcc.get_ptx_from_source(code, compile_flags=flags)
        options = nvcc.default_compile_options(flags)
        return bytes(nvcc.compile_cuda(code, target_format="cubin", options=options)), shared


def _lower_and_build_hip(
    kernel: Any, func: Any, arch: str, stages: dict[Stage, str], missing: dict[Stage, str], recorder: Any = None
) -> tuple[bytes | None, int]:
    """Lower ``func`` for the AMD GPU ``arch`` (``gfx942``): the TIR and the HIP source need no ROCm. The code
    object needs hipcc: where TileLang finds none (``find_hipcc``, as its own compile looks), ``missing`` says
    why and no code object comes back. Where one is found (never here or on CI: untested), the HSACO is
    TileLang's own compile's (``tilelang_callback_hip_compile``) and the AMDGCN listing is hipcc's assembly
    of the same source with the same flags (``-S`` for ``--genco``)."""
    from tilelang.contrib.rocm import find_hipcc

    with _lowered(kernel, func, {"kind": "hip", "mcpu": arch}, stages, recorder) as shared:
        try:
            hipcc = find_hipcc()
        except RuntimeError as exc:
            missing[Stage.AMDGCN] = f"not produced: {NO_HIPCC} ({exc})"
            return None, shared
        from tilelang import tvm
        from tilelang.rocm.backend import tilelang_callback_hip_compile

        hsaco = bytes(tilelang_callback_hip_compile(stages[HIP], tvm.target.Target({"kind": "hip", "mcpu": arch})))
        stages[Stage.AMDGCN] = _hip_assembly(hipcc, stages[HIP], arch)
        try:  # what capture reads the resources from; else from the listing's metadata, as for a trace's
            hsaco_resources(hsaco)
        except ValueError:  # not a bare code object (hipcc's --genco may write an offload bundle): not kept
            return None, shared
        return hsaco, shared


# Why a gfx942 compile has TIR and HIP but no AMDGCN (the error TileLang's own tilelang.compile stops with, in
# target.build.tilelang_hip's callback, follows it in parentheses).
NO_HIPCC = (
    "TileLang builds the code object with ROCm's hipcc (tilelang_callback_hip_compile, "
    "tilelang.contrib.hipcc.compile_hip), and none is here"
)


def _hip_assembly(hipcc: str, code: str, arch: str) -> str:
    """hipcc's AMDGCN assembly of ``code``: the command ``tilelang.contrib.hipcc.compile_hip`` runs, the device
    code only, written as assembly (``-S``) rather than a code object (``--genco``). Untested: no hipcc here."""
    import subprocess
    import tempfile

    from tilelang.env import TILELANG_TEMPLATE_PATH

    with tempfile.TemporaryDirectory(prefix="irscope-hip-") as folder:
        source, out = Path(folder) / "tvm_kernels.cc", Path(folder) / "tvm_kernels.s"
        source.write_text(code, encoding="utf-8")
        command = [hipcc, "-O3", "-gline-tables-only", f"--offload-arch={arch}", "--offload-device-only", "-S"]
        command += ["-std=c++17", "-I" + TILELANG_TEMPLATE_PATH, "-o", str(out), str(source)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError("Compilation error:\n" + done.stdout + done.stderr)
        return out.read_text(encoding="utf-8")


def _message(exc: BaseException, compiler: str = "nvcc") -> str:
    """TileLang's error in one line: the ``compiler``'s errors where it failed (TileLang's report starts with
    the whole CUDA or HIP source), else the last line of TVM's traceback-shaped message."""
    text = str(exc)
    if "Compilation error:" in text:
        errors = [ln.strip() for ln in text.split("Compilation error:", 1)[1].splitlines() if " error" in ln]
        text = f"{compiler}: " + " ".join(errors or text.split("Compilation error:", 1)[1].split())
    else:
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        text = lines[-1] if lines else ""
    return f"{type(exc).__name__}: {text}"[:500]


def kernel_in_file(path: Path, name: str | None) -> TileLangKernel:
    defs = kernel_defs(path)
    name = choose_kernel(list(defs), name, path, "TileLang kernel")
    node = defs[name]
    return TileLangKernel(str(path), name, parameters(node), path.read_text(encoding="utf-8"), kind(node) == "jit")


def kernel_from_object(obj: Any) -> TileLangKernel:
    """A factory or PrimFunc handed over as an object (a script's, a notebook cell's): compiled as it is, in
    this process; its source is its file's or cell's text, which the PTX's ``.loc`` lines name."""
    import ast

    from ..python_source import defining_node, defining_text

    function = getattr(obj, "func", None) if hasattr(obj, "get_tir") else None
    inner = getattr(function, "func", function)  # JITImpl.func is TileLang's JITFunc, which wraps the def
    inner = getattr(inner, "orig_func", inner)
    if inner is None or not hasattr(inner, "__code__"):
        raise KernelFileError("irscope takes a TileLang kernel as an object only as a @tilelang.jit factory")
    filename, text = defining_text(inner, "@tilelang.jit function")
    node: ast.FunctionDef = defining_node(text, filename, inner, "@tilelang.jit function")
    params = parameters(node) if kind(node) == "jit" else []
    kernel = TileLangKernel(filename, inner.__name__, params, text, True)
    kernel._object = obj
    kernel.defined_in_process = True
    return kernel


class PrimFuncAsGiven:
    """A PrimFunc a program handed ``tilelang.compile``, with the pass configs and nvcc flags it gave: what
    ``TileLangKernel.compile`` lowers (``get_tir``) and with what (``_lower_and_build`` reads both)."""

    def __init__(self, func: Any, pass_configs: Any, compile_flags: Any) -> None:
        self.func = func
        self.pass_configs = dict(pass_configs or {})
        self.compile_flags = compile_flags

    def get_tir(self) -> Any:
        return self.func


def kernel_from_prim_func(func: Any, pass_configs: Any = None, compile_flags: Any = None) -> TileLangKernel:
    """A PrimFunc compiled as it is (``irscope run``: one a program handed ``tilelang.compile``), named after the
    top-level function of its file that made it (a ``@tilelang.jit`` factory, a ``T.prim_func``): the one
    whose lines hold the PrimFunc's span. It has no parameters: its shapes and sizes are fixed in it."""
    import ast
    import linecache

    span = getattr(func, "span", None)
    filename = str(getattr(getattr(span, "source_name", None), "name", "") or "")
    line = int(getattr(span, "line", 0) or 0)
    text = "".join(linecache.getlines(filename)) if filename else ""
    if not text:
        raise KernelFileError(f"the PrimFunc names no Python file irscope can read ({filename or 'no span'})")
    try:
        tree = ast.parse(text, filename)
    except (SyntaxError, ValueError, RecursionError) as exc:
        raise KernelFileError(f"{filename} does not parse: {exc}") from None
    name = next(
        (
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef)
            and kind(node)
            and min([node.lineno] + [d.lineno for d in node.decorator_list]) <= line <= (node.end_lineno or 0)
        ),
        None,
    )
    if name is None:
        raise KernelFileError(f"{filename}:{line}: no top-level TileLang kernel of the file made this PrimFunc")
    kernel = TileLangKernel(filename, name, [], text, False)
    kernel._object = PrimFuncAsGiven(func, pass_configs, compile_flags)
    kernel.defined_in_process = True
    return kernel
