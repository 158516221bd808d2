"""A CuTe DSL file read with ``ast``: its ``@cute.jit`` functions and their compile-time parameters.

Nothing is imported: the names are listed and a kernel is claimed before the file runs, and with
``nvidia-cutlass-dsl`` missing the names are still there (the compile then says what to install).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

JIT_SPELLINGS = {"cute.jit", "cutlass.cute.jit"}
CONSTEXPR_SPELLINGS = {"Constexpr", "cutlass.Constexpr", "cute.Constexpr"}


@dataclass(frozen=True)
class Parameter:
    """One parameter of a ``@cute.jit`` function: a ``cutlass.Constexpr`` (compiled in, a config axis) or a
    runtime argument (a tensor or a scalar, described by ``-S``)."""

    name: str
    constexpr: bool
    default: Any = None  # a constexpr's default, where it has one a literal gives
    has_default: bool = False


def _is_jit(node: ast.FunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if ast.unparse(target) in JIT_SPELLINGS:
            return True
    return False


def _is_constexpr(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    base = annotation.value if isinstance(annotation, ast.Subscript) else annotation  # Constexpr[int]
    return ast.unparse(base) in CONSTEXPR_SPELLINGS


def parameters(node: ast.FunctionDef) -> list[Parameter]:
    """The function's positional parameters in order, each a constexpr or not, with literal defaults."""
    args = node.args.posonlyargs + node.args.args
    defaults: list[ast.expr | None] = [None] * (len(args) - len(node.args.defaults)) + list(node.args.defaults)
    out = []
    for arg, default in zip(args, defaults):
        value, known = None, False
        if default is not None:
            try:
                value, known = ast.literal_eval(default), True
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
        out.append(Parameter(arg.arg, _is_constexpr(arg.annotation), value, known))
    return out


def jit_defs(path: Path) -> dict[str, ast.FunctionDef]:
    """The file's top-level ``@cute.jit`` functions, in order (none where it cannot be read or parsed)."""
    try:
        text = path.read_text(encoding="utf-8")
        if "cute" not in text:  # a Triton or Numba file: nothing to look at
            return {}
        tree = ast.parse(text, str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
        return {}
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef) and _is_jit(node)}


def cute_jit_names(path: Path) -> list[str]:
    return list(jit_defs(path))


def is_cute_jit(obj: Any) -> bool:
    """A ``@cute.jit`` function object (the DSL marks what it decorates); False where the DSL is not imported."""
    if "cutlass.cute" not in sys.modules or not callable(obj):
        return False
    marked = hasattr(obj, "_dsl_cls") or hasattr(obj, "_dsl_object")
    return marked and getattr(obj, "_decorator_kind", None) == "jit"
