"""Inside a program ``irscope run`` runs: each ``cute.compile(fn, *args, **constexprs, options=...)`` it makes.

``cute.compile`` is an instance of the DSL's ``CompileCallable`` (``cute.compile[Options]`` makes another),
so its class's ``__call__`` is wrapped once ``cutlass.cute`` is imported (compile_record.py says why
no DSL hook serves). The recorded kernel is the frontend's ``kernel_from_function`` of the same
function, its runtime arguments described as ``-S`` from the program's own (each checked: the fake
tensor the description makes must print as the program's argument does, with the same assumed
alignment; anything else is not recorded, with why), its ``cutlass.Constexpr`` arguments the
config, and the arch the program's compile used, found as the DSL finds it: ``--gpu-arch`` in its options,
else the DSL's setting (``CUTE_DSL_ARCH``, else the GPU's arch; without a GPU the DSL's default, sm_100a).
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
from typing import Any

from ...errors import ParameterError
from ..compile_record import CompileRecorder
from .arguments import DTYPES, fake_arguments, parse_arguments

OWN_KEYWORDS = ("options", "trace_finalize_hooks", "is_experimental")  # cute.compile's, not the function's
GPU_ARCH = re.compile(r"--gpu-arch[= ](\S+)")


class CuteCompileRecorder(CompileRecorder):
    frontend = "cute"
    module = "cutlass.cute"

    def wrap(self, module: Any) -> None:
        callable_class = type(module.compile)
        original = callable_class.__call__
        if getattr(original, "__irscope_recorded__", False):
            return
        recorder = self

        @functools.wraps(original)
        def __call__(this: Any, *args: Any, **kwargs: Any) -> Any:
            return recorder.observe(
                lambda: original(this, *args, **kwargs),
                sys._getframe(1),
                lambda: recorder.describe(args, kwargs),
                args[0] if args else None,
            )

        __call__.__irscope_recorded__ = True  # type: ignore[attr-defined]
        callable_class.__call__ = __call__

    def describe(self, args: tuple, kwargs: dict) -> tuple[Any, Any, str]:
        from ..config import resolve_config
        from ..python_source import defining_text
        from .kernel import _defining_node, kernel_from_function
        from .source import parameters

        if not args:
            raise ParameterError("cute.compile was given no function")
        function, given = args[0], args[1:]
        inner = function
        while hasattr(inner, "__wrapped__"):
            inner = inner.__wrapped__
        filename, text = defining_text(inner, "@cute.jit function")
        params = parameters(_defining_node(text, filename, inner))
        keywords = {k: v for k, v in kwargs.items() if k not in OWN_KEYWORDS}
        bound = inspect.signature(inner).bind_partial(*given, **keywords).arguments
        runtime = [p for p in params if not p.constexpr]
        missing = [p.name for p in runtime if p.name not in bound]
        if missing:
            raise ParameterError(f"{inner.__name__}: no argument given for {', '.join(missing)}")
        signature = ", ".join(describe_argument(p.name, bound[p.name]) for p in runtime)
        kernel = kernel_from_function(function, signature)
        config = resolve_config(kernel, {p.name: bound[p.name] for p in params if p.constexpr and p.name in bound})
        return kernel, config, self._arch(kwargs.get("options"))

    def _arch(self, options: Any) -> str:
        found = GPU_ARCH.search(options) if isinstance(options, str) else None
        if found:
            return found.group(1)
        from cutlass.cutlass_dsl import CuTeDSL

        arch = getattr(CuTeDSL._get_dsl().envar, "arch", None) or self.stand_in_arch()
        if not arch:
            raise ParameterError("the program's compile named no arch (--gpu-arch) and the DSL has none set")
        return str(arch)


def describe_argument(name: str, value: Any) -> str:
    """``value`` (a tensor or a DSL scalar the program handed ``cute.compile``) as ``-S`` describes it, checked:
    the fake tensor the description makes prints as ``value`` does and assumes the same alignment."""
    import cutlass

    types = {v: k for k, v in DTYPES.items()}
    if isinstance(value, cutlass.Numeric):
        dtype = types.get(type(value).__name__)
        if dtype is None:
            raise ParameterError(f"{name}: a {type(value).__name__}, which -S cannot describe")
        return dtype
    element = getattr(value, "element_type", None)
    dtype = types.get(getattr(element, "__name__", ""))
    if dtype is None or not hasattr(value, "shape"):
        raise ParameterError(f"{name}: {type(value).__name__} {str(value)[:80]!r} is not a tensor -S can describe")
    shape = [str(e) if isinstance(e, int) else "?" for e in value.shape]
    align = getattr(value, "_assumed_align", None)
    text = f"{dtype}[{','.join(shape)}]" + (f":{align}" if align else "")
    (fake,) = fake_arguments(parse_arguments(text, name))
    if str(fake) != str(value) or getattr(fake, "_assumed_align", None) != align:
        raise ParameterError(f"{name}: {str(value)[:80]!r} is not the row-major tensor -S {text!r} describes")
    return text
