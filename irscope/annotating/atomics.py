"""Atomic operations counted by kind and source line, and a compare-and-swap spin loop named as such.

PTX names the operation in the opcode (``atom.global.acq_rel.gpu.cas.b32``, ``red.global.add.f32``), SASS
too (``ATOMG.E.CAS.STRONG.GPU``, ``REDG.E.ADD.F32.FTZ.RN``, ``ATOMS.ADD``). A *spin loop* is what the
listing shows a lock's acquire to be: a compare-and-swap inside a loop, that is between a label and a
backward branch to it (``$L__BB0_1: ... atom.cas ... @%p3 bra $L__BB0_1``; ``.L_x_0: ... ATOMG.E.CAS ...
@!P1 BRA `(.L_x_0)``). Where an exchange follows the loop (the lock's release, ``tl.atomic_xchg(Lock, 0)``)
it is named a lock; a CAS loop without one (a float add done by CAS) only a CAS loop. Every thread that
waits in it holds its warp's issue slots while another program holds the lock.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ..ir.sourcemap import SourceMap
from ..types import Stage, Variant
from .facts import StageFacts
from .finding import Finding

OPERATIONS = ("cas", "exch", "add", "inc", "dec", "min", "max", "and", "or", "xor")
# $L__BB0_1:     .L_x_0:
LABEL = {Stage.PTX: re.compile(r"^\s*(\$L__BB\d+_\d+):"), Stage.SASS: re.compile(r"^\s*(\.L_x_\d+):")}
TARGET = re.compile(r"(\$L__BB\d+_\d+|\.L_x_\d+)")


@dataclass(frozen=True)
class Atomic:
    index: int
    opcode: str
    operation: str  # cas, exch, add, ...
    space: str  # global, shared, generic
    returns: bool  # atom (its old value comes back) or red (a reduction without one)


def atomics(facts: StageFacts) -> list[Atomic]:
    out = []
    for ins, access in facts.accesses:
        if access.kind != "atomic":
            continue
        mods = [m.lower() for m in ins.modifiers]
        operation = next((m for m in mods if m in OPERATIONS), "?")
        returns = ins.base.lower() in ("atom", "atomg", "atoms")
        out.append(Atomic(ins.index, ins.opcode, operation, access.space, returns))
    return out


def _loops(stage: Stage, text: str, facts: StageFacts) -> list[tuple[int, int]]:
    """(label line, branch line) of each backward branch: the lines between them are a loop."""
    lines = text.split("\n")
    labels = {m[1]: n for n, line in enumerate(lines) if (m := LABEL[stage].match(line))}
    out = []
    for ins in facts.instructions:
        if ins.base not in ("bra", "BRA"):
            continue
        m = TARGET.search(ins.operand_text)
        start = labels.get(m[1]) if m else None
        if start is not None and start < ins.index:
            out.append((start, ins.index))
    return out


def atomics_finding(variant: Variant, facts: StageFacts, smap: SourceMap) -> list[Finding]:
    found = atomics(facts)
    if not found:
        return []
    stage = facts.stage
    own = smap.own_lines(stage)
    text = variant.listings[stage]
    kinds = Counter(f"{a.operation} ({a.space}{'' if a.returns else ', no value back'})" for a in found)
    per_line: dict[int | None, Counter[str]] = {}
    for a in found:
        per_line.setdefault(own[a.index] if a.index < len(own) else None, Counter())[a.operation] += 1
    rows = [
        f"line {line}: " + ", ".join(f"{op} x{n}" for op, n in counts.most_common())
        for line, counts in sorted(per_line.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))
        if line
    ]
    loops = _loops(stage, text, facts)
    spins = [(a, start, end) for a in found if a.operation == "cas" for start, end in loops if start < a.index < end]
    detail = (
        f"{len(found)} atomic operations in the {stage.value.upper()}: "
        + ", ".join(f"{k} x{n}" for k, n in kinds.most_common())
        + (f"; by source line: {'; '.join(rows)}" if rows else "")
        + ". An atomic on one address is served one at a time by the L2: the programs that hit it wait in turn."
    )
    title = f"{len(found)} atomic operations: " + ", ".join(
        f"{op} x{n}" for op, n in Counter(a.operation for a in found).most_common()
    )
    lines = {a.index for a in found}
    severity = "info"
    if spins:
        cas, start, end = spins[0]
        releases = [a for a in found if a.operation == "exch" and a.index > end]
        where = f"line {own[cas.index]}" if cas.index < len(own) and own[cas.index] else "its line"
        if releases:
            release = releases[-1]
            at = own[release.index] if release.index < len(own) else None
            title += f"; a spin lock ({where}'s compare-and-swap retried in a loop)"
            detail += (
                f" A spin lock: the compare-and-swap of {where} ({stage.value.upper()} line {cas.index + 1}) sits in a "
                f"loop (lines {start + 1} to {end + 1}, the branch back at {end + 1}), retried until it succeeds, "
                f"and an exchange after the loop releases it ({stage.value.upper()} line {release.index + 1}"
                + (f", source line {at}" if at else "")
                + "). Each program that finds it taken spins, holding its warps' issue slots: more groups of "
                "partial buffers (fewer programs per lock) shorten the wait."
            )
            lines |= {release.index}
        else:
            title += f"; a compare-and-swap loop ({where})"
            detail += (
                f" The compare-and-swap of {where} ({stage.value.upper()} line {cas.index + 1}) sits in a loop "
                f"(lines {start + 1} to {end + 1}): retried until no other thread changed the value in between."
            )
        lines |= {end}
        severity = "warn"
    evidence = (*(f"{k} x{n}" for k, n in kinds.most_common()), *rows)
    return [Finding("atomics", severity, title, detail, stage, tuple(sorted(lines)), evidence)]
