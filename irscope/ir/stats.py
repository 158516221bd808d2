"""Structural facts about one listing: its instructions, opcode mix, global memory accesses.

One vocabulary for every stage: an "instruction" is a PTX or SASS instruction, an
MLIR op (TTIR/TTGIR) or an LLVM instruction, named by its full opcode (PTX with
modifiers, e.g. ``ld.global.v4.b32``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from ..types import Stage
from . import mlir, ptx, sass


class MemoryAccess(NamedTuple):
    index: int
    opcode: str
    kind: str  # "load" or "store"
    bytes: int | None  # per thread and access
    predicated: bool


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

    def predicated_accesses(self) -> int:
        return sum(a.predicated for a in self.global_accesses)


_PTX_LOADS = ("ld", "ldu", "cp")  # cp.async.* global -> shared is a global load


_SASS_GLOBAL = ("LDG", "STG", "LDGSTS", "ATOMG", "REDG", "RED")


@lru_cache(maxsize=32)
def stage_stats(stage: Stage, text: str, positions: bool = True) -> StageStats:
    """Facts about ``text``, by the stage's own counter (see stages.py); without ``positions``
    (line indices are -1) SASS is scanned much faster. Kept for the next caller that asks about the
    same listing (a diff's summary, the TUI's panes): shared, not to be changed."""
    return stage.spec.behaviour("stats")(stage, text, positions)


def ptx_stats(stage: Stage, text: str, positions: bool = True) -> StageStats:
    ins = ptx.instructions(text)
    accesses = [
        MemoryAccess(i.index, i.opcode, "load" if i.base in _PTX_LOADS else "store",
                     _cp_async_bytes(i) if i.base == "cp" else i.access_bytes, i.guard is not None)
        for i in ins if "global" in i.opcode and i.base in ("ld", "ldu", "st", "cp", "atom", "red")
    ]
    return StageStats(stage, [(i.index, i.opcode) for i in ins], accesses)


def sass_stats(stage: Stage, text: str, positions: bool = True) -> StageStats:
    if not positions:
        pairs = sass.guards_and_opcodes(text)
        accesses = [
            MemoryAccess(-1, op, "load" if op.split(".", 1)[0] in ("LDG", "LDGSTS") else "store",
                         (sass.access_bits(op) or 32) // 8, bool(guard))
            for guard, op in pairs if op.split(".", 1)[0] in _SASS_GLOBAL
        ]
        return StageStats(stage, [(-1, op) for _, op in pairs], accesses)
    ins = sass.instructions(text)
    accesses = [
        MemoryAccess(i.index, i.opcode, "load" if i.base in ("LDG", "LDGSTS") else "store",
                     (i.access_bits or 32) // 8, i.guard is not None)
        for i in ins if i.base in _SASS_GLOBAL
    ]
    return StageStats(stage, [(i.index, i.opcode) for i in ins], accesses)


def mlir_stats(stage: Stage, text: str, positions: bool = True) -> StageStats:
    # Layout aliases (#blocked, #mma) only exist once layouts are assigned, in TTGIR.
    return StageStats(stage, mlir.mlir_ops(text), [], mlir.layouts(text))


def llvm_stats(stage: Stage, text: str, positions: bool = True) -> StageStats:
    return StageStats(stage, mlir.llvm_instructions(text))


def no_stats(stage: Stage, text: str, positions: bool = True) -> StageStats:
    return StageStats(stage)


def _cp_async_bytes(i: ptx.PtxInstruction) -> int | None:
    # cp.async.cg.shared.global [dst], [src], 0x10, ...;  the third operand is the copy size in bytes
    if len(i.operands) >= 3:
        try:
            return int(i.operands[2], 0)
        except ValueError:
            return None
    return None
