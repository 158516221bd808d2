"""One decoder per explained dialect (PTX, SASS, AMDGCN) for a variant's stage: the CLI's ``annotate`` and the
TUI's annotation pane both explain lines through these, so they say the same thing about the same line."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..ir.dialects import dialect_of
from ..ir.sass_control import Control
from ..types import Stage, Variant
from .amdgcn_decode import AmdgcnContext, amdgcn_line
from .decode import Explanation, PtxContext, ptx_line, sass_line
from .knowledge import load

# Where kernel parameters start in constant bank 0, per SM (as cuobjdump shows them).
SASS_PARAM_BASE = {70: 0x160, 75: 0x160, 80: 0x160, 86: 0x160, 87: 0x160, 89: 0x160, 90: 0x210}

LineExplainer = Callable[[str], Explanation]

#   //--------------------- .text.mm --------------------------
SECTION_HEADER = re.compile(r"^//-+ (\.text\.\S+) -+$")
#         /*0220*/              @!P6 LDG.E.128 R16, desc[UR8][R4.64] ;
SASS_ADDRESS = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s")


def ptx_explainer(variant: Variant, stage: Stage = Stage.PTX) -> LineExplainer:
    kb = load("ptx")
    params = [
        n for n, ty in (variant.compile_info.signature.items() if variant.compile_info else ()) if ty != "constexpr"
    ]
    from_triton = variant.frontend == "triton"
    ctx = PtxContext(params=params, adds_params="Triton" if from_triton else "")
    text = variant.listings.get(stage, "")
    # .file comes after the body and .reg before it: read both tables before the first line.
    for line in text.splitlines():
        if line.lstrip().startswith((".file", ".reg")):
            ptx_line(kb, line, ctx)
    ctx.scan(text)
    return lambda line: ptx_line(kb, line, ctx)


def sass_explainer(variant: Variant, stage: Stage = Stage.SASS) -> LineExplainer:
    kb = load("sass")
    arch = variant.arch.removeprefix("sm_").rstrip("a")
    base = SASS_PARAM_BASE.get(int(arch)) if arch.isdigit() else None
    by_text = _controls_by_line_text(variant)
    return lambda line: sass_line(kb, line, base, by_text.get(line.strip()))


def line_controls(variant: Variant) -> list[Control | None]:
    """For each line of the SASS listing, the control bits of the instruction on it (None: not an instruction)."""
    return _controls_in_listing_order(variant)


def _controls_in_listing_order(variant: Variant) -> list[Control | None]:
    from ..ir.sass_control import controls  # reads the cubin's code bytes; runs no tool

    text = variant.listings.get(Stage.SASS, "")
    try:
        by_section = controls(variant.cubin) if variant.cubin else {}
    except (ValueError, IndexError):
        by_section = {}
    out: list[Control | None] = []
    # A listing without section headers (nvdisasm's own format) can only be read for a one-kernel cubin.
    section: dict[int, Control] = next(iter(by_section.values())) if len(by_section) == 1 else {}
    for line in text.splitlines():
        header = SECTION_HEADER.match(line)
        if header:
            section = by_section.get(header.group(1), {})
        address = SASS_ADDRESS.match(line)
        out.append(section.get(int(address.group(1), 16)) if address and section else None)
    return out


def _controls_by_line_text(variant: Variant) -> dict[str, Control]:
    """Line text -> control bits: the explainer sees one line at a time, and a line's text
    (address and instruction) names it within its listing. A text seen twice with two
    different controls (two kernels in one cubin) is left out rather than guessed."""
    out: dict[str, Control] = {}
    clash: set[str] = set()
    for line, control in zip(variant.listings.get(Stage.SASS, "").splitlines(), _controls_in_listing_order(variant)):
        key = line.strip()
        if control is None:
            continue
        if out.get(key, control) != control:
            clash.add(key)
        out[key] = control
    for key in clash:
        del out[key]
    return out


def amdgcn_explainer(variant: Variant, stage: Stage = Stage.AMDGCN) -> LineExplainer:
    kb = load("amdgcn")
    ctx = AmdgcnContext()
    ctx.scan(variant.listings.get(stage, ""))  # the metadata block and the .file table, before any line
    return lambda line: amdgcn_line(kb, line, ctx)


# The dialects whose lines are decoded in plain words (each marked ``explained`` in ir/dialects.py), and how.
EXPLAINERS: dict[str, Callable[[Variant, Stage], LineExplainer]] = {
    "ptx": ptx_explainer,
    "sass": sass_explainer,
    "amdgcn": amdgcn_explainer,
}


def explainer(variant: Variant, stage: Stage) -> LineExplainer | None:
    """The decoder for ``stage``'s lines of ``variant``, or None where its dialect has none."""
    make = EXPLAINERS.get(dialect_of(stage).key)
    return None if make is None else make(variant, stage)
