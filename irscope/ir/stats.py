"""Structural facts about one listing: its instructions, opcode mix, global memory accesses.

One vocabulary for every stage: an "instruction" is a PTX or SASS instruction, an
MLIR op (TTIR/TTGIR) or an LLVM instruction, named by its full opcode (PTX with
modifiers, e.g. ``ld.global.v4.b32``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import compress, count
from operator import itemgetter, methodcaller
from typing import NamedTuple

from ..types import Stage
from . import amdgcn, mlir, ptx, sass


class MemoryAccess(NamedTuple):
    index: int  # type: ignore[assignment]  # (shadows tuple.index)
    opcode: str
    kind: str  # "load", "store" or "atomic"
    bytes: int | None  # per thread and access, from the instruction's own size suffix (cp.async: its copy size)
    predicated: bool  # masked: a guard, or a cp.async / LDGSTS told to zero-fill


@dataclass(frozen=True)
class StageStats:
    stage: Stage
    instructions: list[tuple[int, str]] = field(default_factory=list)  # (line index, opcode)
    global_accesses: list[MemoryAccess] = field(default_factory=list)
    layouts: list[mlir.Layout] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.instructions)

    def opcode_counts(self) -> Counter:
        return Counter(op for _, op in self.instructions)

    def access_counts(self, kind: str) -> Counter:
        return Counter(a.opcode for a in self.global_accesses if a.kind == kind)

    def widest(self, kind: str) -> int | None:
        """Widest global access of ``kind`` in bytes per thread (16 = 128-bit vector)."""
        widths = [a.bytes for a in self.global_accesses if a.kind == kind and a.bytes]
        return max(widths) if widths else None

    def width_shares(self, kind: str) -> dict[int, float]:
        """Each access width's share of the bytes a thread moves by global accesses of ``kind`` (widest first):
        {16: 0.75, 2: 0.25} for 24 16-byte copies beside 64 2-byte loads."""
        return byte_shares(a.bytes for a in self.global_accesses if a.kind == kind)

    def predicated_accesses(self) -> int:
        return sum(a.predicated for a in self.global_accesses)


def byte_shares(widths: Iterable[int | None]) -> dict[int, float]:
    """Each width's share of the bytes moved by accesses of these widths (bytes each), widest first."""
    moved: Counter = Counter()
    for width in widths:
        if width:
            moved[width] += width
    total = sum(moved.values())
    return {width: moved[width] / total for width in sorted(moved, reverse=True)} if total else {}


def ptx_stats(stage: Stage, text: str, positions: bool = True) -> StageStats:
    ins = ptx.instructions(text)
    accesses = []
    # What an access moves follows from its opcode and whether it is guarded, but for cp.async (its
    # operands say how much it copies): worked out once per kind, listings repeat a few thousand times
    known: dict[tuple[str, bool], ptx.Access | None] = {}
    for i in ins:
        if "global" not in i.opcode:
            continue
        kind = (i.opcode, i.guard is not None)
        if kind in known:
            a = known[kind]
        else:
            a = ptx.access(i)
            if not i.opcode.startswith("cp."):
                known[kind] = a
        if a is not None and a.space == "global":
            accesses.append(MemoryAccess(i.index, i.opcode, a.kind, a.bytes, a.masked))
    return StageStats(stage, list(map(_INDEX_AND_OPCODE, ins)), accesses)


_INDEX_AND_OPCODE = itemgetter(0, 1)  # a PtxInstruction's (index, opcode)


def sass_stats(stage: Stage, text: str, positions: bool = True) -> StageStats:
    # Only global memory instructions (LDG, STG, ATOMG, REDG...) are made into SassInstructions and parsed
    # further. Without positions, one scan of the whole text.
    if positions:
        indices, matches = sass.instruction_matches(text)
    else:
        matches = list(sass.SASS_LINE_INSTRUCTION.finditer(text))
        indices = [-1] * len(matches)
    opcodes = list(map(_OPCODE, matches))
    accesses = []
    global_opcodes = {opcode for opcode in set(opcodes) if opcode.partition(".")[0] in SASS_GLOBAL_BASES}
    for n in compress(count(), map(global_opcodes.__contains__, opcodes)):
        index, m, opcode = indices[n], matches[n], opcodes[n]
        address, guard, _, operands = m.groups()
        a = sass.access(sass.SassInstruction(index, int(address, 16), opcode, operands.strip(), guard))
        if a is not None and a.space == "global":
            accesses.append(MemoryAccess(index, opcode, a.kind, a.bytes, a.masked))
    return StageStats(stage, list(zip(indices, opcodes)), accesses)


_OPCODE = methodcaller("group", 3)
SASS_GLOBAL_BASES = {base for base, (_, space) in sass.MEMORY_OPCODES.items() if space == "global"}


def mlir_stats(stage: Stage, text: str, positions: bool = True) -> StageStats:
    # Layout aliases (#blocked, #mma) only exist once layouts are assigned, in TTGIR.
    return StageStats(stage, mlir.mlir_ops(text), [], mlir.layouts(text))


def llvm_stats(stage: Stage, text: str, positions: bool = True) -> StageStats:
    return StageStats(stage, mlir.llvm_instructions(text))


def amdgcn_stats(stage: Stage, text: str, positions: bool = True) -> StageStats:
    ins = amdgcn.instructions(text)
    # global and buffer accesses, not spills (a buffer access on gfx90a); an AMD access is masked by EXEC,
    # which the instruction does not show
    accesses = [
        MemoryAccess(op.index, op.opcode, op.kind, op.bytes, False)
        for op in amdgcn.memory_ops(text)
        if op.space == "global"
    ]
    return StageStats(stage, ins, accesses)


def no_stats(stage: Stage, text: str, positions: bool = True) -> StageStats:
    return StageStats(stage)
