"""The CUDA C++ frontend: ``__global__`` kernels in ``.cu`` files, compiled by nvcc to PTX, a cubin and SASS.

The PTX's ``.loc`` lines and the cubin's line table (``-lineinfo``) map every
instruction back to its line of the ``.cu`` file, as for a Triton kernel's Python.
A Python file's ``load_inline`` CUDA strings are kernels too (inline.py), mapped to
their lines of the ``.py``.
"""

from __future__ import annotations

from pathlib import Path

from ..base import Frontend, KernelHandle
from .inline import inline_kernel_names
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
        return self.resolve(Path(handle.file), handle.name)

    def claims(self, path: Path, name: str) -> bool:
        return path.suffix == ".py" and name in inline_kernel_names(path)

    def builtin(self, directory: Path) -> list[CudaKernel]:
        out = []
        for path in sorted(directory.glob("*.cu")):
            out.extend(CudaKernel(str(path), k.name) for k in kernels(read_source(path)))
        return out


__all__ = ["CudaFrontend", "CudaKernel"]
