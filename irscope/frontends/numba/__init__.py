"""The Numba frontend: ``@cuda.jit`` kernels in Python files, compiled by numba-cuda to PTX, then by ptxas.

Numba is the Python way to write CUDA kernels the lecture names. Without a GPU,
``numba.cuda.compile_ptx`` compiles a kernel for a chosen compute capability
(numba-cuda and the NVRTC wheel; libNVVM from the CUDA toolkit), with ``.loc``
lines that name the Python file; the CUDA toolkit's ptxas makes the cubin (its PTX
is newer than Triton's bundled ptxas reads), and SASS comes from it as for any cubin.
A Python file belongs to Triton by its suffix; a ``@cuda.jit`` function is claimed
by name, found with ``ast`` before anything is imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..base import Frontend, KernelHandle
from .kernel import NumbaKernel, cuda_jit_names, kernel_from_dispatcher, kernel_in_file


class NumbaFrontend(Frontend):
    name = "numba"
    suffixes = ()  # .py files are Triton's: Numba kernels are claimed by name

    def kernel_names(self, path: Path) -> list[str]:
        return cuda_jit_names(path)

    def resolve(self, path: Path, name: str | None, signature: str | None = None) -> NumbaKernel:
        return kernel_in_file(path, name, signature)

    def load(self, handle: KernelHandle) -> NumbaKernel:
        return kernel_in_file(Path(handle.file), handle.name, handle.extra.get("signature"))

    def from_object(self, obj: Any, signature: str | None, name: str | None) -> NumbaKernel:
        return kernel_from_dispatcher(obj, signature)

    def claims(self, path: Path, name: str | None) -> bool:
        return path.suffix == ".py" and name in cuda_jit_names(path)

    def builtin(self, directory: Path) -> list[NumbaKernel]:
        """``kernels/numba/``: apart from the Triton files, which irscope imports to list (Numba is optional)."""
        out = []
        for path in sorted((directory / "numba").glob("*.py")):
            out.extend(kernel_in_file(path, name, None) for name in cuda_jit_names(path))
        return out


__all__ = ["NumbaFrontend", "NumbaKernel"]
