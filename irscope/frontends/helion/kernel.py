"""A Helion kernel: a ``@helion.kernel`` function, the example arguments ``-S`` describes, and its compile.

One compile is Helion's own path up to the launch, then the Triton frontend's compile of what it would
launch: ``bind`` on ``meta`` tensors (shapes and dtypes, no memory: no GPU is asked), then
``to_triton_code(config)``, the module loaded through PyTorch's ``PyCodeCache`` as Helion loads it (so its
file, and every location in the IR, is the one Helion's own compile names), its host function called with
a launcher that records the Triton kernel, its arguments and ``num_warps``/``num_stages`` instead of
launching, and that kernel compiled ahead of time for the target with the JIT's specialization of those
arguments. tests/test_helion.py checks every stage against ``triton.compile`` of the same module.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

from ...arch import Target, Vendor
from ...errors import KernelNotFound, ParameterError
from ...stages import Stage
from ...types import CaptureError, Config, KernelId
from ..base import Compiled, Kernel, KernelHandle
from ..shaped_arguments import HELP, Argument, parse_arguments
from .autotune_log import listed_columns
from .configs import field_text, helion_fields
from .stages import HELION_TRITON

# The launch options Helion's launcher passes that Triton compiles with (the rest only launch).
COMPILE_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "waves_per_eu", "matrix_instr_nonkdim", "kpack")
# -S's names -> Triton's pointer element types.
TRITON_TYPES = {
    "bool": "i1",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "float16": "fp16",
    "bfloat16": "bf16",
    "float32": "fp32",
    "float64": "fp64",
    "float8_e4m3fn": "fp8e4nv",
    "float8_e5m2": "fp8e5",
}


class HelionKernel(Kernel):
    frontend = "helion"
    stages = (HELION_TRITON, Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX, Stage.SASS, Stage.AMDGCN)
    vendors = (Vendor.NVIDIA, Vendor.AMD)

    def __init__(self, file: str, name: str, arguments: str, text: str, function: Any = None) -> None:
        self.file = file
        self.name = name
        self.arguments = arguments  # -S as given
        self._text = text
        self._function = function
        self._bound: Any = None
        self._table: dict[str, dict[str, Any]] | None = None
        self._described: tuple[Argument, ...] = parse_arguments(arguments, f"{name} in {file}") if arguments else ()
        if not self._described:
            raise ParameterError(f"{name} is a Helion kernel: describe its example arguments with -S: {HELP}")
        if any(a.shape is not None and None in a.shape for a in self._described):
            raise ParameterError(f"{name}: a Helion kernel is bound to example tensors of known shapes; give no ?")
        self.defined_in_process = function is not None

    def __repr__(self) -> str:
        return f"HelionKernel({self.name!r}, {self.file!r})"

    @property
    def generated_by(self) -> str:
        return "helion"

    def source(self) -> str:
        return self._text

    def identity(self) -> KernelId:
        digest = hashlib.sha256((self._text + "\0" + self.arguments).encode("utf-8", "surrogatepass")).hexdigest()
        return KernelId(self.name, self.file, digest)

    def handle(self) -> KernelHandle:
        return KernelHandle(self.frontend, self.file, self.name, {"signature": self.arguments})

    def cache_material(self) -> dict[str, Any]:
        from importlib.metadata import version

        import triton

        return {"source": self.identity().source_hash, "helion": version("helion"), "triton": triton.__version__}

    # ------------------------------------------------------------ Helion's objects

    def helion_kernel(self) -> Any:
        """The ``@helion.kernel`` object, from the file the user named (imported once)."""
        if self._function is None:
            import helion

            from ..files import import_file

            module = import_file(Path(self.file), "irscope_helion", "kernel file")
            function = getattr(module, self.name, None)
            if not isinstance(function, helion.Kernel):
                raise KernelNotFound(f"{self.file} defines no @helion.kernel {self.name!r} when imported")
            self._function = function
        return self._function

    def example_arguments(self) -> tuple[Any, ...]:
        """``-S``'s arguments as ``meta`` tensors (row-major) and zero scalars."""
        import torch

        out: list[Any] = []
        for arg in self._described:
            dtype = getattr(torch, arg.dtype)
            if arg.shape is None:
                out.append(False if arg.dtype == "bool" else 0.0 if dtype.is_floating_point else 0)
            else:
                out.append(torch.empty(tuple(d or 0 for d in arg.shape), dtype=dtype, device="meta"))
        return tuple(out)

    def bound(self) -> Any:
        """Helion's ``BoundKernel`` for the example arguments (Helion traces the kernel once, here)."""
        if self._bound is None:
            self._bound = self.helion_kernel().bind(self.example_arguments())
        return self._bound

    def default_fields(self) -> dict[str, Any]:
        return dict(self.bound().config_spec.default_config())

    # ------------------------------------------------------------ configs

    def parameter_table(self) -> dict[str, dict[str, Any]]:
        """Every field of Helion's default config for these arguments, as text (configs.py), kind ``option``;
        with the kernel's own list of configs (``configs=[...]``) or its autotune log, a ``configs`` column."""
        if self._table is None:
            defaults = self.default_fields()
            table: dict[str, dict[str, Any]] = {
                n: {"default": field_text(v), "sweep": [field_text(v)], "kind": "option"} for n, v in defaults.items()
            }
            listed = listed_columns(self.helion_kernel(), list(table))
            if listed is not None:
                for name, column in listed.fields.items():
                    entry = table.setdefault(name, {"default": "", "sweep": [""], "kind": "option"})
                    entry["configs"] = column
                for name, column in listed.marks.items():
                    table[name] = {"default": None, "sweep": [None], "kind": "mark", "configs": column}
            self._table = table
        return {n: dict(p) for n, p in self._table.items()}

    def helion_config(self, config: Config) -> Any:
        """The ``helion.Config`` a variant's config is (fields left "" are Helion's defaults)."""
        import helion

        defaults = self.default_fields()
        given = {n: v for n, v in config.options.items() if v != ""}
        return helion.Config(**helion_fields(given, defaults))

    def check_config(self, config: Config) -> None:
        """Every field a value Helion's Config takes (one line otherwise, before anything compiles)."""
        self.helion_config(config)

    # ------------------------------------------------------------ compile

    def triton_code(self, config: Config) -> str:
        return str(self.bound().to_triton_code(self.helion_config(config)))

    def compile(self, config: Config, target: Target) -> Compiled:
        start = time.perf_counter()
        try:
            code = self.triton_code(config)
        except Exception as exc:  # Helion refuses the config, or its codegen fails: a fact about this variant
            return Compiled(error=CaptureError("helion", _one_line(exc)), seconds=time.perf_counter() - start)
        try:
            launch = recorded_launch(self, code)
        except Exception as exc:
            return Compiled(
                stages={HELION_TRITON: code},
                error=CaptureError("helion", f"the generated module does not launch: {_one_line(exc)}"),
            )
        compiled = launch.compile(target)
        compiled.stages = {HELION_TRITON: code, **compiled.stages}
        compiled.seconds = round(time.perf_counter() - start, 4)
        return compiled


