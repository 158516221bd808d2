"""The CuTe DSL frontend itself (described in this package's ``FRONTEND``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..base import Frontend, KernelHandle, claims_python_file
from ..objects import one_kernel_already
from .kernel import CuteKernel, kernel_from_function, kernel_in_file
from .source import cute_jit_names


class CuteFrontend(Frontend):
    name = "cute"
    suffixes = ()  # .py files are Triton's: a @cute.jit function is claimed by name

    def kernel_names(self, path: Path) -> list[str]:
        return cute_jit_names(path)

    def resolve(self, path: Path, name: str | None, signature: str | None = None) -> CuteKernel:
        return kernel_in_file(path, name, signature)

    def load(self, handle: KernelHandle) -> CuteKernel:
        return kernel_in_file(Path(handle.file), handle.name, handle.extra.get("signature"))

    def from_object(self, obj: Any, signature: str | None, name: str | None) -> CuteKernel:
        one_kernel_already(obj, name)
        return kernel_from_function(obj, signature)

    def claims(self, path: Path, name: str | None) -> bool:
        return claims_python_file(path, name, cute_jit_names)
