"""The Triton frontend itself: kernel files, built-ins, handles, objects and rebuilt sources -> ``TritonKernel``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import KernelFileError, ParameterError
from ..base import Frontend, KernelHandle
from ..objects import one_kernel_already
from .kernel import TritonKernel
from .kernel_files import builtin_kernels, kernel_in_file, kernel_in_module, kernel_names, kernel_with_signature
from .objects import kernel_from_object
from .rebuild import rebuilt_kernel
from .signature import signature_from_json
from .versions import check_supported


class TritonFrontend(Frontend):
    name = "triton"
    suffixes = (".py",)

    def __init__(self) -> None:
        check_supported()  # a Triton irscope does not support: every command says so, in one line (exit 2)

    def kernel_names(self, path: Path) -> list[str]:
        return kernel_names(path)

    def resolve(self, path: Path, name: str | None, signature: str | None = None) -> TritonKernel:
        return kernel_in_file(path, name, signature)

    def resolve_module(self, module: str, name: str | None, signature: str | None = None) -> TritonKernel:
        """A kernel of an installed package, named ``package.module:NAME`` (imported by that name)."""
        return kernel_in_module(module, name, signature)

    def load(self, handle: KernelHandle) -> TritonKernel:
        stored = handle.extra.get("signature")
        module = handle.extra.get("module")
        if isinstance(module, str):  # a kernel the user named by its module: a worker imports it the same way
            return kernel_in_module(module, handle.name, None, signature_from_json(stored) if stored else None)
        if handle.extra.get("source_text") is not None:  # rebuilt from text (a log's, a session's), never imported
            return rebuilt_from_handle(handle)
        if stored is not None:
            return kernel_with_signature(Path(handle.file), handle.name, signature_from_json(stored))
        return kernel_in_file(Path(handle.file), handle.name, None)

    def from_object(self, obj: Any, signature: str | None, name: str | None) -> TritonKernel:
        one_kernel_already(obj, name)
        return kernel_from_object(obj, signature)

    def builtin(self, directory: Path) -> list[TritonKernel]:
        return builtin_kernels(directory)

    def builtin_named(self, directory: Path, name: str) -> list[TritonKernel]:
        return builtin_kernels(directory, name)

    def rebuild(self, handle: KernelHandle) -> TritonKernel | None:
        return self.load(handle) if "source_text" in handle.extra else None


def rebuilt_from_handle(handle: KernelHandle, kind: type[TritonKernel] = TritonKernel) -> TritonKernel:
    """A stored kernel rebuilt again from its stored text (``handle.extra["source_text"]``), running none of it;
    ``kind``: GluonKernel for a Gluon session's (its frontend passes it)."""
    text, stored = handle.extra.get("source_text"), handle.extra.get("signature")
    if not isinstance(text, str):
        raise KernelFileError(f"the stored source of {handle.name} is not text")
    if stored is None:
        raise ParameterError(f"the stored kernel {handle.name} has source text but no signature")
    kernel = rebuilt_kernel(
        text,
        handle.file,
        handle.name,
        signature_from_json(stored),
        inductor=handle.extra.get("inductor") is True,
        recorded_heuristics=handle.extra.get("heuristics") == "recorded",
        closure=handle.extra.get("closure") or None,
        kind=kind,
    )
    launches = handle.extra.get("launches")
    if isinstance(launches, dict):  # data: replay.why_not checks each before it is used
        kernel.recorded_launches = {k: v for k, v in launches.items() if isinstance(v, dict)}
    return kernel
