"""Inside a program ``irscope run`` runs: each TileLang compile it makes, a ``@tilelang.jit`` factory's or a
``tilelang.compile(prim_func, ...)``.

Every compile of a ``@tilelang.jit`` factory goes through ``JITImpl.compile(*args, **kwargs)`` (its call, its
``get_kernel_source``), and every compile of all through ``tilelang.jit.compile``, which ``tilelang.compile``
is: both are wrapped once ``tilelang`` is imported (compile_record.py says why no TileLang hook serves),
and a factory's compile is recorded once, as the factory's. The recorded kernel is the frontend's: a
factory's ``kernel_from_object`` with the factory's arguments as the config (``-c N=4096``), or the
PrimFunc the program handed ``tilelang.compile`` compiled as it is (no config), named after the
top-level function of its file that made it (its span's line); the pass configs and nvcc flags are the
program's, and the arch the one its target names (``{"kind": "cuda", "arch": "sm_90a"}``,
``cuda -arch=sm_90a``, ``TILELANG_DEFAULT_TARGET``), else the one TileLang's ``determine_target`` gives
it (on a GPU, the GPU's), else the stand-in card's.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import re
import sys
from typing import Any

from ...errors import KernelFileError, ParameterError
from ..compile_record import CompileRecorder

ARCH = re.compile(r"-arch[= ](\S+)")


class TileLangCompileRecorder(CompileRecorder):
    frontend = "tilelang"
    module = "tilelang"

    def wrap(self, module: Any) -> None:
        jit: Any = sys.modules["tilelang.jit"]
        recorder = self
        factory_compile = jit.JITImpl.compile
        if getattr(factory_compile, "__irscope_recorded__", False):
            return

        @functools.wraps(factory_compile)
        def compile_factory(this: Any, *args: Any, **kwargs: Any) -> Any:
            return recorder.observe(
                lambda: factory_compile(this, *args, **kwargs),
                sys._getframe(1),
                lambda: recorder.describe_factory(this, args, kwargs),
                _function_of(this),
            )

        plain_compile = jit.compile

        @functools.wraps(plain_compile)
        def compile(*args: Any, **kwargs: Any) -> Any:
            return recorder.observe(
                lambda: plain_compile(*args, **kwargs),
                sys._getframe(1),
                lambda: recorder.describe_prim_func(plain_compile, args, kwargs),
                None,
            )

        for function in (compile_factory, compile):
            function.__irscope_recorded__ = True  # type: ignore[attr-defined]
        jit.JITImpl.compile = compile_factory
        jit.compile = compile
        if getattr(module, "compile", None) is plain_compile:
            module.compile = compile

    def describe_factory(self, factory: Any, args: tuple, kwargs: dict) -> tuple[Any, Any, str]:
        from ..config import resolve_config
        from .kernel import kernel_from_object

        kernel = kernel_from_object(factory)
        inner = _defining_function(factory)
        bound = inspect.signature(inner).bind_partial(*args, **kwargs).arguments
        config = resolve_config(kernel, dict(bound))
        return kernel, config, self._arch(getattr(factory, "target", None))

    def describe_prim_func(self, plain_compile: Any, args: tuple, kwargs: dict) -> tuple[Any, Any, str]:
        from ..config import resolve_config
        from .kernel import kernel_from_prim_func

        bound = inspect.signature(plain_compile).bind_partial(*args, **kwargs).arguments
        func = bound.get("func")
        if func is None:
            raise ParameterError("tilelang.compile was given no PrimFunc")
        kernel = kernel_from_prim_func(func, bound.get("pass_configs"), bound.get("compile_flags"))
        return kernel, resolve_config(kernel, {}), self._arch(bound.get("target"))

    def _arch(self, target: Any) -> str:
        named = target if target not in (None, "auto") else os.environ.get("TILELANG_DEFAULT_TARGET")
        arch = target_arch(named)
        if not arch:  # "auto", "cuda": what TileLang itself makes of it (on a GPU, the GPU's arch; untried here)
            try:
                from tilelang.backend.target import determine_target

                arch = target_arch(determine_target(named or "auto", return_object=True))
            except Exception:
                arch = None
        arch = arch or self.stand_in_arch()
        if not arch:
            raise ParameterError("the program's TileLang target names no arch, and there is no stand-in card")
        return arch


def target_arch(target: Any) -> str | None:
    """The arch a TileLang target names: a dict's ``arch``, ``-arch=`` in a string (or a JSON object's), a TVM
    Target's ``arch`` attribute; for a HIP target (``{"kind": "hip", "mcpu": "gfx942"}``, TileLang's only
    spelling of one) its ``mcpu``; None where it names none (``auto``, ``cuda``)."""
    if isinstance(target, str):
        text = target.strip()
        if text.startswith("{"):
            try:
                target = json.loads(text)
            except ValueError:
                return None
        else:
            found = ARCH.search(text)
            return found.group(1) if found else None
    if isinstance(target, dict):
        arch = target.get("mcpu") if target.get("kind") == "hip" else target.get("arch")
        return str(arch) if arch else None
    if str(getattr(getattr(target, "kind", None), "name", "")) == "hip":
        arch = target.attrs.get("mcpu")
    else:
        arch = getattr(target, "arch", None) if target is not None else None
    return str(arch) if arch else None


def _function_of(factory: Any) -> Any:
    """The Python function of a ``@tilelang.jit`` factory (JITImpl.func is TileLang's JITFunc, which wraps it)."""
    inner = getattr(factory, "func", None)
    inner = getattr(inner, "func", inner)
    return getattr(inner, "orig_func", inner)


def _defining_function(factory: Any) -> Any:
    inner = _function_of(factory)
    if inner is None or not hasattr(inner, "__code__"):
        raise KernelFileError("a TileLang factory whose Python function irscope cannot find")
    return inner
