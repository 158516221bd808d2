"""How a kernel file tells irscope what it needs to compile and run a kernel.

A kernel file keeps its ``@triton.jit`` function as it is and adds one
``KernelSpec`` beside it::

    square = KernelSpec(
        square_kernel,
        sizes=dict(n_rows=4096, n_cols=781),
        tensors=dict(x=Tensor("float32", "n_rows, n_cols"),
                     y=Tensor("float32", "n_rows, n_cols", output=True)),
        args=lambda k: (k.y, k.x, k.x.stride(0), k.y.stride(0), k.n_cols),
        grid=lambda k: (k.n_rows,),
        constexprs=dict(BLOCK_SIZE=Tunable(1024, pow2(128, 8192))),
        num_warps=Tunable(4, (1, 4, 8)),
        reference=lambda k: k.x * k.x,
        flops=lambda k: k.n_rows * k.n_cols,
    )

Every callable takes one namespace ``k`` holding the sizes, the config (constexprs
and launch options) and, where they exist, the tensors. This module must not
import torch: specs are read by commands that never run a kernel.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from .errors import ParameterError


@dataclass(frozen=True)
class DType:
    """One element type, by every name irscope reads it under: the one table of them (DTYPES)."""

    name: str  # torch's: "float16", what a KernelSpec's Tensor and a recorded launch say
    bytes: int
    short: str  # as Inductor's inputs write it (f16[4096,4096]); "" where there is none
    triton: str  # Triton's type name (fp16: a pointer is *fp16)
    mlir: str  # as TTIR writes it (!tt.ptr<f16>); "" where another row's is the same (uint8: i8)
    tolerance: tuple[float, float] | None = None  # default correctness tolerance (atol, rtol) of an output


DTYPES = {
    d.name: d
    for d in (
        DType("float64", 8, "f64", "fp64", "f64", (1e-9, 1e-7)),
        DType("float32", 4, "f32", "fp32", "f32", (1e-5, 1e-5)),
        DType("float16", 2, "f16", "fp16", "f16", (1e-2, 1e-2)),
        DType("bfloat16", 2, "bf16", "bf16", "bf16", (2e-2, 2e-2)),
        DType("int64", 8, "i64", "i64", "i64"),
        DType("int32", 4, "i32", "i32", "i32"),
        DType("int16", 2, "i16", "i16", "i16"),
        DType("int8", 1, "i8", "i8", "i8"),
        DType("uint8", 1, "u8", "u8", ""),
        DType("bool", 1, "bool", "i1", "i1"),
        DType("float8_e4m3fn", 1, "", "fp8e4nv", "f8E4M3FN", (1e-1, 1e-1)),
        DType("float8_e5m2", 1, "", "fp8e5", "f8E5M2", (2e-1, 2e-1)),
        DType("float8_e4m3fnuz", 1, "", "fp8e4b8", "f8E4M3FNUZ", (1e-1, 1e-1)),
        DType("float8_e5m2fnuz", 1, "", "fp8e5b16", "f8E5M2FNUZ", (2e-1, 2e-1)),
    )
}
DTYPE_BYTES = {d.name: d.bytes for d in DTYPES.values()}
# Default correctness tolerances (atol, rtol) per output dtype.
DEFAULT_TOLERANCE = {d.name: d.tolerance for d in DTYPES.values() if d.tolerance is not None}


def parse_value(name: str, text: str, like: Any = None, text_option: bool = False) -> Any:
    """Parse a -c value; follow the type of ``like`` (the default) when there is one; ``text_option``: keep it
    as typed (an option whose value is text, such as which Triton compiles: ``OptionSpec.text``)."""
    text = text.strip()
    if isinstance(like, str) or text_option:  # a text setting (a block shape "16x16", a release): its kernel checks it
        return text
    if isinstance(like, bool) or (like is None and text.lower() in ("true", "false")):
        if text.lower() in ("true", "1", "false", "0"):
            return text.lower() in ("true", "1")
        raise ParameterError(f"{name} expects true or false, got {text!r}")
    if isinstance(like, int) or like is None:
        try:
            return int(text, 0)
        except ValueError:
            if like is not None:
                raise ParameterError(f"{name} expects an integer, got {text!r}") from None
    try:
        return float(text)
    except ValueError:
        if isinstance(like, str):
            return text
        raise ParameterError(f"{name} expects a number, got {text!r}") from None


def pow2(lo: int, hi: int) -> tuple[int, ...]:
    """Every power of two from ``lo`` to ``hi`` inclusive."""
    return tuple(2**e for e in range(int(math.log2(lo)), int(math.log2(hi)) + 1))


@dataclass(frozen=True)
class Tunable:
    """A setting with a default and the values a sweep tries."""

    default: Any
    sweep: Sequence[Any] = ()

    def values(self) -> tuple[Any, ...]:
        return tuple(self.sweep) or (self.default,)


@dataclass(frozen=True)
class Tensor:
    """An example tensor: dtype, shape in terms of sizes, and how to fill it.

    ``shape`` is a comma-separated list of size names or integers ("n_rows, 64").
    ``init`` is "randn", "rand", "zeros", "ones" or "arange"; outputs are allocated
    empty and poisoned before a correctness check, so ``init`` does not apply.
    ``offset`` (elements, or a size name) starts the tensor that far past an
    aligned allocation, to show what misalignment does to the generated code.
    """

    dtype: str
    shape: str
    output: bool = False
    init: str = "randn"
    offset: int | str = 0

    def __post_init__(self) -> None:
        if self.dtype not in DTYPE_BYTES:
            raise ParameterError(f"unknown dtype {self.dtype!r}; known: {', '.join(DTYPE_BYTES)}")

    def dims(self, sizes: Mapping[str, int]) -> tuple[int, ...]:
        out = []
        for part in (p.strip() for p in self.shape.split(",") if p.strip()):
            if part.lstrip("-").isdigit():
                out.append(int(part))
            elif part in sizes:
                out.append(int(sizes[part]))
            else:
                raise ParameterError(f"tensor shape names unknown size {part!r}")
        return tuple(out)

    def offset_in(self, sizes: Mapping[str, int]) -> int:
        return int(sizes[self.offset]) if isinstance(self.offset, str) else int(self.offset)

    def nbytes(self, sizes: Mapping[str, int]) -> int:
        return math.prod(self.dims(sizes)) * DTYPE_BYTES[self.dtype]


class _Examples:
    """What every spec says the same way: example tensors, sizes, the reference and the figures.

    (KernelSpec for Triton kernels and CudaSpec for CUDA C++ and Numba kernels both
    carry ``sizes``, ``tensors``, ``reference``, ``flops``, ``bytes_moved`` and ``tolerance``.)
    """

    sizes: Mapping[str, int]
    tensors: Mapping[str, Tensor]
    flops: Callable[[SimpleNamespace], float] | None
    bytes_moved: Callable[[SimpleNamespace], float] | None
    tolerance: tuple[float, float] | None

    def namespace(self, values: Mapping[str, Any], tensors: Mapping[str, Any] | None = None) -> SimpleNamespace:
        return SimpleNamespace(**values, **(tensors or {}))

    def outputs(self) -> list[str]:
        return [name for name, t in self.tensors.items() if t.output]

    def bytes_for(self, values: Mapping[str, Any]) -> float:
        if self.bytes_moved is not None:
            return float(self.bytes_moved(self.namespace(values)))
        sizes = {k: values[k] for k in self.sizes}
        return float(sum(t.nbytes(sizes) for t in self.tensors.values()))

    def flops_for(self, values: Mapping[str, Any]) -> float | None:
        return None if self.flops is None else float(self.flops(self.namespace(values)))

    def tolerance_for(self, dtype: str) -> tuple[float, float]:
        return self.tolerance or DEFAULT_TOLERANCE.get(dtype, (1e-5, 1e-5))


@dataclass(frozen=True)
class KernelSpec(_Examples):
    """Everything irscope needs to compile, check and time one Triton kernel.

    ``args`` returns the kernel's non-constexpr arguments in order; constexprs are
    passed by name from the config, as in ``kernel[grid](*args, BLOCK_SIZE=...)``.
    ``reference`` returns what the output tensors should hold (one tensor, or a
    tuple in the order the outputs are declared). ``bytes_moved`` defaults to every
    tensor read or written once.
    """

    kernel: Any  # a triton JITFunction
    args: Callable[[SimpleNamespace], Sequence[Any]]
    grid: Callable[[SimpleNamespace], tuple[int, ...]]
    sizes: Mapping[str, int] = field(default_factory=dict)
    tensors: Mapping[str, Tensor] = field(default_factory=dict)
    constexprs: Mapping[str, Tunable] = field(default_factory=dict)
    num_warps: Tunable = Tunable(4, (1, 2, 4, 8))
    num_stages: Tunable = Tunable(3)
    reference: Callable[[SimpleNamespace], Any] | None = None
    flops: Callable[[SimpleNamespace], float] | None = None
    bytes_moved: Callable[[SimpleNamespace], float] | None = None
    tolerance: tuple[float, float] | None = None  # (atol, rtol); default by output dtype
    description: str = ""

    @property
    def name(self) -> str:
        return self.kernel.fn.__name__

    def options(self) -> dict[str, Tunable]:
        return {"num_warps": self.num_warps, "num_stages": self.num_stages}

    def parameters(self) -> dict[str, Tunable]:
        """Every name -c accepts for this kernel, with its default and sweep."""
        sizes = {k: Tunable(v) for k, v in self.sizes.items()}
        return {**self.constexprs, **self.options(), **sizes}


def kernel_specs(namespace: Mapping[str, Any]) -> Iterable[KernelSpec]:
    """The specs declared in a module's globals."""
    return (v for v in namespace.values() if isinstance(v, KernelSpec))


