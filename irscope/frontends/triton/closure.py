"""What a kernel reads beyond its own parameters, recorded as data where the program runs it.

Library kernels reach past their file's ``@triton.jit`` defs: a module-level ``tl.constexpr``
(Liger's ``_CASTING_MODE_LLAMA``, ``_BLOCK_SIZE_0`` in every Helion kernel), a ``@triton.jit``
helper imported from another module (FLA's ``unflatten_program_id``), a libdevice function
imported by name (``from triton.language.extra.libdevice import tanh``), a module of helpers used
as ``op.exp2``. Triton's JIT resolves each through the function's globals; irscope, rebuilding a
kernel from text without running it (rebuild.py), cannot. So where the program runs the code with
the user's consent (``irscope run``), ``closure_of`` writes down what each name resolved to:

- ``{"constexpr": 0}`` a constexpr's value (None, a bool, a number or a string), ``{"dtype": "fp32"}``;
- ``{"triton": "triton.language.extra.libdevice:tanh"}`` one of Triton's own functions, ``{"module":
  "triton.language.extra.libdevice"}`` one of Triton's modules;
- ``{"jit": {"file": F, "line": N, "name": f}}`` a ``@triton.jit`` def (the def at line N of F: FLA
  defines its helpers inside ``if`` blocks), whose own names are recorded under F;
- ``{"namespace": {"exp2": {...}}}`` a module of the program's used as ``op.exp2``: the attributes used;
- ``{"unsupported": why}`` anything else (rebuild.py refuses a kernel that reads it, saying why).

The record is data: rebuild.py checks every entry against the same allowlist as the text and
resolves only Triton's own names and the recorded texts, importing nothing a record names.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from types import ModuleType
from typing import Any

# triton is imported inside the functions that use it; this module runs in the user's program too.

SCALARS = (bool, int, float, str)


def closure_of(fn: Any, save: Callable[[str], str | None]) -> dict[str, Any]:
    """``{"files": {file: saved text}, "scopes": {file: {name: binding}}}`` for JITFunction ``fn``.

    ``save(file)`` keeps a file's text and returns where (None: it could not be read). Each
    ``@triton.jit`` function reached is walked once, with its own globals.
    """
    from triton.runtime.jit import JITCallable

    files: dict[str, str | None] = {}
    scopes: dict[str, dict[str, Any]] = {}
    seen: set[int] = set()
    todo = [fn]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        file = _file_of(current)
        if file not in files:
            files[file] = save(file)
        scope = scopes.setdefault(file, {})
        references, attributes = _references(current)
        for name, value in references.items():
            binding = _binding(value, file, todo.append, JITCallable, attributes.get(name, set()))
            if binding is None:
                continue
            if name in scope and "namespace" in binding and "namespace" in scope[name]:
                scope[name]["namespace"].update(binding["namespace"])  # one module, read by two functions
            else:
                scope.setdefault(name, binding)
    return {"files": {f: p for f, p in files.items() if p is not None}, "scopes": scopes}


def _file_of(fn: Any) -> str:
    code = getattr(getattr(fn, "fn", None), "__code__", None)
    return code.co_filename if code is not None else "<unknown>"


def _line_of(fn: Any) -> int | None:
    """The def's first line (its first decorator's): Python's ``co_firstlineno``, as rebuild.py finds defs."""
    code = getattr(getattr(fn, "fn", None), "__code__", None)
    return code.co_firstlineno if code is not None else None


def _references(fn: Any) -> tuple[dict[str, Any], dict[str, set[str]]]:
    """Each global name ``fn``'s body (and signature) reads, with what it resolves to as the JIT resolves it,
    and the attributes read of each (``op.exp2``: ``{"op": {"exp2"}}``)."""
    try:
        tree = ast.parse(fn.src)
    except (SyntaxError, ValueError, AttributeError):
        return {}, {}
    params = {a.arg for node in ast.walk(tree) if isinstance(node, ast.arguments) for a in _all_args(node)}
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    local = params | stored
    scope = dict(getattr(fn, "__globals__", {}) or {})
    try:
        scope.update(inspect.getclosurevars(fn.fn).nonlocals)
    except (TypeError, ValueError):
        pass
    out: dict[str, Any] = {}
    attributes: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in local:
            if node.id in scope:
                out[node.id] = scope[node.id]
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id not in local:
            attributes.setdefault(node.value.id, set()).add(node.attr)
    return out, attributes


def _all_args(node: ast.arguments) -> list[ast.arg]:
    return [*node.posonlyargs, *node.args, *node.kwonlyargs, *(a for a in (node.vararg, node.kwarg) if a)]


def _binding(
    value: Any, file: str, walk: Callable[[Any], None], jit_class: type, used: set[str], depth: int = 0
) -> Any:
    """What ``value`` is, as data (see the module's docstring); None for what the JIT never reads as code
    (Python's builtins resolve on their own)."""
    import triton.language as tl

    if isinstance(value, jit_class):
        fn: Any = getattr(value, "fn", None)
        module = getattr(fn, "__module__", "") or ""
        if _is_triton(module):
            return {"triton": f"{module}:{fn.__qualname__}"}
        walk(value)
        return {"jit": {"file": _file_of(value), "line": _line_of(value), "name": fn.__name__}}
    if isinstance(value, tl.constexpr):
        inner = value.value
        if inner is None or isinstance(inner, SCALARS):
            return {"constexpr": inner}
        return {"unsupported": f"a constexpr holding a {type(inner).__name__}"}
    if isinstance(value, tl.dtype):
        return {"dtype": value.name}
    if isinstance(value, ModuleType):
        if _is_triton(value.__name__) or value.__name__ == "triton":
            return {"module": value.__name__}
        if depth:
            return {"unsupported": f"module {value.__name__} inside another"}
        return {"namespace": _namespace(value, file, walk, jit_class, used)}
    if isinstance(value, type) or callable(value):
        module = getattr(value, "__module__", "") or ""
        qualname = getattr(value, "__qualname__", None)
        if _is_triton(module) and isinstance(qualname, str):
            return {"triton": f"{module}:{qualname}"}
        return {"unsupported": f"{type(value).__name__} {qualname or ''} of {module or 'no module'}".strip()}
    if value is None or isinstance(value, SCALARS):
        return {"value": value}
    return {"unsupported": f"a {type(value).__name__}"}


def _namespace(
    module: ModuleType, file: str, walk: Callable[[Any], None], jit_class: type, used: set[str]
) -> dict[str, Any]:
    """A module of the program a kernel reads attributes of (``op.exp2``): each attribute read, as data."""
    out = {}
    for name in sorted(used):
        if name.startswith("_") or name not in vars(module):
            continue
        binding = _binding(vars(module)[name], file, walk, jit_class, set(), depth=1)
        if binding is not None:
            out[name] = binding
    return out


def _is_triton(module: str) -> bool:
    return any(module == m or module.startswith(m + ".") for m in ("triton.language", "triton.experimental.gluon"))


__all__ = ["closure_of"]
