"""Where a kernel's time goes, per SASS line and per Python line: Nsight Compute's per-instruction
counters (measure/ncu_report.py, kept as JSON) joined to irscope's SASS listing by instruction offset,
and through the source map to the kernel's Python lines."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..ir import sass as sass_ir
from ..ir.sourcemap import SourceMap
from ..types import Stage, Variant

# //--------------------- .text.square_kernel --------------------------
SECTION = re.compile(r"^\s*//-+\s*\.text\.(\S+)\s*-*\s*$")


@dataclass(frozen=True)
class HotLine:
    index: int  # 0-based SASS line
    offset: int  # the instruction's offset in its kernel (/*0220*/)
    text: str
    python_line: int | None
    samples: float  # warp-state samples at this instruction
    share: float  # of all samples in the kernel
    executed: float  # warp-level instructions executed
    stalls: dict[str, float]  # samples by stall reason, most first


def sass_offsets(text: str, kernel: str | None = None) -> dict[int, int]:
    """SASS offset -> 0-based line, within ``kernel``'s section where the listing names it (a cubin of
    several kernels restarts offsets at 0 for each)."""
    lines = text.splitlines()
    bounds = [(i, m[1]) for i, line in enumerate(lines) if (m := SECTION.match(line))]
    start, end = 0, len(lines)
    if kernel and bounds:
        for k, (i, name) in enumerate(bounds):
            if name == kernel:
                start, end = i, bounds[k + 1][0] if k + 1 < len(bounds) else len(lines)
                break
    return {ins.address: ins.index for ins in sass_ir.instructions(text) if start <= ins.index < end}


def hot_lines(variant: Variant, counters, top: int | None = None) -> list[HotLine]:
    """The SASS instructions of ``variant`` with their counters (a ``KernelCounters``), most samples first."""
    text = variant.listing(Stage.SASS)
    lines = text.splitlines()
    where = sass_offsets(text, counters.name)
    own = SourceMap(variant).own_lines(Stage.SASS)
    total = sum(counters.samples(offset) for offset in counters.per_offset) or 1.0
    out = []
    for offset, values in counters.per_offset.items():
        index = where.get(offset)
        if index is None:
            continue
        samples = counters.samples(offset)
        out.append(
            HotLine(
                index,
                offset,
                lines[index].strip(),
                own[index] if index < len(own) else None,
                samples,
                samples / total,
                values.get("inst_executed", 0.0),
                counters.stalls(offset),
            )
        )
    out.sort(key=lambda h: (-h.samples, -h.executed, h.index))
    return out[:top] if top else out


def python_line_shares(hot: list[HotLine]) -> dict[int, float]:
    """Each Python line's share of the kernel's samples (the SASS it became, summed)."""
    shares: dict[int, float] = {}
    for h in hot:
        if h.python_line:
            shares[h.python_line] = shares.get(h.python_line, 0.0) + h.share
    return dict(sorted(shares.items(), key=lambda item: -item[1]))


def matched(variant: Variant, counters) -> tuple[int, int]:
    """How many of the report's instruction offsets are instructions of irscope's SASS: (matched, in report).
    A report of another binary (another config, arch or compiler) matches few."""
    where = sass_offsets(variant.listing(Stage.SASS), counters.name)
    return sum(offset in where for offset in counters.per_offset), len(counters.per_offset)


def to_json(hot: list[HotLine]) -> list[dict[str, Any]]:
    return [
        {
            "line": h.index + 1,
            "offset": f"{h.offset:#06x}",
            "sass": h.text,
            "python_line": h.python_line,
            "samples": h.samples,
            "share": round(h.share, 4),
            "executed": h.executed,
            "stalls": h.stalls,
        }
        for h in hot
    ]
