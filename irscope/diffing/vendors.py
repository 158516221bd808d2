"""Two vendors' builds of one kernel, side by side per Python line: what each backend made of the same
source line in its own machine code (NVIDIA's SASS, or PTX where there is none; AMD's AMDGCN).

Their listings share no instruction, so they are not diffed line by line; each is counted on its own
(``ir/stats.py``), mapped to the Python lines by its own source map, and the two counts meet on the
Python line: instructions, global accesses by width per thread or lane, matrix instructions.

Two kernels in different files (a Triton kernel and its CuTe DSL twin: one operator in two languages) share
no source line either: ``across_sources`` counts each one's machine code per line of its own source, the
two tables one above the other (``AcrossSources``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ..ir.dialects import stage_stats
from ..ir.sourcemap import SourceMap
from ..ir.stats import StageStats
from ..types import Stage, Variant

# mma.sync / wgmma / tcgen05.mma (PTX), HMMA / HGMMA / UTCHMMA ... (SASS), v_mfma / v_wmma (AMDGCN)
MATRIX = re.compile(r"^(?:mma\b|wgmma\.mma|tcgen05\.mma|[HIDBQO]G?MMA|UTC\w*MMA|v_mfma_|v_smfmac_|v_wmma_|v_swmmac_)")


def machine_stage(variant: Variant) -> Stage | None:
    """The deepest machine code a variant holds: SASS, else PTX, else AMDGCN."""
    return next((s for s in (Stage.SASS, Stage.PTX, Stage.AMDGCN) if s in variant.listings), None)


@dataclass(frozen=True)
class LineAcross:
    line: int
    source: str
    a: int  # instructions of A's machine stage from this line
    b: int
    access_a: tuple[str, ...]  # "load 16 B x2"
    access_b: tuple[str, ...]
    matrix_a: tuple[str, ...]  # "v_mfma_f32_32x32x8_f16 x12"
    matrix_b: tuple[str, ...]


@dataclass(frozen=True)
class AcrossVendors:
    stage_a: Stage
    stage_b: Stage
    lines: list[LineAcross]


def across_vendors(a: Variant, b: Variant) -> AcrossVendors | None:
    """Per Python line, each variant's machine code; None unless both have one and they differ in kind."""
    stage_a, stage_b = machine_stage(a), machine_stage(b)
    if stage_a is None or stage_b is None or stage_a == stage_b or a.kernel.file != b.kernel.file:
        return None
    sides = [_by_line(v, s) for v, s in ((a, stage_a), (b, stage_b))]
    source = (a.listings.get(Stage.SOURCE) or "").splitlines()
    lines = sorted(set(sides[0]) | set(sides[1]))
    empty: tuple[int, tuple[str, ...], tuple[str, ...]] = (0, (), ())
    rows = []
    for n in lines:
        (ca, xa, ma), (cb, xb, mb) = sides[0].get(n, empty), sides[1].get(n, empty)
        text = source[n - 1].strip() if 0 < n <= len(source) else ""
        rows.append(LineAcross(n, text, ca, cb, xa, xb, ma, mb))
    return AcrossVendors(stage_a, stage_b, rows)


def _by_line(variant: Variant, stage: Stage) -> dict[int, tuple[int, tuple[str, ...], tuple[str, ...]]]:
    """Python line -> (instructions, global accesses by kind and width, matrix instructions by opcode)."""
    stats: StageStats = stage_stats(stage, variant.listings[stage], True)
    own = SourceMap(variant).own_lines(stage)

    def line_of(index: int) -> int | None:
        return own[index] if 0 <= index < len(own) else None

    counts: Counter = Counter()
    accesses: dict[int, Counter] = {}
    matrix: dict[int, Counter] = {}
    for index, opcode in stats.instructions:
        line = line_of(index)
        if not line:
            continue
        counts[line] += 1
        if MATRIX.match(opcode):
            matrix.setdefault(line, Counter())[opcode] += 1
    for access in stats.global_accesses:
        line = line_of(access.index)
        if line:
            width = f"{access.bytes} B" if access.bytes else "? B"
            accesses.setdefault(line, Counter())[f"{access.kind} {width}"] += 1

    def rows(counter: Counter | None) -> tuple[str, ...]:
        return tuple(f"{k} x{n}" for k, n in sorted((counter or Counter()).items()))

    return {n: (counts[n], rows(accesses.get(n)), rows(matrix.get(n))) for n in counts}


@dataclass(frozen=True)
class LineCode:
    """What one source line of one kernel became: its instructions, global accesses, matrix instructions."""

    line: int
    source: str
    instructions: int
    accesses: tuple[str, ...]
    matrix: tuple[str, ...]


@dataclass(frozen=True)
class SourceSide:
    frontend: str  # "triton", "cute": the language that compiled it
    kernel: str
    file: str
    stage: Stage  # its machine code: SASS, else PTX, else AMDGCN
    lines: list[LineCode]

    @property
    def instructions(self) -> int:
        return sum(row.instructions for row in self.lines)


@dataclass(frozen=True)
class AcrossSources:
    a: SourceSide
    b: SourceSide


def across_sources(a: Variant, b: Variant) -> AcrossSources | None:
    """Two kernels of different files (one operator, two languages): each one's machine code per line of its
    own source; None unless both have machine code."""
    sides = []
    for v in (a, b):
        stage = machine_stage(v)
        if stage is None:
            return None
        source = (v.listings.get(Stage.SOURCE) or "").splitlines()
        counted = _by_line(v, stage)
        rows = [
            LineCode(n, source[n - 1].strip() if 0 < n <= len(source) else "", *counted[n]) for n in sorted(counted)
        ]
        sides.append(SourceSide(v.frontend or "triton", v.kernel.name, v.kernel.file, stage, rows))
    return AcrossSources(sides[0], sides[1])
