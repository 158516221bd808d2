"""The Triton frontend: ``@triton.jit`` kernels in ``.py`` files, compiled by Triton itself."""

from __future__ import annotations

from pathlib import Path

from ..base import Frontend, KernelHandle
from .kernel import SignatureArg, TritonKernel, builtin_kernels, kernel_in_file, kernel_names, kernel_with_signature
from .kernel import signature_from_json


class TritonFrontend(Frontend):
    name = "triton"
    suffixes = (".py",)

    def kernel_names(self, path: Path) -> list[str]:
        return kernel_names(path)

    def resolve(self, path: Path, name: str | None, signature: str | None = None) -> TritonKernel:
        return kernel_in_file(path, name, signature)

    def load(self, handle: KernelHandle) -> TritonKernel:
        stored = handle.extra.get("signature")
        if stored is not None:
            return kernel_with_signature(Path(handle.file), handle.name, signature_from_json(stored))
        return kernel_in_file(Path(handle.file), handle.name, None)

    def builtin(self, directory: Path) -> list[TritonKernel]:
        return builtin_kernels(directory)


__all__ = ["SignatureArg", "TritonFrontend", "TritonKernel"]
