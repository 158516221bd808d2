"""A CuTe DSL kernel: a ``@cute.jit`` host function, the arguments ``-S`` describes, and its compile.

One compile is one ``cute.compile`` in this process for ``--gpu-arch`` (no driver is asked), with the
DSL's own switches for what it keeps: ``--keep-ptx --keep-cubin --generate-line-info --dump-dir`` and,
for the traced IR, the settings ``CUTE_DSL_KEEP=ir-debug`` and ``CUTE_DSL_LINEINFO=1`` would make
(set on the DSL's settings object for this compile only, and put back after: the variables are read
once, at the DSL's import). The files land in a private folder and are read back as they are: the PTX
is byte for byte what ``CUTE_DSL_KEEP=ptx`` writes for the same arch (tests/test_cute.py checks). The
module the DSL's lowering leaves (the compiled function's ``ir_module``, ``stages.py`` says why that is
"after lowering") is the ``cute_lowered`` stage, and the launch it holds says what the dynamic shared memory
(``launch_shared_memory``) and the cluster shape (``launch_cluster``) are.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...arch import Target
from ...errors import IrscopeError, KernelFileError, KernelNotFound, ParameterError
from ...ir.ptx import launchable_cluster
from ...stages import Stage
from ...types import CaptureError, Config, KernelId
from ..base import Compiled, Kernel, KernelHandle, choose_kernel
from .arguments import HELP, Argument, fake_arguments, parse_arguments
from .source import Parameter, jit_defs, parameters
from .stages import CUTE_IR, CUTE_LOWERED

ANSI = re.compile(r"\x1b\[[0-9;]*m")
REQNTID = re.compile(r"^\.reqntid\s+(\d+)(?:,\s*(\d+))?(?:,\s*(\d+))?", re.MULTILINE)
# The host function's launch, lowered to LLVM: a cudaLaunchConfig_t {gridDim, blockDim, dynamicSmemBytes, stream,
# attrs, numAttrs} whose third field gets the bytes the kernel's SmemAllocator took (cute.kernel_smem_size, folded).
# Read from the lowered stage's text, printed with locations: a line may end in its `` loc(#loc4)``.
LOC = r"(?: loc\(.*\))?$"
CONFIG_FIELD = re.compile(
    r"^\s*(%\w+) = llvm\.getelementptr %\w+\[0, 2\] : \(!llvm\.ptr\) -> !llvm\.ptr, "
    r"!llvm\.struct<\(array<3 x i32>, array<3 x i32>, i64, ptr, ptr, i32\)>" + LOC,
    re.MULTILINE,
)
CONSTANT = re.compile(r"^\s*(%\w+) = llvm\.mlir\.constant\((\d+) : i(?:32|64)\) : i(?:32|64)" + LOC, re.MULTILINE)
# The launch's attributes: cudaLaunchAttribute {id, pad, value} structs; the one whose id is 4
# (cudaLaunchAttributeClusterDimension) holds the cluster's x, y, z in its value, as a struct of three i32.
ATTRIBUTE = r"!llvm\.struct<\(i32, array<4 x i8>, array<64 x i8>\)>"
ATTRIBUTE_FIELD = re.compile(
    rf"^\s*(%\w+) = llvm\.getelementptr (%\w+)\[0, ([02])\] : \(!llvm\.ptr\) -> !llvm\.ptr, {ATTRIBUTE}" + LOC,
    re.MULTILINE,
)
DIM_FIELD = re.compile(
    r"^\s*(%\w+) = llvm\.getelementptr (%\w+)\[0, ([012])\] : \(!llvm\.ptr\) -> !llvm\.ptr, "
    r"!llvm\.struct<\(i32, i32, i32\)>" + LOC,
    re.MULTILINE,
)
STORE_I32 = re.compile(r"^\s*llvm\.store (%\w+), (%\w+) : i32, !llvm\.ptr" + LOC, re.MULTILINE)
CLUSTER_DIMENSION = 4  # cudaLaunchAttributeClusterDimension


def gpu_arch(capability: int) -> str:
    """The DSL's name for a capability, as it picks one for a GPU it finds: sm_90 and later with their
    arch-specific features (``sm_90a``, ``sm_100a``, ``sm_120a``), earlier ones plain (``sm_80``)."""
    return f"sm_{capability}{'a' if capability >= 90 else ''}"


def dsl_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"nvidia-cutlass-dsl {version('nvidia-cutlass-dsl')}"
    except PackageNotFoundError:
        return "nvidia-cutlass-dsl"


class CuteKernel(Kernel):
    frontend = "cute"
    stages = (CUTE_IR, CUTE_LOWERED, Stage.PTX, Stage.SASS)

    def __init__(self, file: str, name: str, params: list[Parameter], arguments: str, text: str) -> None:
        self.file = file
        self.name = name
        self.params = params
        self.arguments = arguments  # -S as given
        self._text = text
        self._function: Any = None
        runtime = [p for p in params if not p.constexpr]
        self._described: tuple[Argument, ...] = parse_arguments(arguments, f"{name} in {file}") if arguments else ()
        if len(self._described) != len(runtime):
            listed = ", ".join(p.name for p in runtime)
            raise ParameterError(
                f"{name} takes {len(runtime)} runtime argument(s) ({listed}); -S describes {len(self._described)}: "
                f"give {HELP}"
            )

    def __repr__(self) -> str:
        return f"CuteKernel({self.name!r}, {self.file!r})"

    def source(self) -> str:
        return self._text

    def identity(self) -> KernelId:
        digest = hashlib.sha256((self._text + "\0" + self.arguments).encode("utf-8", "surrogatepass")).hexdigest()
        return KernelId(self.name, self.file, digest)

    def parameter_table(self) -> dict[str, dict[str, Any]]:
        """Every ``cutlass.Constexpr`` parameter: its default (where a literal gives one) is its one sweep value."""
        return {
            p.name: {"default": p.default, "sweep": [p.default] if p.has_default else [], "kind": "constexpr"}
            for p in self.params
            if p.constexpr
        }

    def check_config(self, config: Config) -> None:
        """Every constexpr without a default given; and the DSL installed, so that a missing one is refused
        before anything starts (one line naming the extra, exit 2), not found again by every variant."""
        self._check_values(config)
        if importlib.util.find_spec("cutlass") is None:
            raise ModuleNotFoundError("No module named 'cutlass'", name="cutlass")

    def _check_values(self, config: Config) -> None:
        missing = [p.name for p in self.params if p.constexpr and not p.has_default and p.name not in config.constexprs]
        if missing:
            raise ParameterError(f"{self.name} needs a value for {', '.join(missing)} (-c NAME=VALUE)")

    def handle(self) -> KernelHandle:
        return KernelHandle(self.frontend, self.file, self.name, {"signature": self.arguments})

    def cache_material(self) -> dict[str, Any]:
        # "stored": what a capture of this frontend stores (2: the launch's dynamic shared memory in resources;
        # 3: the lowered IR stage and the launch's cluster)
        return {"source": self.identity().source_hash, "dsl": dsl_version(), "stored": 3}

    def python_function(self) -> Any:
        """The ``@cute.jit`` function, from the file the user named (imported once)."""
        if self._function is None:
            from ..files import import_file

            module = import_file(Path(self.file), "irscope_cute", "kernel file")
            self._function = getattr(module, self.name, None)
            if self._function is None:
                raise KernelNotFound(f"{self.file} defines no @cute.jit function {self.name!r} when imported")
        return self._function

    def compile(self, config: Config, target: Target) -> Compiled:
        start = time.perf_counter()
        arch = gpu_arch(target.nvidia_capability("CuTe DSL"))
        values = {p.name: config.constexprs[p.name] for p in self.params if p.constexpr and p.name in config.constexprs}
        try:
            self._check_values(config)
        except ParameterError as exc:
            return Compiled(error=CaptureError("config", str(exc)))
        try:
            function = self.python_function()
        except IrscopeError as exc:  # the file does not import here (no DSL: its line names the extra)
            return Compiled(error=CaptureError("import", str(exc)), compiler=dsl_version())
        import cutlass.cute as cute

        with tempfile.TemporaryDirectory(prefix="irscope-cute-") as tmp:
            try:
                with _keeping_ir(tmp):
                    compiled = cute.compile(
                        function,
                        *fake_arguments(self._described),
                        **values,
                        options=f"--gpu-arch {arch} --keep-ptx --keep-cubin --generate-line-info --dump-dir {tmp}",
                    )
            except Exception as exc:
                environment = CaptureError.from_environment(exc, "compiling (CuTe DSL)")
                return Compiled(
                    error=environment or CaptureError("cute", _message(exc)),
                    compiler=dsl_version(),
                    seconds=round(time.perf_counter() - start, 4),
                )
            stages, cubin = _kept(Path(tmp), arch)
        lowered = lowered_ir(compiled)
        if lowered:
            stages[CUTE_LOWERED] = lowered
        shared = launch_shared_memory(lowered)
        ptx = stages.get(Stage.PTX, "")
        entry = next(iter(re.findall(r"\.entry\s+(\w+)\s*\(", ptx)), None)
        threads = REQNTID.search(ptx)
        return Compiled(
            stages=stages,
            cubin=cubin,
            options={**values, "gpu_arch": arch, "entry": entry},
            threads_per_block=_product(threads.groups()) if threads else None,
            shared=shared or 0,
            cluster=launch_cluster(lowered),
            cubin_resources=_resources(cubin) if cubin else {},
            compiler=dsl_version(),
            error=None if cubin else CaptureError("cute", f"the DSL kept no cubin for {arch}"),
            seconds=round(time.perf_counter() - start, 4),
        )


def lowered_ir(compiled: Any) -> str:
    """The compiled function's ``ir_module`` (the module the DSL's ``cute-to-nvvm`` pipeline left) as the DSL's
    own IR dumps write a module (``save_ir``: ``get_asm`` with locations, and a newline); "" where it has none.
    Printing it took 36 ms and reading the launch from it 14 ms beside the matmul's 0.83 s ``cute.compile`` (its
    80 KB are mostly the cubin, escaped); ``str(ir_module)``, read before for the shared memory alone, took 32."""
    module = getattr(compiled, "ir_module", None)
    return module.operation.get_asm(enable_debug_info=True) + "\n" if module is not None else ""


def _host_functions(host: str) -> Iterator[tuple[str, dict[str, str]]]:
    """Each function of the lowered host module, with its integer constants by SSA name (a function's own)."""
    for function in host.split("\n  llvm.func ")[1:]:
        yield function, dict(CONSTANT.findall(function))


def launch_cluster(host: str) -> tuple[int, int, int] | None:
    """The cluster shape the host function's launch asks for (``cluster=`` of ``.launch``): the constants stored
    into the x, y, z of its cluster-dimension launch attribute; None where the launch sets none (no ``cluster=``),
    where it is not constant or where the function launches more than one shape."""
    found: set[tuple[int, ...] | None] = set()
    for function, constants in _host_functions(host):
        stored = {pointer: value for value, pointer in STORE_I32.findall(function)}
        ids: dict[str, str] = {}
        values: dict[str, str] = {}
        dims: dict[str, dict[int, str]] = {}
        for field, attribute, index in ATTRIBUTE_FIELD.findall(function):
            (ids if index == "0" else values)[attribute] = field
        for field, value, index in DIM_FIELD.findall(function):
            dims.setdefault(value, {})[int(index)] = field
        for attribute, field in ids.items():
            if constants.get(stored.get(field, "")) != str(CLUSTER_DIMENSION):
                continue
            xyz = dims.get(values.get(attribute, ""), {})
            shape = [constants.get(stored.get(xyz.get(k, ""), "")) for k in range(3)]
            found.add(tuple(int(n) for n in shape if n is not None) if all(shape) else None)
    one = found.pop() if len(found) == 1 else None
    return (one[0], one[1], one[2]) if one and launchable_cluster(one) else None


def launch_shared_memory(host: str) -> int | None:
    """The dynamic shared memory the host function's one launch asks for, where a constant sets it (the
    kernel's SmemAllocator memory: the cubin declares none of it); None where it is not found or not one."""
    found = set()
    for function, constants in _host_functions(host):
        for field in CONFIG_FIELD.findall(function):
            store = re.search(
                rf"^\s*llvm\.store (%\w+), {re.escape(field)} : i64, !llvm\.ptr{LOC}", function, re.MULTILINE
            )
            found.add(int(constants[store.group(1)]) if store and store.group(1) in constants else None)
    return found.pop() if len(found) == 1 else None


def _resources(cubin: bytes) -> dict[str, int]:
    """The kernel's registers and stack frame from its cubin's .nv.info (what ptxas reported, had we seen it)."""
    from ...ir.elf import Cubin, function_resources

    found = list(function_resources(Cubin(cubin)).values())
    if len(found) != 1:  # one kernel per compile: anything else is not this kernel's to say
        return {}
    out = {"registers": found[0]["registers"]} if "registers" in found[0] else {}
    if "frame" in found[0]:
        out["stack_frame"] = found[0]["frame"]
    return out


def _product(extents: tuple[str | None, ...]) -> int:
    total = 1
    for e in extents:
        total *= int(e) if e else 1
    return total


@contextlib.contextmanager
def _keeping_ir(folder: str) -> Iterator[None]:
    """The DSL's traced IR, with locations, kept in ``folder`` for one compile (what ``CUTE_DSL_KEEP=ir-debug``,
    ``CUTE_DSL_LINEINFO=1`` and ``CUTE_DSL_DUMP_DIR`` set for a whole process); its settings put back after."""
    from cutlass.cutlass_dsl import CuTeDSL

    settings = CuTeDSL._get_dsl().envar
    saved = {name: getattr(settings, name) for name in ("keep_ir", "lineinfo", "dump_dir")}
    settings.keep_ir, settings.lineinfo, settings.dump_dir = True, True, folder
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(settings, name, value)


def _kept(folder: Path, arch: str) -> tuple[dict[Stage, str], bytes | None]:
    """The files one compile left in ``folder``: the traced IR (``*.mlir``, not the ``_clean`` one, whose
    locations point at its own printed text), ``*.<arch>.ptx`` and ``*.<arch>.cubin``."""
    stages: dict[Stage, str] = {}
    traced = [p for p in sorted(folder.glob("*.mlir")) if not p.name.endswith("_clean.mlir")]
    if traced:
        stages[CUTE_IR] = traced[0].read_text(encoding="utf-8")
    ptx = sorted(folder.glob(f"*.{arch}.ptx"))
    if ptx:
        stages[Stage.PTX] = ptx[0].read_text(encoding="utf-8")
    cubins = sorted(folder.glob(f"*.{arch}.cubin"))
    return stages, cubins[0].read_bytes() if cubins else None


def _message(exc: BaseException) -> str:
    """The DSL's error, one line: its coloured, boxed report reduced to the words."""
    lines = [ANSI.sub("", ln).strip(" |^") for ln in str(exc).splitlines()]
    text = " ".join(ln for ln in lines if ln and not ln.startswith("-->"))
    return f"{type(exc).__name__}: {text}"[:500]


def kernel_in_file(path: Path, name: str | None, signature: str | None) -> CuteKernel:
    defs = jit_defs(path)
    name = choose_kernel(list(defs), name, path, "@cute.jit function")
    params = parameters(defs[name])
    if not signature and any(not p.constexpr for p in params):
        raise ParameterError(f"{name} in {path} takes tensors: describe its runtime arguments with {HELP}")
    return CuteKernel(str(path), name, params, signature or "", path.read_text(encoding="utf-8"))


def _defining_node(text: str, filename: str, function: Any) -> ast.FunctionDef:
    """The ``def`` of ``function`` in ``text``. The DSL's preprocessor compiles the function again from its
    ``def`` line on, so its code starts there or at its first decorator (python_source.defining_node's rule)."""
    first = function.__code__.co_firstlineno
    try:
        tree = ast.parse(text, filename)
    except (SyntaxError, ValueError, RecursionError):
        tree = None
    for node in tree.body if tree is not None else ():
        if isinstance(node, ast.FunctionDef) and node.name == function.__name__:
            if first in {node.lineno, node.decorator_list[0].lineno if node.decorator_list else node.lineno}:
                return node
    raise KernelFileError(
        f"{filename}:{first}: the source of @cute.jit function {function.__name__} has changed since it was "
        "defined; run its cell (or import its file) again"
    )


def kernel_from_function(function: Any, signature: str | None) -> CuteKernel:
    """A ``@cute.jit`` function handed over as an object (a script's, a notebook cell's): compiled as it is,
    in this process; its source is its file's or cell's text, which the PTX's ``.file`` names."""
    from ..python_source import defining_text

    inner = getattr(function, "__wrapped__", function)
    filename, text = defining_text(inner, "@cute.jit function")
    params = parameters(_defining_node(text, filename, inner))
    if not signature and any(not p.constexpr for p in params):
        raise ParameterError(f"{inner.__name__} takes tensors: describe its runtime arguments as signature=, {HELP}")
    kernel = CuteKernel(filename, inner.__name__, params, signature or "", text)
    kernel._function = function
    kernel.defined_in_process = True
    return kernel
