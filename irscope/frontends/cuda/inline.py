"""CUDA C++ that a Python file builds with ``torch.utils.cpp_extension.load_inline``, read without running it.

The lecture builds its CUDA square this way: a ``cuda_sources`` string holding the
``__global__`` kernel and the host function that launches it. The file is parsed
with ``ast``; a ``load_inline(...)`` call's ``cuda_sources`` (a string, a list of
strings, or names bound to string literals at module level) are the sources.

Only the device side is compiled: the host functions need torch's headers (tens of
seconds of nvcc per config), and irscope wants the kernel's PTX and SASS. Lines
outside ``__global__``/``__device__`` functions and preprocessor lines are blanked,
torch's includes dropped, and a ``#line`` directive makes nvcc count lines in the
Python file, so every PTX and SASS line maps to its line of the ``.py``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from ...errors import KernelFileError
from .source import blank_comments, kernels

# `template <typename T> __global__ ...` (a definition) and `template __global__ void k<float>(...);` (an
# explicit instantiation: the only thing that makes a template kernel's entry where no host code launches it)
DEVICE_FUNCTION = re.compile(
    r"^\s*(?:template\b\s*(?:<[^>]*>)?\s*)?(?:static\s+|inline\s+|__forceinline__\s+)*"
    r"(?:extern\s+\"C\"\s+)?(?:__global__|__device__|__host__\s+__device__)\b"
)
DEVICE_VARIABLE = re.compile(r"^\s*(?:static\s+)?(?:__constant__|__device__)\s+[^(]*;\s*$")
HOST_ONLY_INCLUDE = re.compile(r"^\s*#\s*include\s*[<\"](?:torch|ATen|c10|pybind11)/", re.M)
# Host code that needs torch's headers although the text includes none: load_inline puts them before
# each cuda_sources string, so the lecture's string names torch::Tensor and TORCH_CHECK bare.
TORCH_HOST_CODE = re.compile(r"\b(?:torch|at|c10|pybind11)::|\b(?:TORCH_CHECK|PYBIND11_MODULE)\b")


@dataclass(frozen=True)
class InlineSource:
    text: str  # the string's value
    line: int  # the line of the Python file the string's first line is on


def inline_sources(path: Path, text: str | None = None) -> list[InlineSource]:
    """Every ``cuda_sources`` string of every ``load_inline`` call in ``path``; KernelFileError naming the first
    ``cuda_sources`` that is not a string written out in the file (the file is never run to work one out)."""
    found, unread = _read_calls(path, text)
    if unread:
        raise KernelFileError(unread[0])
    return found


def _read_calls(path: Path, text: str | None) -> tuple[list[InlineSource], list[str]]:
    """The ``cuda_sources`` strings read from the file's syntax, and a line for each that is not one."""
    text = text if text is not None else path.read_text(encoding="utf-8")
    if "load_inline" not in text:  # every Triton kernel file is asked this: answer without parsing it
        return [], []
    try:
        tree = ast.parse(text, str(path))
    except SyntaxError as exc:
        raise KernelFileError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    strings: dict[str, ast.expr] = {}
    for node in tree.body:  # module-level NAME = "..." (the lecture's `cuda_source = '''...'''`)
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    strings[target.id] = node.value
    # `from torch.utils.cpp_extension import load_inline as build`: build(...) is load_inline(...) too
    names = {"load_inline"} | {
        alias.asname
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name == "load_inline" and alias.asname
    }
    found, unread = [], []
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and _called(call) in names):
            continue
        # load_inline(name, cpp_sources, cuda_sources, ...): by keyword or third positionally. A `**{...}` or
        # `*args` could hold it too, and only running the file would say: that is unreadable, like a call.
        given = [k.value for k in call.keywords if k.arg == "cuda_sources"] + call.args[2:3]
        hidden = [k.value for k in call.keywords if k.arg is None] + [
            a for a in call.args if isinstance(a, ast.Starred)
        ]
        for expr in hidden:
            unread.append(_unread(path, expr, f"load_inline's {_spelled(expr)} may hold its cuda_sources"))
        for expr in given:
            if isinstance(expr, ast.Starred):
                continue
            value = strings.get(expr.id, expr) if isinstance(expr, ast.Name) else expr
            values = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
            for item in values:
                if isinstance(item, ast.Name):
                    item = strings.get(item.id, item)
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    found.append(InlineSource(item.value, item.lineno))
                else:
                    unread.append(_unread(path, expr, f"load_inline's cuda_sources is {_spelled(expr)}"))
                    break
    return found, unread


def _unread(path: Path, expr: ast.expr, what: str) -> str:
    """The refusal of one ``cuda_sources`` that only running the file would give."""
    return (
        f"{path}:{expr.lineno}: {what}, not a string written in the file; irscope reads it without running the "
        "file: write the CUDA source as a string literal (or a module-level name bound to one), or save it as a "
        ".cu file and name that"
    )


def mentions_load_inline(path: Path) -> bool:
    """Does ``path`` name ``load_inline`` anywhere (a call, an alias, a ``getattr``)? Such a file is
    read as a ``load_inline`` file, never imported to find its kernels."""
    try:
        return "load_inline" in path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def python_functions(path: Path) -> set[str]:
    """The names of the file's module-level functions (a Triton kernel the user may mean instead)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError, SyntaxError):
        return set()
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _spelled(node: ast.expr) -> str:
    text = ast.unparse(node)
    return f"`{text}`" if len(text) <= 40 else f"`{text[:37]}...`"


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def inline_kernel_names(path: Path) -> list[str]:
    try:
        return [name for source in inline_sources(path) for k in kernels(source.text) for name in k.openable]
    except (OSError, UnicodeDecodeError, KernelFileError):
        return []


def torch_host_side(text: str) -> bool:
    """Does a ``load_inline`` string hold host code only torch's headers compile (its includes, or torch's names)?"""
    return bool(HOST_ONLY_INCLUDE.search(text) or TORCH_HOST_CODE.search(blank_comments(text)))


def device_side(source: InlineSource, python_file: str) -> str:
    """The source's device code, for nvcc, with lines numbered as in the Python file."""
    lines = source.text.split("\n")
    clean = blank_comments(source.text).split("\n")
    keep = [False] * len(lines)
    i = 0
    while i < len(lines):
        line = clean[i]
        if line.lstrip().startswith("#"):
            keep[i] = not HOST_ONLY_INCLUDE.match(line)
            i += 1
        elif DEVICE_VARIABLE.match(line):
            keep[i] = True
            i += 1
        elif DEVICE_FUNCTION.match(line) or (
            line.strip().startswith("template") and i + 1 < len(lines) and DEVICE_FUNCTION.match(clean[i + 1])
        ):
            end = _function_end(clean, i)
            for j in range(i, end + 1):
                keep[j] = True
            i = end + 1
        else:
            i += 1
    body = "\n".join(text if kept else "" for text, kept in zip(lines, keep))
    # The string's first line is on line `source.line` of the Python file (after the opening quotes).
    escaped = python_file.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {source.line} "{escaped}"\n{body}\n'


def _function_end(clean: list[str], start: int) -> int:
    """The line of the brace that closes the function starting at ``start``."""
    depth, opened = 0, False
    for j in range(start, len(clean)):
        for ch in clean[j]:
            if ch == "{":
                depth, opened = depth + 1, True
            elif ch == "}":
                depth -= 1
                if opened and depth == 0:
                    return j
        if not opened and clean[j].rstrip().endswith(";"):  # a declaration, no body
            return j
    return len(clean) - 1
