"""``-S`` for a CuTe DSL kernel (the syntax: frontends/shaped_arguments.py), made into what ``cute.compile`` takes.

A ``?`` extent becomes an ``Int32`` the compiled function takes at run time; a tensor's ``:16`` becomes
``assumed_align`` (as the DSL's examples give for torch's tensors): without it, the element's size, and a
128-bit copy of four floats does not verify. The DSL's fake tensors (``make_fake_compact_tensor``: a layout
and no memory) are made only to compile.
"""

from __future__ import annotations

from typing import Any

from ..shaped_arguments import DTYPES, HELP, Argument, parse_arguments

__all__ = ["HELP", "Argument", "fake_arguments", "parse_arguments"]


def fake_arguments(arguments: tuple[Argument, ...]) -> list[Any]:
    """What ``cute.compile`` is given for them: fake tensors (row-major, no memory) and typed scalars."""
    import cutlass
    import cutlass.cute as cute
    from cutlass.cute.runtime import make_fake_compact_tensor

    out: list[Any] = []
    for arg in arguments:
        dtype = getattr(cutlass, DTYPES[arg.dtype])
        if arg.shape is None:
            out.append(dtype(0))
            continue
        shape = tuple(cute.sym_int32() if d is None else d for d in arg.shape)
        order = tuple(reversed(range(len(shape))))  # the last mode is the contiguous one, as in torch
        out.append(make_fake_compact_tensor(dtype, shape, stride_order=order, assumed_align=arg.align))
    return out
