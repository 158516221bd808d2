"""A CUDA config's values, checked as C tokens before any reaches nvcc or ptxas.

nvcc runs its sub-tools through a shell, so a value it is handed on its command
line (``-DTILE=1$(touch x)``) runs as a command. A value can come from a session
someone sent (its stored sweep request, its parameter table), so none goes on
the command line: macros are ``#define`` lines of a header irscope writes
(``config_header``), and every value, a flag's included, must be a plain token
first: a number, true/false, or a C identifier (``float``, ``unsigned int``,
``cuda::std::plus``). Anything else is refused with the name and value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from ...errors import ParameterError

# 16, 0x10, 16u, 1024UL, -3
INTEGER = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]{0,3}")
# 0.5, 1e-3, .25f, 2.F
FLOATING = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?=[eE]))(?:[eE][+-]?[0-9]+)?[fFlL]?")
# float, unsigned int, cuda::std::plus, __half
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?: |::)[A-Za-z_][A-Za-z0-9_]*)*")
MACRO_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
LONGEST = 200
WHAT = "a number, true/false or a C identifier"

# The compiler flags a CUDA config sets: name -> (allowed values, what the refusal says).
FLAG_VALUES = {
    "fast_math": ((False, True), "true or false"),
    "maxrregcount": (range(0, 256), "an integer from 0 (no limit) to 255"),
    "opt": (range(0, 4), "an integer from 0 to 3"),
}


def c_token(name: str, value: Any) -> str:
    """``value`` as the C token a ``#define`` gives ``name``; ParameterError if it is not one."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, str):
        text = value.strip()
        if len(text) <= LONGEST and any(p.fullmatch(text) for p in (INTEGER, FLOATING, IDENTIFIER)):
            return text
    raise ParameterError(f"{name} must be {WHAT}, got {_shown(value)}")


def flag_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """The compiler flags among ``values``, each checked against what the flag takes."""
    out = {}
    for name, (allowed, words) in FLAG_VALUES.items():
        if name not in values:
            continue
        value = values[name]
        if type(value) is not type(next(iter(allowed))) or value not in allowed:
            raise ParameterError(f"{name} must be {words}, got {_shown(value)}")
        out[name] = value
    return out


def config_header(values: Mapping[str, Any], macros: Mapping[str, Any]) -> str:
    """The ``#define`` lines that set the file's tunable ``macros`` to their ``values``.

    A macro at the file's own default (``macros[name]``, read from its ``#ifndef``) is left to the
    file: its text is the file's, compiled as written, whatever it is (``(2.0f * x[i])``). Only a
    value that came from elsewhere (``-c``, ``-s``, a spec, a session) must be a token."""
    lines = []
    for name in macros:
        if name not in values or _same(values[name], macros[name]):
            continue
        if not MACRO_NAME.fullmatch(name):
            raise ParameterError(f"{_shown(name)} is not a C macro name")
        lines.append(f"#define {name} {c_token(name, values[name])}\n")
    return "".join(lines)


def _same(a: Any, b: Any) -> bool:
    return a == b and type(a) is type(b)


def _shown(value: Any) -> str:
    """The value, quoted and cut short, with control characters escaped: for a one-line refusal."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
