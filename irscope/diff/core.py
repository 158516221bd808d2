"""Diff two variants: the normalised line diff of one stage, a structural summary
of every stage, and what each Python line became in A and in B."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..ir.normalize import NormalizedLine, normalize, raw_lines
from ..ir.sourcemap import SourceMap
from ..ir.stats import StageStats, stage_stats
from ..types import Stage, Variant
from .algorithm import opcodes


@dataclass(frozen=True)
class Hunk:
    """One opcode of the line diff: ``tag`` is equal, replace, delete or insert."""

    tag: str
    a: list[NormalizedLine]
    b: list[NormalizedLine]


@dataclass(frozen=True)
class LineChange:
    """What one Python line became in each variant (instructions of the diffed stage)."""

    line: int
    source: str
    a: int
    b: int


@dataclass
class VariantDiff:
    a: Variant
    b: Variant
    stage: Stage
    raw: bool
    hunks: list[Hunk]
    stats: dict[Stage, tuple[StageStats | None, StageStats | None]] = field(default_factory=dict)
    by_line: list[LineChange] = field(default_factory=list)
    runtimes: tuple[Any, Any] = (None, None)  # filled in by the caller when measurements exist

    @property
    def changed(self) -> bool:
        return any(h.tag != "equal" for h in self.hunks)

    def counts(self) -> tuple[int, int]:
        """Lines removed from A and added in B."""
        removed = sum(len(h.a) for h in self.hunks if h.tag != "equal")
        added = sum(len(h.b) for h in self.hunks if h.tag != "equal")
        return removed, added


def diff_lines(a: list[NormalizedLine], b: list[NormalizedLine]) -> list[Hunk]:
    ops = opcodes([x.text for x in a], [x.text for x in b])
    return [Hunk(tag, a[i1:i2], b[j1:j2]) for tag, i1, i2, j1, j2 in ops]


def diff_variants(a: Variant, b: Variant, stage: Stage = Stage.PTX, raw: bool = False,
                  summary_stages: tuple[Stage, ...] | None = None) -> VariantDiff:
    """Diff ``stage`` of ``a`` and ``b`` (raises KeyError, with the reason, if either lacks it)."""
    text_a, text_b = a.listing(stage), b.listing(stage)
    if raw:
        hunks = diff_lines(raw_lines(text_a), raw_lines(text_b))
    else:
        hunks = diff_lines(normalize(stage, text_a), normalize(stage, text_b))
    stats: dict[Stage, tuple[StageStats | None, StageStats | None]] = {}
    for s in summary_stages if summary_stages is not None else Stage.compiled():
        positions = s is stage  # only the diffed stage needs line positions (for the by-line counts)
        stats[s] = (
            stage_stats(s, a.listings[s], positions) if s in a.listings else None,
            stage_stats(s, b.listings[s], positions) if s in b.listings else None,
        )
    result = VariantDiff(a, b, stage, raw, hunks, stats)
    same_source = a.kernel.file == b.kernel.file  # lines of different files do not align
    if same_source and stage in stats and stats[stage][0] is not None and stats[stage][1] is not None:
        result.by_line = by_python_line(a, b, stage, stats[stage][0], stats[stage][1])
    return result


def by_python_line(a: Variant, b: Variant, stage: Stage, stats_a: StageStats, stats_b: StageStats) -> list[LineChange]:
    """For each Python line of the kernel, its instruction count in A and in B."""
    counts = []
    for variant, stats in ((a, stats_a), (b, stats_b)):
        own = SourceMap(variant).own_lines(stage)
        per_line: dict[int, int] = {}
        for index, _ in stats.instructions:
            line = own[index] if index < len(own) else None
            if line:
                per_line[line] = per_line.get(line, 0) + 1
        counts.append(per_line)
    source = (a.listings.get(Stage.SOURCE) or b.listings.get(Stage.SOURCE) or "").splitlines()
    lines = sorted(set(counts[0]) | set(counts[1]))
    return [
        LineChange(n, source[n - 1].strip() if 0 < n <= len(source) else "", counts[0].get(n, 0), counts[1].get(n, 0))
        for n in lines
    ]
