"""A TileLang file read with ``ast``: its ``@tilelang.jit`` factories and ``T.prim_func`` kernels.

Nothing is imported: the names are listed and a kernel is claimed before the file runs, and with
``tilelang`` missing the names are still there (the compile then says what to install). A factory's
parameters are the config's axes; those with a literal default have it as their one sweep value.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

JIT_SPELLINGS = {"tilelang.jit", "tl.jit", "jit"}
PRIM_FUNC_SPELLINGS = {"T.prim_func", "tilelang.language.prim_func", "prim_func"}


@dataclass(frozen=True)
class Parameter:
    """One parameter of a ``@tilelang.jit`` factory (a shape, a block size, ``num_stages``, a dtype)."""

    name: str
    default: Any = None  # its default, where a literal gives one
    has_default: bool = False


def _decorated(node: ast.FunctionDef, spellings: set[str]) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if ast.unparse(target) in spellings:
            return True
    return False


def kind(node: ast.FunctionDef) -> str:
    """``"jit"`` for a ``@tilelang.jit`` factory, ``"prim_func"`` for a ``T.prim_func``, "" for neither."""
    if _decorated(node, JIT_SPELLINGS):
        return "jit"
    return "prim_func" if _decorated(node, PRIM_FUNC_SPELLINGS) else ""


def parameters(node: ast.FunctionDef) -> list[Parameter]:
    """A factory's positional and keyword parameters in order, with their literal defaults; a prim_func has
    none to set (its arguments are its tensors)."""
    if kind(node) != "jit":
        return []
    args = node.args.posonlyargs + node.args.args
    defaults: list[ast.expr | None] = [None] * (len(args) - len(node.args.defaults)) + list(node.args.defaults)
    pairs = list(zip(args, defaults)) + list(zip(node.args.kwonlyargs, node.args.kw_defaults))
    out = []
    for arg, default in pairs:
        value, known = None, False
        if default is not None:
            try:
                value, known = ast.literal_eval(default), True
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
        out.append(Parameter(arg.arg, value, known))
    return out


def kernel_defs(path: Path) -> dict[str, ast.FunctionDef]:
    """The file's top-level TileLang kernels, in order (none where it cannot be read or parsed)."""
    try:
        text = path.read_text(encoding="utf-8")
        if "tilelang" not in text:  # a Triton, CuTe DSL or Numba file: nothing to look at
            return {}
        tree = ast.parse(text, str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
        return {}
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef) and kind(node)}


def tilelang_names(path: Path) -> list[str]:
    return list(kernel_defs(path))


def is_tilelang_kernel(obj: Any) -> bool:
    """A ``@tilelang.jit`` factory or a ``PrimFunc``; False where TileLang is not imported."""
    if "tilelang" not in sys.modules:
        return False
    from tilelang import tvm
    from tilelang.jit import JITImpl

    return isinstance(obj, (JITImpl, tvm.tirx.PrimFunc))