class Launch:
    """What the generated host function would launch: the Triton kernel, its arguments and options."""

    def __init__(self, module_file: str, jit: Any, args: tuple[Any, ...], options: dict[str, Any]) -> None:
        self.module_file = module_file
        self.jit = jit
        self.args = args
        self.options = options

    def signature(self) -> str:
        """The arguments in ``-S``'s Triton syntax, as the JIT specializes them (a tensor's address is 16-byte
        aligned, as torch's allocators make every fresh one; an int 1 a constant; a multiple of 16 so marked)."""
        import torch

        entries = []
        constexprs = {p.num for p in self.jit.params if p.is_constexpr}  # Helion's _REDUCTION_BLOCK_1: a value
        for i, value in enumerate(self.args):
            if i in constexprs:
                if not isinstance(value, (bool, int, float)):
                    raise ParameterError(f"the generated kernel's constexpr {value!r} is not a number")
                entries.append(repr(value))
            elif isinstance(value, torch.Tensor):
                entries.append(f"*{TRITON_TYPES[str(value.dtype).removeprefix('torch.')]}:16")
            elif isinstance(value, bool):
                entries.append("i1")
            elif isinstance(value, int):
                kind = "i32" if -(2**31) <= value < 2**31 else "i64"
                entries.append(f"{kind}:1" if value == 1 else f"{kind}:16" if value % 16 == 0 else kind)
            elif isinstance(value, float):
                entries.append("fp32")
            elif value is None:
                entries.append("None")
            else:
                raise ParameterError(f"the generated kernel takes a {type(value).__name__}, which irscope cannot pass")
        return ", ".join(entries)

    def compile(self, target: Target) -> Compiled:
        from ..config import resolve_config
        from ..triton.kernel import TritonKernel
        from ..triton.signature import parse_signature

        kernel = TritonKernel(self.jit, self.module_file, signature=parse_signature(self.signature(), self.jit))
        # The Triton kernel's own table: constexprs the signature gives values (_RDIM_SIZE_1), then the options.
        return kernel.compile(resolve_config(kernel, self.options), target)


def recorded_launch(kernel: HelionKernel, code: str) -> Launch:
    """Load ``code`` as Helion does and call its host function with a launcher that records, not launches."""
    from torch._inductor.codecache import PyCodeCache

    module = PyCodeCache.load(code)
    seen: list[tuple[Any, tuple[Any, ...], dict[str, Any]]] = []

    def launcher(triton_kernel: Any, grid: Any, *args: Any, **kwargs: Any) -> None:
        seen.append((triton_kernel, args, kwargs))

    getattr(module, kernel.name)(*kernel.example_arguments(), _launcher=launcher)
    if len(seen) != 1:
        raise ParameterError(f"its host function launched {len(seen)} kernels; irscope compiles one")
    jit, args, kwargs = seen[0]
    options = {k: kwargs[k] for k in COMPILE_OPTIONS if kwargs.get(k) is not None}
    return Launch(str(module.__file__), jit, args, options)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text[:300]}"
