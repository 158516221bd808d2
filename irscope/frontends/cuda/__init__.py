"""The CUDA C++ frontend: ``__global__`` kernels in ``.cu`` files, compiled by nvcc to PTX, a cubin and SASS.

The PTX's ``.loc`` lines and the cubin's line table (``-lineinfo``) map every
instruction back to its line of the ``.cu`` file, as for a Triton kernel's Python.
A Python file's ``load_inline`` CUDA strings are kernels too (inline.py), mapped to
their lines of the ``.py``; so is CUDA C++ handed over as a string (``kernel_from_text``:
the Python API), written to the cache as a ``.cu`` file of its own.

A ``.cu`` file, and anything beside it, is data: its text is read and compiled, and a
``<stem>_spec.py`` beside it (Python: example inputs, grid, reference) is imported only
when the user names it (``--spec``), or for irscope's own built-in kernels.

The modules, ``source.py`` (the ``__global__`` kernels and ``#ifndef``/``#define`` tunable macros of
a ``.cu`` file, read from its text), ``compile.py`` (one nvcc run per config: PTX, cubin, ptxas's
report for the kernel's mangled entry; nvcc hands its arguments to a shell, so it is given only
fixed names in a temporary folder: a ``kernel.cu`` that ``#include``s the kernel's file and a header
of ``#define``s), ``tokens.py`` (every macro value and flag checked as a C token, a number,
true/false or an identifier, before it is written there), ``inline.py`` (a Python file's
``load_inline`` CUDA strings, read with ``ast``, device code only, numbered as in the ``.py``; a
frontend ``claims`` such a kernel though Triton owns ``.py``), ``kernel.py`` (``CudaKernel``).
Built-in ``.cu`` kernels live in ``kernels/`` beside the Triton ones, each with its ``CudaSpec`` in
``<stem>_spec.py`` (only a built-in's is found by its name; any other spec file is Python the user
names with ``--spec``, carried in the kernel's handle to its workers); Numba built-ins in
``kernels/numba/`` (apart, because irscope imports every top-level ``kernels/*.py`` to list the
Triton ones, and Numba is optional). Running them (``frontends/cubin.py``, shared by both): a
``CudaSpec`` (spec.py) gives inputs, grid, reference and the launch shape (``block``, an option); on
the GPU the kernel is compiled for the device and its cubin launched through the driver
(``nvidia/launch.py``: arguments packed as the PTX entry declares them, Numba arrays expanded to
Numba's parameters). Example tensors for any spec: ``frontends/examples.py``. ``frontends/numba/``:
``@cuda.jit`` functions claimed by name in ``.py`` files (found with ``ast``), compiled by
numba-cuda's ``compile_ptx`` and the toolkit's ptxas (``kernel.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import UsageError
from ..base import Frontend, KernelHandle
from .inline import inline_kernel_names, mentions_load_inline, python_functions
from .kernel import CudaKernel, inline_kernel, kernel_from_text, kernel_in_file, read_source
from .source import kernels


class CudaFrontend(Frontend):
    name = "cuda"
    suffixes = (".cu",)

    def kernel_names(self, path: Path) -> list[str]:
        return [name for k in kernels(read_source(path)) for name in k.openable]

    def resolve(self, path: Path, name: str | None, signature: str | None = None) -> CudaKernel:
        if path.suffix == ".py":
            return inline_kernel(path, name)
        return kernel_in_file(path, name)

    def load(self, handle: KernelHandle) -> CudaKernel:
        kernel = self.resolve(Path(handle.file), handle.name)
        spec = handle.extra.get("spec_file")
        return kernel.with_spec_file(Path(spec)) if isinstance(spec, str) else kernel

    def from_object(self, obj: Any, signature: str | None, name: str | None) -> CudaKernel:
        if signature is not None:
            raise UsageError("a CUDA C++ kernel's argument types are in its source: signature= does not apply")
        return kernel_from_text(obj, name)

    def claims(self, path: Path, name: str | None) -> bool:
        """A ``load_inline`` kernel of the file; or, in a file that names ``load_inline`` at all, no name or
        any name that is not a Python function of the file (a Triton or Numba kernel the user means): read
        with ``ast`` or refused by ``resolve``, never imported to look."""
        if path.suffix != ".py" or not mentions_load_inline(path):  # every Triton file is asked: no parse for it
            return False
        return name is None or name in inline_kernel_names(path) or name not in python_functions(path)

    def builtin(self, directory: Path) -> list[CudaKernel]:
        out = []
        for path in sorted(directory.glob("*.cu")):
            out.extend(CudaKernel(str(path), name) for k in kernels(read_source(path)) for name in k.openable)
        return out


__all__ = ["CudaFrontend", "CudaKernel"]
