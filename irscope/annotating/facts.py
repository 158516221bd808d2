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
    branched: list[int] = field(default_factory=list)  # accesses unguarded but skipped by a branch or an exit

    def mark_branched(self, lines: set[int]) -> None:
        """Accesses at ``lines`` run only where a guarded branch or exit before them did not leave: as masked as
        a guard makes them (ptxas turns one into the other: ``@%p st.global`` in PTX, ``@!P0 EXIT`` then
        ``STG`` in SASS)."""
        for n, (ins, access) in enumerate(self.accesses):
            if ins.index in lines and not access.masked:
                self.accesses[n] = (ins, access._replace(masked=True))
                self.branched.append(ins.index)

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
    constants = ptx_ir.constant_registers(instructions)
    for i in instructions:
        op, base = i.opcode, i.base
        if not facts.add_access(i, ptx_ir.access(i, constants)) and base in ("ldmatrix", "stmatrix"):
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
    facts.mark_branched(skipped_lines(Stage.PTX, text, instructions))
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
    facts.mark_branched(skipped_lines(Stage.SASS, text, instructions))
    return facts


# $L__BB0_2:            .L_x_1:
PTX_LABEL = re.compile(r"^\s*(\$L__BB\d+_\d+):")
SASS_LABEL = re.compile(r"^\s*(\.L_x_\d+):")
# @%p1 bra 	$L__BB0_2;      @P0 BRA `(.L_x_1) ;
BRANCH_TARGET = re.compile(r"(\$L__BB\d+_\d+|\.L_x_\d+)")


def skipped_lines(stage: Stage, text: str, instructions: Sequence[Instruction]) -> set[int]:
    """Lines that run only where a guarded forward branch before them did not jump, or a guarded exit did
    not leave, on a predicate that differs from thread to thread: from the branch (or exit) to the next
    label, which nothing else reaches. A branch on a value every thread shares (a loop's trip count, a
    size read once) is control flow, not a mask: ptxas may sink a load below one where the PTX has it
    above (tutorial 08's ``gk``)."""
    if not any(i.guard for i in instructions):
        return set()
    lines = text.split("\n")
    label = PTX_LABEL if stage == Stage.PTX else SASS_LABEL
    labels = {m[1]: n for n, line in enumerate(lines) if (m := label.match(line))}
    starts = sorted(labels.values())
    candidates = []
    for k, i in enumerate(instructions):
        if not i.guard:
            continue
        if i.base in ("bra", "BRA") and ".DIV" not in i.opcode:
            m = BRANCH_TARGET.search(i.operand_text)
            target = labels.get(m[1]) if m else None
            if target is None or target < i.index:
                continue  # a loop's back edge: every thread gets past it in the end
        elif i.base not in ("ret", "EXIT"):
            continue
        candidates.append(k)
    out: set[int] = set()
    for k in varying_guards(stage, instructions, candidates):
        index = instructions[k].index
        end = next((n for n in starts if n > index), len(lines))
        out.update(range(index + 1, end))
    return out


PTX_VARYING = re.compile(r"%(?:tid|laneid|warpid|lanemask|clock|globaltimer|smid|nsmid)")
PTX_VARYING_OPS = ("atom", "shfl", "vote", "activemask", "elect", "match", "redux")
SASS_VARYING = re.compile(r"\bSR_(?:TID|LANEID|VIRTUALSMID|CLOCK|GLOBALTIMER|LEMASK|LTMASK|GEMASK|GTMASK|EQMASK)")
SASS_VARYING_OPS = ("ATOM", "ATOMS", "ATOMG", "SHFL", "VOTE", "MATCH", "ELECT", "REDUX")
SASS_TOKEN = re.compile(r"\b(?:U?[RP]\d+)\b")
PTX_TOKEN = re.compile(r"%[a-z]+\d+")
SASS_NO_WRITE = ("ST", "STG", "STS", "STL", "RED", "REDG", "BRA", "EXIT", "BAR", "RET", "CALL", "WARPSYNC", "BSYNC")


def varying_guards(stage: Stage, instructions: Sequence[Instruction], candidates: Sequence[int]) -> list[int]:
    """Those of the guarded instructions at positions ``candidates`` whose predicate may differ between the
    threads of a block: made, by its last write before them, from the thread or lane index, an atomic's or
    a shuffle's result, or another such register, followed back from each guard (what a guard does not
    reach is not read)."""
    ptx = stage == Stage.PTX
    rows: dict[int, tuple[set[str], set[str], bool]] = {}
    # the first two operands of each instruction: where what it writes is named (a substring test finds the
    # candidates for a register's last write, its row says whether it is one)
    heads = [i.operand_text.split(",", 2)[:2] for i in instructions]

    def row(k: int) -> tuple[set[str], set[str], bool]:
        found = rows.get(k)
        if found is None:
            i = instructions[k]
            base = i.opcode.split(".", 1)[0]
            head, _, rest = i.operand_text.partition(",")
            if ptx:
                writes = set(PTX_TOKEN.findall(head)) if head and base not in NO_WRITE_PTX else set()
                reads = set(PTX_TOKEN.findall(rest if writes else i.operand_text))
                source = base in PTX_VARYING_OPS or bool(PTX_VARYING.search(i.operand_text))
            else:
                writes = set()
                if base not in SASS_NO_WRITE and head:
                    writes = set(SASS_TOKEN.findall(head))
                    second = rest.partition(",")[0].strip()
                    if re.fullmatch(r"U?P(?:\d+|T)", second):
                        writes.add(second)
                reads = set(SASS_TOKEN.findall(i.operand_text)) - writes
                source = base in SASS_VARYING_OPS or bool(SASS_VARYING.search(i.operand_text))
            if i.guard:
                reads.add(i.guard.lstrip("!"))
            found = rows[k] = (writes, reads, source)
        return found

    memo: dict[tuple[int, str], bool] = {}

    def varying(k: int, reg: str, depth: int) -> bool:
        """Whether ``reg`` as instruction ``k`` reads it may differ between threads (its last write before k,
        in listing order; a value a loop carries round is taken from the write before the loop)."""
        key = (k, reg)
        if key in memo:
            return memo[key]
        memo[key] = False  # a cycle proves nothing varying
        answer = False
        if depth <= 32:
            for j in range(k - 1, -1, -1):
                if not any(reg in part for part in heads[j]):
                    continue
                writes, reads, source = row(j)
                if reg in writes:
                    answer = source or any(varying(j, r, depth + 1) for r in reads)
                    break
        memo[key] = answer
        return answer

    return [k for k in candidates if varying(k, (instructions[k].guard or "").lstrip("!"), 0)]


NO_WRITE_PTX = ("st", "red", "cp", "bar", "barrier", "bra", "ret", "mbarrier", "fence", "wgmma", "tcgen05", "prefetch")


def stage_facts(stage: Stage, text: str) -> StageFacts | None:
    """The facts of a PTX or SASS listing (None for other stages)."""
    if stage == Stage.PTX:
        return ptx_facts(text)
    if stage == Stage.SASS:
        return sass_facts(text)
    return None
