"""The Helion frontend itself (described in this package's ``FRONTEND``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import KernelFileError
from ..base import Frontend, KernelHandle, choose_kernel, claims_python_file
from ..objects import one_kernel_already
from .kernel import HelionKernel
from .source import helion_kernel_names


class HelionFrontend(Frontend):
    name = "helion"
    suffixes = ()  # .py files are Triton's: a @helion.kernel function is claimed by name

    def kernel_names(self, path: Path) -> list[str]:
        return helion_kernel_names(path)

    def claims(self, path: Path, name: str | None) -> bool:
        return claims_python_file(path, name, helion_kernel_names)

    def resolve(self, path: Path, name: str | None, signature: str | None = None) -> HelionKernel:
        chosen = choose_kernel(helion_kernel_names(path), name, path, "@helion.kernel function")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise KernelFileError(f"cannot read {path}: {exc}") from None
        return HelionKernel(str(path), chosen, signature or "", text)

    def load(self, handle: KernelHandle) -> HelionKernel:
        return self.resolve(Path(handle.file), handle.name, handle.extra.get("signature"))

    def from_object(self, obj: Any, signature: str | None, name: str | None) -> HelionKernel:
        import inspect

        one_kernel_already(obj, name)
        fn = obj.fn
        file = inspect.getsourcefile(fn) or "<unknown>"
        text = Path(file).read_text(encoding="utf-8") if Path(file).is_file() else inspect.getsource(fn)
        return HelionKernel(file, fn.__name__, signature or "", text, function=obj)
