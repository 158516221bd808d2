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
from .registry import frontend, frontend_infos

GLOBAL = re.compile(r"\b__global__\b")


def kernel_from_object(obj: Any, *, signature: str | None = None, name: str | None = None) -> Kernel:
    """The kernel ``obj`` is; ``UsageError`` (one line) for anything else.

    Each frontend says which objects it takes (``FrontendInfo.takes_object``), asked only where its
    language's module is imported already: no compiler is imported to say no. ``signature``: the
    argument types, in ``-S``'s syntax for the kernel's language (needed for a Triton kernel without
    a KernelSpec, and a Numba kernel whose decorator gives none). ``name``: which kernel of a source
    text holding several (CUDA C++: ``norm``, ``v1::norm``, ``scale<float>``).
    """
    infos = frontend_infos()
    for info in infos:
        if info.takes_object is None or (info.imported and info.imported not in sys.modules):
            continue
        if info.takes_object(obj):
            return frontend(info.name).from_object(obj, signature, name)
    accepted = [info.objects for info in infos if info.objects]
    listed = ", ".join(accepted[:-1]) + (f", or {accepted[-1]}" if len(accepted) > 1 else "".join(accepted))
    raise UsageError(f"irscope cannot take {_described(obj)} as a kernel; it takes {listed}")


def one_kernel_already(obj: Any, name: str | None) -> None:
    """Refuse ``name=`` for an object that is one kernel (a function), not a text of several."""
    if name is not None:
        raise UsageError(f"name= picks a kernel of a CUDA source string; {_described(obj)} is one kernel already")


def _described(obj: Any) -> str:
    """What ``obj`` is, in a few words: its type, and its name where it has one."""
    kind = type(obj)
    where = "" if kind.__module__ == "builtins" else f"{kind.__module__}."
    named = getattr(obj, "__name__", None)
    called = f" {named!r}" if isinstance(named, str) else ""
    hint = " (decorate it with @triton.jit or @cuda.jit)" if kind.__name__ == "function" else ""
    spelled = f"{where}{kind.__qualname__}"
    return f"{'an' if spelled[0].lower() in 'aeiou' else 'a'} {spelled}{called}{hint}"


def shown(text: str) -> str:
    """The start of a string, for a message: one line, short."""
    first = " ".join(text.split())
    return repr(first if len(first) <= 40 else first[:37] + "...")
