"""The TileLang frontend itself (described in this package's ``FRONTEND``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..base import Frontend, KernelHandle, claims_python_file
from ..objects import one_kernel_already
from .kernel import TileLangKernel, kernel_from_object, kernel_in_file
from .source import tilelang_names


class TileLangFrontend(Frontend):
    name = "tilelang"
    suffixes = ()  # .py files are Triton's: a TileLang kernel is claimed by name

    def kernel_names(self, path: Path) -> list[str]:
        return tilelang_names(path)

    def resolve(self, path: Path, name: str | None, signature: str | None = None) -> TileLangKernel:
        return kernel_in_file(path, name)

    def load(self, handle: KernelHandle) -> TileLangKernel:
        return kernel_in_file(Path(handle.file), handle.name)

    def from_object(self, obj: Any, signature: str | None, name: str | None) -> TileLangKernel:
        one_kernel_already(obj, name)
        return kernel_from_object(obj)

    def claims(self, path: Path, name: str | None) -> bool:
        return claims_python_file(path, name, tilelang_names)
