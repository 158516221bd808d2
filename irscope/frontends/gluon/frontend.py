"""The Gluon frontend itself: ``@gluon.jit`` functions in ``.py`` files and as objects -> ``GluonKernel``.

A ``.py`` file is offered to Triton by its suffix; a Gluon kernel is claimed by name, found with ``ast``
before the file runs (``gluon_jit_names``), as Numba's are. Asking costs no import of Triton's modules (the
Triton frontend's, half a second here, are imported by the methods that compile): every kernel file is asked.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base import Frontend, KernelHandle, claims_python_file
from ..objects import one_kernel_already

if TYPE_CHECKING:
    from .kernel import GluonKernel

GLUON_MODULE = "triton.experimental.gluon"


class GluonFrontend(Frontend):
    name = "gluon"
    suffixes = ()  # .py files are Triton's: Gluon kernels are claimed by name

    def kernel_names(self, path: Path) -> list[str]:
        return gluon_jit_names(path)

    def claims(self, path: Path, name: str | None) -> bool:
        return claims_python_file(path, name, gluon_jit_names)

    def resolve(self, path: Path, name: str | None, signature: str | None = None) -> GluonKernel:
        from ..triton.kernel_files import kernel_in_file
        from .kernel import GluonKernel

        if name is None:
            names = gluon_jit_names(path)
            name = names[0] if len(names) == 1 else None
        return _gluon(kernel_in_file(path, name, signature, GluonKernel))

    def load(self, handle: KernelHandle) -> GluonKernel:
        from ..triton.kernel_files import kernel_in_file, kernel_with_signature
        from ..triton.signature import signature_from_json
        from .kernel import GluonKernel

        if handle.extra.get("source_text") is not None:  # irscope run's, a session's: rebuilt again, never imported
            from ..triton.frontend import rebuilt_from_handle

            return _gluon(rebuilt_from_handle(handle, GluonKernel))
        stored = handle.extra.get("signature")
        if stored is not None:
            return _gluon(
                kernel_with_signature(Path(handle.file), handle.name, signature_from_json(stored), GluonKernel)
            )
        return _gluon(kernel_in_file(Path(handle.file), handle.name, None, GluonKernel))

    def rebuild(self, handle: KernelHandle) -> GluonKernel | None:
        return self.load(handle) if "source_text" in handle.extra else None

    def from_object(self, obj: Any, signature: str | None, name: str | None) -> GluonKernel:
        from ..triton.objects import kernel_from_object
        from .kernel import GluonKernel

        one_kernel_already(obj, name)
        return _gluon(kernel_from_object(obj, signature, GluonKernel))


def _gluon(kernel: Any) -> GluonKernel:
    from ..triton.versions import check_supported
    from .kernel import GluonKernel

    check_supported()  # a Triton irscope does not support: one line (exit 2), as the Triton frontend says it
    assert isinstance(kernel, GluonKernel)
    return kernel


def gluon_jit_names(path: Path) -> list[str]:
    """The functions of ``path`` decorated with ``@gluon.jit`` (any alias of ``triton.experimental.gluon``, or its
    ``jit`` imported by name), read with ``ast``: the file does not run."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return []
    modules, jits = _gluon_aliases(tree)
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and any(_is_gluon_jit(d, modules, jits) for d in node.decorator_list)
    ]


def _gluon_aliases(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The names the file gives Gluon's module (``gluon``) and its ``jit`` (``jit``)."""
    modules: set[str] = set()
    jits: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level:
            for alias in node.names:
                if node.module == "triton.experimental" and alias.name == "gluon":
                    modules.add(alias.asname or "gluon")
                elif node.module == GLUON_MODULE and alias.name == "jit":
                    jits.add(alias.asname or "jit")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == GLUON_MODULE and alias.asname:
                    modules.add(alias.asname)
    return modules, jits


def _is_gluon_jit(decorator: ast.expr, modules: set[str], jits: set[str]) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Name):
        return target.id in jits
    if isinstance(target, ast.Attribute) and target.attr == "jit":
        return ast.unparse(target.value) in modules | {GLUON_MODULE}
    return False
