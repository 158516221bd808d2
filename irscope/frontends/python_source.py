"""The text a Python kernel function was defined in: its file, or the notebook cell it was run from.

A function defined in a Jupyter cell names a file that does not exist
(``/tmp/ipykernel_<pid>/<hash>.py``, or ``<ipython-input-3-...>`` in a plain IPython
shell); IPython puts every cell's text in ``linecache`` under that name, and Python's
own tools (``inspect``, tracebacks, Triton's source reading) find it there. A kernel's
source text is that whole text, so the compiler's line numbers and file name (the
cell's) point into it exactly as they would into a file.
"""

from __future__ import annotations

import ast
import linecache
from typing import Any

from ..errors import KernelFileError


def defining_text(fn: Any, what: str) -> tuple[str, str]:
    """``(file name, text)`` of the file or cell the plain Python function ``fn`` was defined in.

    ``what`` names the kernel's kind in an error ("Triton kernel").
    """
    code = fn.__code__
    filename = code.co_filename
    linecache.checkcache(filename)  # a file edited on disk is read again; a cell's entry (no mtime) is kept
    lines = linecache.getlines(filename, getattr(fn, "__globals__", None))
    if not lines:
        raise KernelFileError(
            f"{what} {fn.__name__} was defined in {filename}, which is neither a file nor a notebook cell "
            "irscope can read; define it in a .py file or a notebook cell"
        )
    return filename, "".join(lines)


def defining_node(text: str, filename: str, fn: Any, what: str) -> ast.FunctionDef:
    """The ``def`` of ``fn`` in ``text``: the one with its name starting on its code's first line.

    Refused where there is none: the file was edited since the function was defined (or the
    cell's text was replaced), and its lines would no longer be those the compiler names.
    """
    code = fn.__code__
    try:
        tree = ast.parse(text, filename)
    except (SyntaxError, ValueError, RecursionError):
        tree = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.FunctionDef) and node.name == fn.__name__:
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            if first == code.co_firstlineno:
                return node
    raise KernelFileError(
        f"{filename}:{code.co_firstlineno}: the source of {what} {fn.__name__} has changed since it was defined; "
        "run its cell (or import its file) again"
    )
