"""A kernel given as a Python object rather than named by its file: what the Python API takes.

In a notebook a kernel is born in a cell, which is no file: the object itself is
the kernel. ``kernel_from_object`` takes

- a Triton ``@triton.jit`` function, bare or under ``@triton.autotune`` /
  ``@triton.heuristics``, with a ``signature`` in ``-S``'s syntax; or an
  ``irscope.spec.KernelSpec`` holding one (example inputs: it can launch);
- a Numba ``@cuda.jit`` dispatcher (``signature``: Numba's types, as ``-S`` takes them,
  where its decorator gives none);
- CUDA C++ source as a string, as ``load_inline``'s ``cuda_sources`` takes it
  (recognised by a ``__global__`` in it; ``name`` picks one of several kernels);

and turns it into the frontend's ``Kernel``. Python kernels keep the text of the file
or cell they were defined in as their source (python_source.py), so every stage maps
back to the cell's lines; they compile in the calling process (``Kernel.compiles_here``).
"""

from __future__ import annotations

import re
import sys
from typing import Any

from ..errors import UsageError
from .base import Kernel
from .registry import frontend

GLOBAL = re.compile(r"\b__global__\b")
ACCEPTED = (
    "a @triton.jit function (autotuned or with heuristics too), an irscope KernelSpec, "
    "a Numba @cuda.jit kernel, or CUDA C++ source text holding a __global__ kernel"
)


def kernel_from_object(obj: Any, *, signature: str | None = None, name: str | None = None) -> Kernel:
    """The kernel ``obj`` is; ``UsageError`` (one line) for anything else.

    ``signature``: the argument types, in ``-S``'s syntax for the kernel's language (needed
    for a Triton kernel without a KernelSpec, and a Numba kernel whose decorator gives none).
    ``name``: which kernel of a CUDA source string (``norm``, ``v1::norm``, ``scale<float>``).
    """
    if isinstance(obj, str):
        if not GLOBAL.search(obj):
            raise UsageError(
                f"a string is taken as CUDA C++ source, and this one has no __global__ kernel ({_shown(obj)}); "
                "to name a kernel or a kernel file, pass the name to the CLI or to irscope's functions"
            )
        return frontend("cuda").from_object(obj, signature, name)
    if name is not None:
        raise UsageError(f"name= picks a kernel of a CUDA source string; {_described(obj)} is one kernel already")
    kind = _python_kind(obj)
    if kind is None:
        raise UsageError(f"irscope cannot take {_described(obj)} as a kernel; it takes {ACCEPTED}")
    return frontend(kind).from_object(obj, signature, None)


def _python_kind(obj: Any) -> str | None:
    """The frontend of a Python kernel object, asked only of languages already imported (a Triton
    object exists only once ``triton`` is imported), so that no compiler is imported to say no."""
    from ..spec import KernelSpec

    if isinstance(obj, KernelSpec) or "triton" in sys.modules:
        from .triton.objects import is_triton_object

        if is_triton_object(obj):
            return "triton"
    if "numba.cuda" in sys.modules:
        from .numba.kernel import is_dispatcher

        if is_dispatcher(obj):
            return "numba"
    return None


def _described(obj: Any) -> str:
    """What ``obj`` is, in a few words: its type, and its name where it has one."""
    kind = type(obj)
    where = "" if kind.__module__ == "builtins" else f"{kind.__module__}."
    named = getattr(obj, "__name__", None)
    called = f" {named!r}" if isinstance(named, str) else ""
    hint = " (decorate it with @triton.jit or @cuda.jit)" if kind.__name__ == "function" else ""
    spelled = f"{where}{kind.__qualname__}"
    return f"{'an' if spelled[0].lower() in 'aeiou' else 'a'} {spelled}{called}{hint}"


def _shown(text: str) -> str:
    """The start of a string, for a message: one line, short."""
    first = " ".join(text.split())
    return repr(first if len(first) <= 40 else first[:37] + "...")
