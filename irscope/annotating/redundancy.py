"""Threads that hold the same element: where a TTGIR layout spreads a tensor over more threads than it has
elements to give them, every element is held (and loaded, and computed) by several threads.

A blocked layout places ``sizePerThread[d] x threadsPerWarp[d] x warpsPerCTA[d]`` elements along dimension
``d`` before it wraps (Triton's ``BlockedEncodingAttr``); a tensor with fewer elements along ``d`` than
``threadsPerWarp[d] x warpsPerCTA[d]`` threads need for its ``sizePerThread[d]``-element pieces leaves the
rest of the threads holding copies: along ``d``, ``threads / ceil(size / sizePerThread)`` threads hold each
element. A slice of a blocked layout (``#ttg.slice<{dim = 0, parent = #blocked}>``, the result of a
reduction) is held by every thread along the sliced dimension. The factor is the product over dimensions.
FLA's chunk cumsum with BT=64 on 4 warps: a [64] tensor in ``sizePerThread [1], threadsPerWarp [32],
warpsPerCTA [4]``: 128 threads for 64 elements, each held by 2.

Only loads and stores are reported (Triton predicates a store's copies off, so each element is written once,
but every copy is still loaded and computed); other layouts (MMA, dot operands, linear) are not judged.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..ir.sourcemap import SourceMap
from ..types import Stage, Variant
from .finding import Finding

# #blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
BLOCKED = re.compile(
    r"^(#\w+) = #ttg\.blocked<\{sizePerThread = \[([\d, ]+)\], threadsPerWarp = \[([\d, ]+)\], "
    r"warpsPerCTA = \[([\d, ]+)\]"
)
# %b_s = tt.load %p, %m, %cst : tensor<64x!tt.ptr<f32>, #blocked>     tt.store %p, %v : tensor<64x!tt.ptr<f32>, #ttg.slice<{dim = 0, parent = #blocked}>>
MEMORY = re.compile(
    r"^\s*(?:%[\w$.-]+\s*=\s*)?tt\.(load|store)\s[^:]*:\s*tensor<(?P<dims>(?:\d+x)+)[^,]*,\s*(?P<layout>.+)>\s*(?:loc|$)"
)
SLICE = re.compile(r"^#ttg\.slice<\{dim = (\d+), parent = (#\w+)\}>")


@dataclass(frozen=True)
class Blocked:
    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]


@dataclass(frozen=True)
class Copies:
    """One load or store whose layout gives each element to ``factor`` threads."""

    index: int  # TTGIR line
    op: str
    shape: tuple[int, ...]
    layout: str
    factor: int
    threads: int  # threads of the block


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(","))


def layouts(ttgir: str) -> dict[str, Blocked]:
    out = {}
    for line in ttgir.splitlines():
        m = BLOCKED.match(line)
        if m:
            out[m[1]] = Blocked(_ints(m[2]), _ints(m[3]), _ints(m[4]))
    return out


def replication(shape: tuple[int, ...], layout: Blocked, sliced: int | None = None) -> int:
    """How many threads hold each element of ``shape`` in ``layout`` (a slice of it along ``sliced``)."""
    dims = list(range(len(layout.size_per_thread)))
    factor = 1
    shape_dims = iter(shape)
    for d in dims:
        threads = layout.threads_per_warp[d] * layout.warps_per_cta[d]
        if d == sliced:
            factor *= threads
            continue
        size = next(shape_dims, 1)
        pieces = max(1, -(-size // layout.size_per_thread[d]))
        factor *= max(1, threads // pieces)
    return factor


def copies(variant: Variant) -> list[Copies]:
    ttgir = variant.listings.get(Stage.TTGIR, "")
    found = layouts(ttgir)
    out = []
    for n, line in enumerate(ttgir.splitlines()):
        m = MEMORY.match(line)
        if not m:
            continue
        shape = tuple(int(x) for x in m["dims"].rstrip("x").split("x"))
        name = m["layout"].strip()
        s = SLICE.match(name)
        parent, sliced = (s[2], int(s[1])) if s else (name, None)
        layout = found.get(parent)
        if layout is None:
            continue
        threads = math.prod(layout.threads_per_warp) * math.prod(layout.warps_per_cta)
        factor = replication(shape, layout, sliced)
        if factor > 1:
            out.append(Copies(n, m[1], shape, name, factor, threads))
    return out


def redundancy_finding(variant: Variant, smap: SourceMap, stage: Stage) -> list[Finding]:
    """Loads and stores whose layout gives each element to several threads (from the TTGIR, as a finding of
    ``stage``: it is the same kernel)."""
    found = copies(variant)
    if not found:
        return []
    source = variant.listings.get(Stage.SOURCE, "").splitlines()
    rows = []
    for c in found:
        line = smap.source_line(Stage.TTGIR, c.index)
        where = f"line {line}" if line else f"TTGIR line {c.index + 1}"
        if line and 0 < line <= len(source):
            where += f" ({source[line - 1].strip()[:50]})"
        rows.append(
            f"{where}: tl.{c.op} of a [{', '.join(map(str, c.shape))}] tensor in {c.layout} on {c.threads} threads: "
            f"each element held by {c.factor}"
        )
    worst = max(found, key=lambda c: c.factor)
    share = 100 - 100 // worst.factor
    title = (
        f"{len(found)} tl.load/tl.store{'s' if len(found) != 1 else ''} give each element to {worst.factor} "
        f"threads: {share}% of the threads repeat another's work"
    )
    detail = (
        "The TTGIR's layout spreads these tensors over more threads than they have elements: "
        + "; ".join(rows)
        + ". The copies are loaded and computed by every thread that holds them (stores are predicated to one copy). "
        "A block sized to the tensor (more elements per program, or fewer warps) gives every thread its own."
    )
    python = [line for c in found if (line := smap.source_line(Stage.TTGIR, c.index)) is not None]
    lines = tuple(i for line in python for i in smap.lines_for(stage, line))
    return [Finding("redundant-threads", "warn", title, detail, stage, tuple(sorted(set(lines))), tuple(rows))]
