"""A Helion ``Config``'s fields as data: the text ``-c``/``-s`` and sessions hold, and the values Helion takes.

A field's value is kept as text in a variant's config (``block_sizes=64,64,32``, ``indexing=pointer``,
``loop_orders=[[1, 0]]``), so it is JSON as it stands and a sweep names it as typed; it becomes Helion's
value only here, read with ``ast.literal_eval`` (numbers, strings, booleans, None and lists of them: no
name is looked up, no call is made). Helion's autotune CSV writes each config as ``Config(a=1, b=[2])``
(``str(helion.Config)``); that text is read the same way, its call checked to be ``Config`` with keywords
only. Nothing read from a command line, a session or a CSV runs.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from ...errors import ParameterError

# A config's text is at most this long: Helion's longest (a matmul's, every field set) is ~600 characters.
MAX_TEXT = 4000
_LEAVES = (bool, int, float, str, type(None))


def checked_value(name: str, value: Any, depth: int = 0) -> Any:
    if isinstance(value, _LEAVES):
        return value
    if isinstance(value, (list, tuple)) and depth < 3:
        return [checked_value(name, v, depth + 1) for v in value]
    raise ParameterError(f"{name}: Helion config values are numbers, words, true/false, None or lists of them")


def _literal(name: str, text: str) -> Any:
    if len(text) > MAX_TEXT:
        raise ParameterError(f"{name}: a value of {len(text)} characters is not a Helion config value")
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None if text.lower() == "none" else _word(name, text)


def _word(name: str, text: str) -> Any:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if text.replace("_", "").isalnum():
        return text  # pointer, flat, persistent_blocked, first
    raise ParameterError(f"{name}: cannot read {text[:60]!r} as a Helion config value")


def field_value(name: str, raw: Any, default: Any) -> Any:
    """The value Helion takes for field ``name``: ``raw`` as typed (``64,64,32``, ``[64, 64, 32]``, ``4``) or a
    value already; a field whose default is a list takes a bare value or comma-separated ones as a list."""
    value = _literal(name, raw.strip()) if isinstance(raw, str) else raw
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(default, list) and not isinstance(value, list):
        value = [value]
    return checked_value(name, value)


def field_text(value: Any) -> str:
    """How a field's value is shown and stored: ``[64, 64, 32]``, ``4``, ``'pointer'`` -> ``pointer``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def config_fields(text: str) -> dict[str, Any]:
    """The fields of a ``Config(block_sizes=[64, 64], num_warps=4)`` text (Helion's CSV column), as data."""
    if len(text) > MAX_TEXT:
        raise ParameterError(f"a Helion config of {len(text)} characters is too long to read")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise ParameterError(f"cannot read {text[:60]!r} as a Helion Config(...)") from None
    call = tree.body
    if (
        not isinstance(call, ast.Call)
        or ast.unparse(call.func) not in ("Config", "helion.Config")
        or call.args
        or any(k.arg is None for k in call.keywords)
    ):
        raise ParameterError(f"{text[:60]!r} is not Config(name=value, ...)")
    out: dict[str, Any] = {}
    for keyword in call.keywords:
        assert keyword.arg is not None
        try:
            value = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise ParameterError(f"{keyword.arg} in {text[:60]!r} is not a literal value") from None
        out[keyword.arg] = checked_value(keyword.arg, value)
    return out


def helion_fields(values: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """A variant's Helion fields (text as stored) -> the values ``helion.Config(**fields)`` takes."""
    return {n: field_value(n, v, defaults.get(n)) for n, v in values.items()}
