"""One decoder per stage for a variant: the CLI's ``annotate`` and the TUI's annotation pane
both explain lines through these, so they say the same thing about the same line."""

from __future__ import annotations

from typing import Callable

from ..types import Stage, Variant
from .decode import Explanation, PtxContext, ptx_line, sass_line
from .knowledge import load

# Where kernel parameters start in constant bank 0, per SM (as cuobjdump shows them).
SASS_PARAM_BASE = {70: 0x160, 75: 0x160, 80: 0x160, 86: 0x160, 87: 0x160, 89: 0x160, 90: 0x210}

LineExplainer = Callable[[str], Explanation]


def ptx_explainer(variant: Variant) -> LineExplainer:
    kb = load("ptx")
    params = [n for n, ty in (variant.compile_info.signature.items() if variant.compile_info else ()) if ty != "constexpr"]
    ctx = PtxContext(params=params)
    # .file comes after the body and .reg before it: read both tables before the first line.
    for line in variant.listings.get(Stage.PTX, "").splitlines():
        if line.lstrip().startswith((".file", ".reg")):
            ptx_line(kb, line, ctx)
    return lambda line: ptx_line(kb, line, ctx)


def sass_explainer(variant: Variant) -> LineExplainer:
    kb = load("sass")
    arch = variant.arch.removeprefix("sm_").rstrip("a")
    base = SASS_PARAM_BASE.get(int(arch)) if arch.isdigit() else None
    return lambda line: sass_line(kb, line, base)


def explainer(variant: Variant, stage: Stage) -> LineExplainer | None:
    """The decoder for ``stage``'s lines of ``variant``, or None where the stage has none."""
    make = stage.spec.behaviour("explainer")
    return None if make is None else make(variant)
