"""The cuda frontend itself (described in this package's ``FRONTEND``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import UsageError
from ..base import Frontend, KernelHandle
from ..objects import GLOBAL, shown
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
        if not GLOBAL.search(obj):
            raise UsageError(
                f"a string is taken as CUDA C++ source, and this one has no __global__ kernel ({shown(obj)}); "
                "to name a kernel or a kernel file, pass the name to the CLI or to irscope's functions"
            )
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
        out: list[CudaKernel] = []
        for path in sorted(directory.glob("*.cu")):
            out.extend(CudaKernel(str(path), name) for k in kernels(read_source(path)) for name in k.openable)
        return out
