"""The numba frontend itself (described in this package's ``FRONTEND``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..base import Frontend, KernelHandle, claims_python_file
from ..objects import one_kernel_already
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
        one_kernel_already(obj, name)
        return kernel_from_dispatcher(obj, signature)

    def claims(self, path: Path, name: str | None) -> bool:
        return claims_python_file(path, name, cuda_jit_names)

    def builtin(self, directory: Path) -> list[NumbaKernel]:
        """``kernels/numba/``: apart from the Triton files, which irscope imports to list (Numba is optional)."""
        out: list[NumbaKernel] = []
        for path in sorted((directory / "numba").glob("*.py")):
            out.extend(kernel_in_file(path, name, None) for name in cuda_jit_names(path))
        return out
