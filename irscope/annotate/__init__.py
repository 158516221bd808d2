"""Annotate: every line of a PTX or SASS listing explained in plain words, with the
Python line it came from, and a short list of findings about the kernel."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.sourcemap import SourceMap
from ..types import Stage, Variant
from .decode import Explanation, PtxContext, ptx_line, sass_line
from .findings import Finding, findings
from .knowledge import load

# Where kernel parameters start in constant bank 0, per SM (as cuobjdump shows them).
SASS_PARAM_BASE = {70: 0x160, 75: 0x160, 80: 0x160, 86: 0x160, 87: 0x160, 89: 0x160, 90: 0x210}


@dataclass(frozen=True)
class AnnotatedLine:
    index: int  # 0-based
    text: str
    python_line: int | None
    explanation: Explanation


@dataclass(frozen=True)
class Annotation:
    variant: Variant
    stage: Stage
    lines: list[AnnotatedLine]
    findings: list[Finding]

    def unknown(self) -> list[AnnotatedLine]:
        """Instruction or directive lines the knowledge base could not fully explain."""
        return [line for line in self.lines if not line.explanation.known]


def explain_lines(variant: Variant, stage: Stage) -> list[Explanation]:
    """One explanation per line of ``stage`` (PTX or SASS)."""
    text = variant.listing(stage)
    if stage is Stage.PTX:
        kb = load("ptx")
        params = [n for n, ty in (variant.compile_info.signature.items() if variant.compile_info else ()) if ty != "constexpr"]
        ctx = PtxContext(params=params)
        for line in text.splitlines():  # .file comes after the body, .loc before: read the table first
            if line.lstrip().startswith(".file"):
                ptx_line(kb, line, ctx)
        return [ptx_line(kb, line, ctx) for line in text.splitlines()]
    if stage is Stage.SASS:
        kb = load("sass")
        base = SASS_PARAM_BASE.get(int(variant.arch.removeprefix("sm_"))) if variant.arch.startswith("sm_") else None
        return [sass_line(kb, line, base) for line in text.splitlines()]
    raise ValueError(f"annotate explains PTX and SASS, not {stage.value}")


def annotate(variant: Variant, stage: Stage = Stage.PTX) -> Annotation:
    smap = SourceMap(variant)
    own = smap.own_lines(stage)
    explanations = explain_lines(variant, stage)
    lines = [
        AnnotatedLine(i, text, own[i] if i < len(own) else None, explanation)
        for i, (text, explanation) in enumerate(zip(variant.listing(stage).splitlines(), explanations))
    ]
    return Annotation(variant, stage, lines, findings(variant, smap))


__all__ = ["AnnotatedLine", "Annotation", "Finding", "annotate", "explain_lines", "findings"]