# ------------------------------------------------------------------ CUDA C++ and Numba kernels

MAX_THREADS_PER_BLOCK = 1024


def parse_block(text: Any) -> tuple[int, int, int]:
    """Threads per block, ``"256"``, ``"16x16"`` or ``"8x8x4"``, as ``(x, y, z)``."""
    parts = str(text).lower().replace("*", "x").split("x")
    try:
        dims = [int(p) for p in parts]
    except ValueError:
        dims = []
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims) or math.prod(dims) > MAX_THREADS_PER_BLOCK:
        raise ParameterError(
            f"block must be threads per block as X, XxY or XxYxZ, at most "
            f"{MAX_THREADS_PER_BLOCK} in all (16x16, 32x8, 256), got {text!r}"
        )
    return tuple(dims + [1] * (3 - len(dims)))  # type: ignore[return-value]


@dataclass(frozen=True)
class CudaSpec(_Examples):
    """Everything irscope needs to check and time a CUDA C++ or Numba kernel on a GPU.

    ``kernel``: the ``__global__`` function's name (CUDA C++, in ``source``, a ``.cu``
    or ``load_inline`` file named relative to the spec's own file) or the ``@cuda.jit``
    function (Numba). ``block`` is the launch shape, threads per block as ``"16x16"``;
    its sweep is what ``-s block=16x16,32x8,256`` tries by default. ``grid`` returns
    blocks per grid; the namespace ``k`` it gets also holds ``block_x``, ``block_y`` and
    ``block_z``. ``macros`` give sweeps to the file's tunable macros (``#ifndef TILE``).
    ``args`` returns the kernel's arguments in order: tensors (passed as their data
    pointers, or as Numba arrays) and scalars (typed as the kernel's PTX declares them)::

        square_matrix = CudaSpec(
            "square_matrix_kernel", source="square_matrix.cu",
            sizes=dict(height=4096, width=781),
            tensors=dict(matrix=Tensor("float32", "height, width"),
                         result=Tensor("float32", "height, width", output=True)),
            args=lambda k: (k.matrix, k.result, k.width, k.height),
            block=Tunable("16x16", ("16x16", "32x8", "256x1")),
            grid=lambda k: (cdiv(k.width, k.block_x), cdiv(k.height, k.block_y)),
            reference=lambda k: k.matrix * k.matrix,
        )
    """

    kernel: Any
    args: Callable[[SimpleNamespace], Sequence[Any]]
    grid: Callable[[SimpleNamespace], tuple[int, ...]]
    block: Tunable = Tunable("256")
    source: str | None = None
    sizes: Mapping[str, int] = field(default_factory=dict)
    tensors: Mapping[str, Tensor] = field(default_factory=dict)
    macros: Mapping[str, Tunable] = field(default_factory=dict)
    reference: Callable[[SimpleNamespace], Any] | None = None
    flops: Callable[[SimpleNamespace], float] | None = None
    bytes_moved: Callable[[SimpleNamespace], float] | None = None
    tolerance: tuple[float, float] | None = None
    description: str = ""

    @property
    def name(self) -> str:
        if isinstance(self.kernel, str):
            return self.kernel
        return getattr(getattr(self.kernel, "py_func", self.kernel), "__name__", str(self.kernel))

    def namespace(self, values: Mapping[str, Any], tensors: Mapping[str, Any] | None = None) -> SimpleNamespace:
        x, y, z = parse_block(values.get("block", self.block.default))
        return SimpleNamespace(**values, block_x=x, block_y=y, block_z=z, **(tensors or {}))


# Options a frontend adds, and how a value is checked (a config with a bad one is refused up front).


def cdiv(a: int, b: int) -> int:
    """Blocks of ``b`` that cover ``a``."""
    return -(-int(a) // int(b))


def cuda_specs(namespace: Mapping[str, Any]) -> Iterable[CudaSpec]:
    """The CUDA C++ and Numba specs declared in a module's globals."""
    return (v for v in namespace.values() if isinstance(v, CudaSpec))
