"""The CUDA C++ frontend: ``__global__`` kernels in ``.cu`` files, compiled by nvcc to PTX, a cubin and SASS.

The PTX's ``.loc`` lines and the cubin's line table (``-lineinfo``) map every
instruction back to its line of the ``.cu`` file, as for a Triton kernel's Python.
A Python file's ``load_inline`` CUDA strings are kernels too (inline.py), mapped to
their lines of the ``.py``.

A ``.cu`` file, and anything beside it, is data: its text is read and compiled, and a
``<stem>_spec.py`` beside it (Python: example inputs, grid, reference) is imported only
when the user names it (``--spec``), or for irscope's own built-in kernels.
"""

from __future__ import annotations

from pathlib import Path

from ..base import Frontend, KernelHandle
from .inline import inline_kernel_names, python_functions, unreadable_sources
from .kernel import CudaKernel, inline_kernel, kernel_in_file, read_source
from .source import kernels


class CudaFrontend(Frontend):
    name = "cuda"
    suffixes = (".cu",)

    def kernel_names(self, path: Path) -> list[str]:
        return [k.name for k in kernels(read_source(path))]

    def resolve(self, path: Path, name: str | None, signature: str | None = None) -> CudaKernel:
        if path.suffix == ".py":
            return inline_kernel(path, name)
        return kernel_in_file(path, name)

    def load(self, handle: KernelHandle) -> CudaKernel:
        kernel = self.resolve(Path(handle.file), handle.name)
        spec = handle.extra.get("spec_file")
        return kernel.with_spec_file(Path(spec)) if isinstance(spec, str) else kernel

    def claims(self, path: Path, name: str) -> bool:
        """A ``load_inline`` kernel of the file; or, where its CUDA sources cannot be read without running it,
        any name that is not a Python function of the file: refused by ``resolve``, never imported to look."""
        if path.suffix != ".py":
            return False
        return name in inline_kernel_names(path) or (unreadable_sources(path) and name not in python_functions(path))

    def builtin(self, directory: Path) -> list[CudaKernel]:
        out = []
        for path in sorted(directory.glob("*.cu")):
            out.extend(CudaKernel(str(path), k.name) for k in kernels(read_source(path)))
        return out


__all__ = ["CudaFrontend", "CudaKernel"]
