"""A Gluon layout constexpr as data: its text (``BlockedLayout([4], [32], [4], [0])``) <-> Triton's layout object.

A config holds a layout as text, so that a session stores it as JSON, a sweep's values and a diff's
two sides are strings, and nothing read back from disk is ever code. ``layout_from_text`` reads the
text with ``ast`` and builds only calls of Triton's own layout classes (every subclass of Gluon's
``DistributedLayout`` and ``SharedLayout``, and Blackwell's tensor-memory layouts, found in the running
Triton) on literal arguments: ints, bools, None, lists and other layouts. Anything else (a name, an
attribute that is not a layout class, an operator, a subscript) is refused in one line.
``layout_text`` writes a layout object the other way: its fields, those at their default left out,
so the text reads the same under each Triton that has the class.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from typing import Any

from ...errors import ParameterError

MAX_TEXT = 4000  # characters: the longest layouts (a DistributedLinearLayout's bases) run to a few hundred


@functools.cache
def layout_types() -> dict[str, type]:
    """Gluon's layout classes by name, from the running Triton's own class tree."""
    from triton.experimental.gluon.language import _layouts

    found: dict[str, type] = {}

    def walk(cls: type) -> None:
        subclasses: list[type] = cls.__subclasses__()
        for sub in subclasses:
            found.setdefault(sub.__name__, sub)
            walk(sub)

    walk(_layouts.DistributedLayout)
    walk(_layouts.SharedLayout)
    try:
        from triton.experimental.gluon.language.nvidia import blackwell
    except ImportError:  # a Triton without Blackwell's module
        return found
    for name in ("TensorMemoryLayout", "TensorMemoryScalesLayout"):
        cls = getattr(blackwell, name, None)
        if isinstance(cls, type):
            found.setdefault(name, cls)
    return found


def is_layout(value: Any) -> bool:
    return any(isinstance(value, cls) for cls in layout_types().values())


def looks_like_layout(text: str) -> bool:
    """Is ``text`` written as a call (``Name(...)``)? A number or a word is not; the parser says whether it is one."""
    return "(" in text


def layout_from_text(name: str, text: str) -> Any:
    """The layout object ``text`` describes; ParameterError (naming the constexpr ``name``) for anything else."""
    if len(text) > MAX_TEXT:
        raise ParameterError(f"{name}: a layout of {len(text)} characters is longer than {MAX_TEXT}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise ParameterError(f"{name}: {_shown(text)} is not a layout (it does not parse)") from None
    if not isinstance(tree.body, ast.Call):
        raise ParameterError(f"{name}: {_shown(text)} is not a layout; write one as BlockedLayout([1], [32], [4], [0])")
    return _value(name, tree.body)


def _value(name: str, node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (bool, int))):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        if isinstance(value, int) and not isinstance(value, bool):
            return -value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(name, item) for item in node.elts]
    if isinstance(node, ast.Call):
        return _call(name, node)
    raise ParameterError(
        f"{name}: {_shown(ast.unparse(node))} is not a layout argument (only numbers, true/false, None, lists and layouts)"
    )


def _call(name: str, node: ast.Call) -> Any:
    called = _called_name(node.func)
    types = layout_types()
    if called not in types:
        known = ", ".join(sorted(types))
        raise ParameterError(f"{name}: {_shown(ast.unparse(node.func))} is not a Gluon layout; known: {known}")
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        raise ParameterError(f"{name}: {called}(...) takes its arguments spelled out, not unpacked")
    args = [_value(name, a) for a in node.args]
    kwargs = {k.arg: _value(name, k.value) for k in node.keywords if k.arg is not None}
    try:
        return types[called](*args, **kwargs)
    except Exception as exc:  # Triton's own checks (a rank that does not match, a field it lacks)
        raise ParameterError(f"{name}: {called}(...) is refused by Triton: {_one_line(exc)}") from None


def _called_name(func: ast.expr) -> str:
    """``BlockedLayout``, ``gl.BlockedLayout``, ``ttgl.nvidia.blackwell.TensorMemoryLayout`` -> the class name;
    "" for anything that is not a plain (dotted) name."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        inner = func.value
        while isinstance(inner, ast.Attribute):
            inner = inner.value
        return func.attr if isinstance(inner, ast.Name) else ""
    return ""


def layout_text(value: Any) -> str:
    """A layout object's text: its class and its fields, those at their default left out (``layout_from_text``
    reads it back to an equal object)."""
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        raise ParameterError(f"{type(value).__name__} is not a Gluon layout")
    parts = []
    for f in dataclasses.fields(value):
        if not f.init:
            continue
        field_value = getattr(value, f.name)
        if f.default is not dataclasses.MISSING:
            default: Any = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = dataclasses.MISSING
        if default is not dataclasses.MISSING and _plain(field_value) == _plain(default):
            continue
        parts.append(f"{f.name}={_text(field_value)}")
    return f"{type(value).__name__}({', '.join(parts)})"


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return getattr(value, "value", value)  # a tl.constexpr around a number


def _text(value: Any) -> str:
    if is_layout(value):
        return layout_text(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    plain = _plain(value)
    if plain is None or isinstance(plain, (bool, int)):
        return repr(plain)
    raise ParameterError(f"a layout field holds {type(value).__name__}, which irscope cannot keep as data")


def _shown(text: str) -> str:
    first = " ".join(text.split())
    return repr(first if len(first) <= 60 else first[:57] + "...")


def _one_line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return lines[0] if lines else type(exc).__name__
