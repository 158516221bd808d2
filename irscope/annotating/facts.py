"""One stage's own instructions sorted into what findings are about: memory accesses with their widths
and masks, asynchronous copies and their commit/wait groups, bulk (TMA) copies, barriers, tensor-core
instructions, local memory (warp shuffles: reductions.py). PTX and SASS name these differently; everything after this
module works on the same facts, so a SASS finding cites SASS lines and a PTX finding PTX lines."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..ir import ptx as ptx_ir
from ..ir import sass as sass_ir
from ..types import Stage
from .reductions import Shuffle, shuffles

Instruction = ptx_ir.PtxInstruction | sass_ir.SassInstruction
Access = ptx_ir.Access | sass_ir.Access


@dataclass
class StageFacts:
    stage: Stage
    instructions: Sequence[Instruction]
    accesses: list[tuple[Instruction, Access]] = field(default_factory=list)
    copy_groups: list[int] = field(default_factory=list)  # commit / wait of asynchronous copies: not copies
    bulk: list[int] = field(default_factory=list)  # TMA: whole tiles moved by the Tensor Memory Accelerator
    barriers: list[int] = field(default_factory=list)  # block-wide: bar.sync / BAR, every warp of the block
    mbarriers: list[int] = field(default_factory=list)  # mbarrier operations (SYNCS in SASS): not block barriers
    mma: list[tuple[int, str]] = field(default_factory=list)  # (line, shape and types)
    shared: list[int] = field(default_factory=list)  # shared-memory loads and stores (ldmatrix and LDSM too)
    local: list[int] = field(default_factory=list)  # local memory: spills and stack arrays

    def add_access(self, ins: Instruction, access: Access | None) -> bool:
        """Record ``ins`` as the memory access it makes; False when it makes none."""
        if access is None:
            return False
        self.accesses.append((ins, access))
        if access.space == "shared":
            self.shared.append(ins.index)
        elif access.space == "local":
            self.local.append(ins.index)
        return True

    def shared_lines(self, kind: str) -> list[int]:
        """Lines of shared-memory loads or stores (ldmatrix/LDSM counted as loads)."""
        own = [i.index for i, a in self.accesses if a.space == "shared" and a.kind == kind]
        return sorted(own + ([] if kind != "load" else sorted(set(self.shared) - {i.index for i, _ in self.accesses})))

    @property
    def shuffles(self) -> list[Shuffle]:
        """Every warp shuffle, with its mode and lane offset (reductions.py reads them)."""
        return shuffles(self.stage, self.instructions)

    def global_accesses(self, kind: str | None = None) -> list[tuple[Instruction, Access]]:
        """Global accesses, and generic ones (no state space: ``ld``/``LD.E``, as Numba emits): the hardware
        resolves a generic address per access, and a kernel's arrays are global memory."""
        return [
            (i, a) for i, a in self.accesses if a.space in ("global", "generic") and (kind is None or a.kind == kind)
        ]

    def async_copies(self) -> list[tuple[Instruction, Access]]:
        return [(i, a) for i, a in self.accesses if a.asynchronous]


PTX_SHAPE = re.compile(r"^m\d+n\d+k\d+$")
PTX_TYPE = re.compile(r"^(?:f|bf|s|u|e\d|tf)\d+")


def ptx_facts(text: str) -> StageFacts:
    instructions = ptx_ir.instructions(text)
    facts = StageFacts(Stage.PTX, instructions)
    for i in instructions:
        op, base = i.opcode, i.base
        if not facts.add_access(i, ptx_ir.access(i)) and base in ("ldmatrix", "stmatrix"):
            facts.shared.append(i.index)
        if op.startswith(
            ("cp.async.commit", "cp.async.wait", "cp.async.mbarrier", "cp.async.bulk.commit", "cp.async.bulk.wait")
        ):
            facts.copy_groups.append(i.index)
        elif op.startswith(("cp.async.bulk", "cp.reduce.async.bulk")):
            facts.bulk.append(i.index)
        elif op.startswith("mbarrier"):
            facts.mbarriers.append(i.index)
        elif base in ("bar", "barrier") and not op.startswith(("bar.warp", "barrier.cluster")):
            facts.barriers.append(i.index)
        elif base in ("mma", "wgmma") and any(PTX_SHAPE.match(m) for m in i.modifiers):
            shape = next(m for m in i.modifiers if PTX_SHAPE.match(m))
            types = ".".join(m for m in i.modifiers if PTX_TYPE.match(m))
            facts.mma.append((i.index, f"{base} {shape} {types}".strip()))
        elif op.startswith("tcgen05.mma"):
            facts.mma.append((i.index, op))
    return facts


SASS_BULK = ("UTMALDG", "UTMASTG", "UTMAREDG", "UBLKCP", "UBLKRED")
SASS_MMA = (
    "HMMA",
    "IMMA",
    "DMMA",
    "BMMA",
    "QMMA",
    "OMMA",
    "HGMMA",
    "IGMMA",
    "QGMMA",
    "BGMMA",
    "UTCHMMA",
    "UTCIMMA",
    "UTCQMMA",
    "UTCOMMA",
)


def sass_facts(text: str) -> StageFacts:
    instructions = sass_ir.instructions(text)
    facts = StageFacts(Stage.SASS, instructions)
    for i in instructions:
        base = i.base
        if facts.add_access(i, sass_ir.access(i)):
            continue
        if base in ("LDGDEPBAR", "DEPBAR"):
            facts.copy_groups.append(i.index)
        elif base in SASS_BULK:
            facts.bulk.append(i.index)
        elif base == "BAR":
            facts.barriers.append(i.index)
        elif base in ("ARRIVES", "SYNCS"):
            facts.mbarriers.append(i.index)
        elif base in SASS_MMA:
            facts.mma.append((i.index, i.opcode))
    return facts


def stage_facts(stage: Stage, text: str) -> StageFacts | None:
    """The facts of a PTX or SASS listing (None for other stages)."""
    if stage == Stage.PTX:
        return ptx_facts(text)
    if stage == Stage.SASS:
        return sass_facts(text)
    return None
