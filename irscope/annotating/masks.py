"""Where a Triton kernel's masked accesses get their predicate, as far as its own listings show it.

A PTX or SASS access is masked by a guard (``@%p``), by a cp.async src-size that may be less than its
copy size (LDGSTS's zero-fill predicate), or by a branch or exit that skips it (facts.py). Not every
such mask is the user's ``mask=``: the software pipeliner guards the copies it issues ahead of the loop
(and in it) with whether that iteration exists, and Triton lets one thread store a scalar. So a masked
access is credited to ``mask=`` only where the TTIR (the kernel as written, before any of that) has a
``tt.load``/``tt.store`` with a mask operand on the same Python line. Where it has none, the predicate is
the compiler's: the pipeliner's where the TTGIR's copy on that line carries a mask built by comparing a
loop's induction variable or bound (``arith.cmpi slt, %iv, %c448_i32``), else simply "added by the
compiler". An access with no Python line, or none of whose line's TTIR accesses is known, is said to be
of unknown origin.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..ir.sourcemap import SourceMap
from ..types import Stage, Variant

# %x = tt.load %ptr, %mask, %other : ...        tt.store %ptr, %value, %mask : ...
TT_MEMORY = re.compile(r"^\s*(?:%[\w$.-]+\s*=\s*)?tt\.(load|store)\s+(?P<operands>[^:{]*)")
NAME = re.compile(r"%[\w$.-]+")
# %load_87 = ttg.async_copy_global_to_local %load_84, %load_85 mask %acc_86 {...}
# %x = tt.load %ptrs, %mask ...  (a load the pipeliner rewrote, in the TTGIR)
TTGIR_MASKED = re.compile(
    r"^\s*%[\w$.-]+\s*=\s*(?:ttg\.async_copy_global_to_local\s+%[\w$.-]+,\s*%[\w$.-]+\s+mask\s+(?P<copy>%[\w$.-]+)"
    r"|tt\.load\s+%[\w$.-]+,\s*(?P<load>%[\w$.-]+))"
)
# %acc_63 = arith.cmpi slt, %acc_56, %c448_i32 : i32
DEF = re.compile(r"^\s*(%[\w$.-]+)(?::\d+)?\s*=\s*([\w.]+)\s*([^:{]*)")
# %acc:9 = scf.for %iv = %c0_i32 to %2 step %c1_i32 iter_args(...)
FOR = re.compile(r"scf\.for\s+(%[\w$.-]+)\s*=\s*(%[\w$.-]+)\s+to\s+(%[\w$.-]+)\s+step")
FOLLOW = ("tt.splat", "tt.broadcast", "tt.expand_dims", "arith.andi", "arith.ori", "ttg.convert_layout")


@dataclass(frozen=True)
class Origins:
    """The masked accesses of one listing (its lines) by where their predicate comes from."""

    from_mask: tuple[int, ...]  # the TTIR has a mask= on that Python line
    pipelined: tuple[int, ...]  # none there; the TTGIR's copy carries the pipeliner's loop guard
    added: tuple[int, ...]  # none there, and the TTGIR shows no loop guard: another predicate of the compiler's
    unplaced: tuple[int, ...]  # no Python line, or no TTIR access on it
    mask_lines: tuple[int, ...]  # Python lines with a mask=
    pipelined_lines: tuple[int, ...]  # Python lines whose copies the pipeliner guards


def mask_origins(variant: Variant, smap: SourceMap, stage: Stage, masked: Sequence[int]) -> Origins | None:
    """The origin of each masked access at ``masked`` (lines of ``stage``); None without a TTIR."""
    ttir = variant.listings.get(Stage.TTIR, "")
    if not ttir:
        return None
    with_mask: set[int] = set()
    without: set[int] = set()
    for n, line in enumerate(ttir.splitlines()):
        m = TT_MEMORY.match(line)
        if not m:
            continue
        operands = NAME.findall(m["operands"])
        masked_here = len(operands) > (2 if m[1] == "store" else 1)
        python = smap.source_line(Stage.TTIR, n)
        if python:
            (with_mask if masked_here else without).add(python)
    guarded = _pipeliner_lines(variant.listings.get(Stage.TTGIR, ""), smap)
    own = smap.own_lines(stage)
    groups: dict[str, list[int]] = {"mask": [], "pipelined": [], "added": [], "unplaced": []}
    for index in masked:
        python = own[index] if index < len(own) else None
        if python in with_mask:
            groups["mask"].append(index)
        elif python in without:
            groups["pipelined" if python in guarded else "added"].append(index)
        else:
            groups["unplaced"].append(index)
    placed = {own[i] for i in groups["pipelined"] if i < len(own)}
    return Origins(
        tuple(groups["mask"]),
        tuple(groups["pipelined"]),
        tuple(groups["added"]),
        tuple(groups["unplaced"]),
        tuple(sorted(with_mask)),
        tuple(sorted(p for p in placed if p)),
    )


def _pipeliner_lines(ttgir: str, smap: SourceMap) -> set[int]:
    """Python lines of TTGIR loads and copies whose mask compares a loop's induction variable or bound."""
    if not ttgir:
        return set()
    lines = ttgir.splitlines()
    defs: dict[str, tuple[str, list[str]]] = {}
    loop_values: set[str] = set()
    for line in lines:
        m = DEF.match(line)
        if m:
            defs[m[1]] = (m[2], NAME.findall(m[3]))
        for found in FOR.finditer(line):
            loop_values.update(found.groups())  # the induction variable and both bounds (the step is 1 here)
    out = set()
    for n, line in enumerate(lines):
        m = TTGIR_MASKED.match(line)
        if not m:
            continue
        mask = m["copy"] or m["load"]
        if _compares_a_loop(mask, defs, loop_values, 0):
            python = smap.source_line(Stage.TTGIR, n)
            if python:
                out.add(python)
    return out


def _compares_a_loop(name: str, defs, loop_values: set[str], depth: int) -> bool:
    if depth > 12 or name not in defs:
        return False
    op, operands = defs[name]
    if op == "arith.cmpi":
        return any(x in loop_values for x in operands)
    if op in FOLLOW:
        return any(_compares_a_loop(x, defs, loop_values, depth + 1) for x in operands)
    return False
