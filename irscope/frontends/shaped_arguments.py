"""``-S`` as element types and row-major shapes: how CuTe DSL and Helion kernels are given example arguments.

``float32[128,256], float32[128,256], int32`` describes two row-major 128x256 tensors of floats and an
``int32`` scalar; a ``?`` extent is dynamic. A tensor's ``:16`` is the alignment of its start in bytes the
compile may assume (CuTe DSL: ``from_dlpack``'s ``assumed_align``; without it, the element's size). The text
is checked here, without either language (a wrong name is one line before anything compiles); each frontend
makes its own example values from it (CuTe DSL: fake tensors; Helion: meta tensors).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import ParameterError

# The -S names of element types, and the DSL's numeric type each is (cutlass.<name>; Helion takes the
# same name from torch, torch.<name>).
DTYPES = {
    "bool": "Boolean",
    "int8": "Int8",
    "int16": "Int16",
    "int32": "Int32",
    "int64": "Int64",
    "uint8": "Uint8",
    "uint16": "Uint16",
    "uint32": "Uint32",
    "uint64": "Uint64",
    "float16": "Float16",
    "bfloat16": "BFloat16",
    "float32": "Float32",
    "float64": "Float64",
    "float8_e4m3fn": "Float8E4M3FN",
    "float8_e5m2": "Float8E5M2",
}
ITEM = re.compile(r"^([a-z0-9_]+)(?:\[([^\]]*)\](?::(\d+))?)?$")
HELP = (
    'element types and row-major shapes, e.g. -S "float32[128,256], float32[128,256]:16, int32" (? for a dynamic '
    "extent, :16 for a start aligned to 16 bytes)"
)


@dataclass(frozen=True)
class Argument:
    """One runtime argument: a tensor (``shape``) or a scalar (``shape`` None) of ``dtype``."""

    dtype: str  # the -S name: "float32"
    shape: tuple[int | None, ...] | None  # None: a scalar; an extent None: dynamic
    align: int | None = None  # bytes the tensor's start is assumed aligned to; None: its element's size

    def spelled(self) -> str:
        if self.shape is None:
            return self.dtype
        shape = f"{self.dtype}[{','.join('?' if d is None else str(d) for d in self.shape)}]"
        return shape + (f":{self.align}" if self.align else "")


def _items(text: str) -> list[str]:
    """``text`` split at its top-level commas (a shape's commas are inside brackets)."""
    items, depth, current = [], 0, ""
    for char in text:
        depth += char == "["
        depth -= char == "]"
        if char == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += char
    items.append(current.strip())
    return items


def parse_arguments(text: str, where: str) -> tuple[Argument, ...]:
    """The arguments ``text`` describes; ParameterError (one line, naming ``where``) for anything else."""
    out = []
    for item in _items(" ".join(text.split()).replace(" ", "")):
        m = ITEM.match(item.lower())
        if not m or m.group(1) not in DTYPES:
            raise ParameterError(f"{where}: cannot read {item!r} as an argument; give {HELP}")
        shape = None
        if m.group(2) is not None:
            extents = [e for e in m.group(2).split(",")]
            if not all(e == "?" or (e.isdigit() and int(e) > 0) for e in extents):
                raise ParameterError(f"{where}: {item!r} has an extent that is neither a positive number nor ?")
            shape = tuple(None if e == "?" else int(e) for e in extents)
        align = int(m.group(3)) if m.group(3) else None
        if align is not None and not (0 < align <= 1024 and align & (align - 1) == 0):
            raise ParameterError(f"{where}: {item!r} has an alignment that is not a power of two up to 1024")
        out.append(Argument(m.group(1), shape, align))
    return tuple(out)
