"""Annotate: every line of a PTX or SASS listing explained in plain words, with the
Python line it came from, and a short list of findings about the kernel.

Annotating (``annotating/``): ``decode.py`` explains one PTX or SASS line part by part from the
knowledge base (``knowledge.py``, the JSON under ``irscope/knowledge/``); ``facts.py`` sorts one
stage's own instructions into what findings are about (accesses with widths and masks from
``ir/ptx.access`` and ``ir/sass.access``, copies and their commit/wait groups, TMA, barriers, MMA,
shuffles); ``findings.py`` turns those facts into findings that cite lines of the same stage with
their evidence; ``occupancy.py`` is NVIDIA's occupancy rules (cuda_occupancy.h) per arch;
``roles.py`` names operands by their role (wgmma/tcgen05 descriptors decoded, cp.async src-size);
``ir/sass_control.py`` reads each SASS instruction's control bits (stall, yield, scoreboards, reuse)
from the cubin, parsed by ``ir/elf.py``; ``reasons.py`` reads the TTIR's dataflow to say which
kernel arguments keep a load or store narrow, and in what role; ``widths.py`` turns that into the width
finding; ``masks.py`` says where a masked access's predicate comes from. ``ptx_lanes.py`` and
``sass_lanes.py`` prove a register's value in every thread (the twins of ``amd_lanes.py``), which
``smem_banks.py`` reads for shared-memory bank conflicts; ``atomics.py`` (locks), ``redundancy.py``
(threads holding the same element) and ``blackwell.py`` (tensor memory, clusters, partitions, scratch)
are findings of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.sourcemap import SourceMap
from ..types import HtmlDisplay, Stage, Variant, plural, short_repr
from .decode import Explanation
from .explain import explainer
from .findings import Finding, findings


@dataclass(frozen=True)
class AnnotatedLine:
    index: int  # 0-based
    text: str
    python_line: int | None
    explanation: Explanation


@dataclass(frozen=True)
class Annotation(HtmlDisplay):
    variant: Variant
    stage: Stage
    lines: list[AnnotatedLine]
    findings: list[Finding]

    def __repr__(self) -> str:
        return short_repr(
            "Annotation",
            self.variant.kernel.name,
            self.variant.config.label() or "default",
            self.stage.value,
            plural(len(self.lines), "line"),
            plural(len(self.findings), "finding"),
        )

    def unknown(self) -> list[AnnotatedLine]:
        """Instruction or directive lines the knowledge base could not fully explain."""
        return [line for line in self.lines if not line.explanation.known]


def explain_lines(variant: Variant, stage: Stage) -> list[Explanation]:
    """One explanation per line of ``stage`` (PTX or SASS)."""
    explain = explainer(variant, stage)
    if explain is None:
        raise ValueError(f"annotate explains PTX and SASS, not {stage.value}")
    return [explain(line) for line in variant.listing(stage).splitlines()]


def annotate(variant: Variant, stage: Stage = Stage.PTX) -> Annotation:
    smap = SourceMap(variant)
    own = smap.own_lines(stage)
    explanations = explain_lines(variant, stage)
    lines = [
        AnnotatedLine(i, text, own[i] if i < len(own) else None, explanation)
        for i, (text, explanation) in enumerate(zip(variant.listing(stage).splitlines(), explanations))
    ]
    return Annotation(variant, stage, lines, findings(variant, stage, smap))


__all__ = ["AnnotatedLine", "Annotation", "Finding", "annotate", "explain_lines", "explainer", "findings"]
