"""A Helion file read with ``ast``: its ``@helion.kernel`` functions, listed before the file runs."""

from __future__ import annotations

import ast
from pathlib import Path

KERNEL_SPELLINGS = {"helion.kernel", "kernel"}  # ``import helion`` / ``from helion import kernel``


def _is_helion_kernel(decorator: ast.expr, imported_kernel: bool) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    spelled = ast.unparse(target)
    return spelled == "helion.kernel" or (imported_kernel and spelled == "kernel")


def helion_kernel_names(path: Path) -> list[str]:
    """The file's top-level ``@helion.kernel`` functions, in order (none where it cannot be read or parsed)."""
    try:
        text = path.read_text(encoding="utf-8")
        if "helion" not in text:  # a Triton, Gluon or Numba file: nothing to look at
            return []
        tree = ast.parse(text, str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
        return []
    imported_kernel = any(
        isinstance(node, ast.ImportFrom)
        and node.module == "helion"
        and any(a.name == "kernel" and a.asname is None for a in node.names)
        for node in tree.body
    )
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and any(_is_helion_kernel(d, imported_kernel) for d in node.decorator_list)
    ]
