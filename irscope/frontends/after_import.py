"""Run code right after a module is first imported: Python has no post-import hook.

``irscope run`` needs two: the stand-in answers ``torch.cuda`` the moment torch is imported (by the
program or by a library it imports: frontends/triton/gpu_free.py), and ``load_inline`` is wrapped the
moment ``torch.utils.cpp_extension`` is (frontends/cuda/listen.py), never before: a program that never
imports a module pays nothing for it.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable
from typing import Any


class AfterImport(importlib.abc.MetaPathFinder):
    """Runs ``then(module)`` right after ``name`` is first imported; put it first on ``sys.meta_path``.

    ``failed``: what to do when ``then`` raises (say so and let the import go on); None: the import raises.
    """

    def __init__(
        self, name: str, then: Callable[[Any], None], failed: Callable[[Exception], None] | None = None
    ) -> None:
        self.name = name
        self.then = then
        self.failed = failed

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # once; and the real finders find the real module
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenLoader(spec.loader, self)
        return spec


class _ThenLoader(importlib.abc.Loader):
    def __init__(self, loader: Any, finder: AfterImport) -> None:
        self.loader = loader
        self.finder = finder

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def __getattr__(self, name: str) -> Any:  # get_source (tracebacks), get_filename ...: the real loader's
        return getattr(self.loader, name)

    def exec_module(self, module: Any) -> None:
        self.loader.exec_module(module)
        if self.finder.failed is None:
            self.finder.then(module)
            return
        try:
            self.finder.then(module)
        except Exception as exc:
            self.finder.failed(exc)


def once_imported(name: str, then: Callable[[Any], None], failed: Callable[[Exception], None]) -> None:
    """``then(module)`` now where ``name`` is imported already, else right after it first is (``failed``: as
    ``AfterImport``'s): how a recorder wraps a function where its library defines it."""
    module = sys.modules.get(name)
    if module is not None:
        then(module)
    else:
        sys.meta_path.insert(0, AfterImport(name, then, failed))


__all__ = ["AfterImport", "once_imported"]
