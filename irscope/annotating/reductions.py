"""Warp reductions and scans as the listing proves them: which shuffles combine lanes, how they chain,
over which lanes, and whether their results then cross warps through shared memory.

A shuffle *combines* when an instruction after it reads both its result (another lane's value) and the
value the lane shuffled out (its own): ``add.f32 %r3, %r1, %r2`` after ``shfl.sync.bfly.b32 %r2, %r1,
16, 31, -1``; ``@P0 FADD R11, R8, R11`` after ``SHFL.UP PT, R8, R11, 0x1, RZ``. A shuffle whose result
only moves on (a chain of ``bfly`` 16, 8, 4, 2, 1 with nothing in between reverses the lanes, as
``tl.cumsum(reverse=True)`` does) combines nothing and is a lane permutation, not a reduction step.

Combining shuffles chain by data flow: the next step shuffles out what the last one's combine made
(through moves and selects). One chain reduces or scans one value over the lanes its lane offsets span,
2^k lanes for k distinct offsets: ``bfly`` 16 alone pairs lanes 16 apart (a tile whose reduced axis
spans two lanes of a warp, ``threadsPerWarp = [2, 16]``), ``bfly`` 2 then 1 reduces groups of 4
adjacent lanes, 16 down to 1 the whole warp. ``up`` shuffles (offsets 1, 2, 4, ... with the combine
guarded by the lane index) are a scan (a prefix sum: ``tl.cumsum``), not a reduction. The offsets come
from the immediate, or in PTX from the one ``mov`` of a constant that sets the register; a shuffle whose
offset the listing does not show is counted apart, never guessed; a PTX shuffle whose result nothing
reads (ptxas drops it) is counted apart too, so PTX and SASS count the same reductions.

"Across warps" is claimed only where the data flow shows it: a shared-memory store whose value is a
combining shuffle's result (through the combining operations and moves after it), then a block
barrier, then a shared-memory load.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..types import Stage
from .roles import IMMEDIATE, NO_DESTINATION, Definitions

PTX_REG = re.compile(r"%[a-z]+\d+")
SASS_REG = re.compile(r"\bU?R\d+\b")
# What a reduction's value may pass through between a shuffle and the store of its result: the
# combining operation itself, moves and conversions. Anything else (an exp, a subtract) makes it a new
# value, so a tile computed from a reduced maximum is not "a partial result".
PTX_PASS = ("add", "max", "min", "mul", "and", "or", "xor", "mov", "cvt", "selp", "fma")
SASS_PASS = ("FADD", "FMNMX", "FMUL", "IADD3", "IMNMX", "VIMNMX", "LOP3", "MOV", "SEL", "FSEL", "F2F", "DADD", "HADD2")
SASS_NO_REGISTER_DEST = ("ISETP", "FSETP", "DSETP", "HSETP2", "PSETP", "PLOP3", "BAR", "BRA", "EXIT")
SASS_STORES = ("STS", "STG", "ST", "STL", "RED", "REDG", "STSM")
# Moves: a value passes through them unchanged (its register renamed, packed or unpacked).
PTX_MOVES = ("mov", "cvt")
SASS_MOVES = ("MOV", "IMAD.MOV", "PRMT", "F2F")
# 64-bit SASS operations read and write register pairs: DADD R2, R2, R4 reads R2:R3 and R4:R5.
SASS_PAIRS = ("DADD", "DMUL", "DFMA", "DMNMX", "DSETP", "DSEL")
WINDOW = 64  # instructions searched for a shuffle's combine, and back for a chain's last step


@dataclass(frozen=True)
class Shuffle:
    index: int  # 0-based line of the listing
    mode: str  # bfly, down, up, idx
    offset: int | None  # lane offset; None where the listing does not show it


@dataclass(frozen=True)
class Chains:
    """``count`` chains of one source line with the same shape: a reduction or a scan of ``steps`` shuffles
    over ``lanes`` lanes, their lane offsets (largest first) ``offsets``."""

    line: int | None  # the source line (None without a source map)
    lanes: int
    steps: int
    count: int
    kind: str = "reduction"  # or "scan"
    offsets: tuple[int, ...] = ()

    @property
    def adjacent(self) -> bool:
        """Offsets 2^(k-1) .. 1: groups of adjacent lanes (the whole warp at 32)."""
        return sorted(self.offsets) == [1 << i for i in range(len(self.offsets))]

    def lanes_words(self) -> str:
        if self.lanes == 32:
            return "32 lanes"
        if self.adjacent:
            return f"groups of {self.lanes} lanes"
        if len(self.offsets) == 1:
            return f"groups of {self.lanes} lanes {self.offsets[0]} apart"
        return f"groups of {self.lanes} lanes (lane offsets {', '.join(map(str, self.offsets))})"

    def shape(self) -> str:
        """``8 over groups of 4 lanes (2 steps)``: how many, over which lanes, in how many shuffles."""
        return f"{self.count} over {self.lanes_words()} ({self.steps} step{'s' if self.steps > 1 else ''})"

    def words(self) -> str:
        if self.lanes == 32:
            where = "across a warp"
        else:
            where = "within " + self.lanes_words()
        return f"{self.count} x {self.steps} step{'s' if self.steps > 1 else ''} {where}"


@dataclass(frozen=True)
class Crossing:
    """A reduction's result stored to shared memory, a block barrier after it, a shared load after that."""

    store: int
    barrier: int
    load: int


@dataclass(frozen=True)
class Reductions:
    shuffles: tuple[Shuffle, ...]  # the combining shuffles (reductions and scans)
    chains: tuple[Chains, ...]  # reductions and scans, grouped by source line and shape
    irregular: tuple[Shuffle, ...]  # combining shuffles whose offsets chain into no reduction or scan
    unknown: tuple[Shuffle, ...]  # offsets the listing does not show
    crossings: tuple[Crossing, ...]
    moves: tuple[Shuffle, ...] = ()  # shuffles that combine nothing: lane permutations and broadcasts
    unused: tuple[Shuffle, ...] = ()  # PTX shuffles whose result nothing reads

    @property
    def count(self) -> int:
        """Reductions (not scans)."""
        return sum(c.count for c in self.chains if c.kind == "reduction")

    @property
    def scans(self) -> int:
        return sum(c.count for c in self.chains if c.kind == "scan")


def shuffles(stage: Stage, instructions: Sequence) -> list[Shuffle]:
    """Every shuffle of a PTX or SASS listing with its mode and lane offset."""
    return [s for s, _, _ in _shuffle_registers(stage, instructions)]


def _shuffle_registers(stage: Stage, instructions: Sequence) -> list[tuple[Shuffle, str, str]]:
    """Every shuffle with the register it writes and the one it shuffles out."""
    out = []
    if stage == Stage.PTX:
        found = [i for i in instructions if i.opcode.startswith("shfl")]
        defs = Definitions()
        if any(not IMMEDIATE.match(i.operands[2].strip()) for i in found if len(i.operands) > 2):
            for i in instructions:  # an offset in a register: the mov that sets it
                defs.note(i)
        for i in found:
            mode = next((m for m in i.modifiers if m in ("bfly", "down", "up", "idx")), "")
            ops = i.operands  # d[|p], a, b (the offset), c, membermask
            offset = defs.constant(ops[2]) if len(ops) > 2 else None
            dest = _first(PTX_REG, ops[0]) if ops else ""
            source = _first(PTX_REG, ops[1]) if len(ops) > 1 else ""
            out.append((Shuffle(i.index, mode, offset), dest, source))
    else:
        for i in instructions:
            if i.base != "SHFL":
                continue
            mode = next((m.lower() for m in i.modifiers if m in ("BFLY", "DOWN", "UP", "IDX")), "")
            ops = i.operands  # Pd, Rd, Ra, b (the offset), c
            offset = _immediate(ops[3]) if len(ops) > 3 else None
            dest = _first(SASS_REG, ops[1]) if len(ops) > 1 else ""
            source = _first(SASS_REG, ops[2]) if len(ops) > 2 else ""
            out.append((Shuffle(i.index, mode, offset), dest, source))
    return out


def _first(pattern: re.Pattern[str], text: str) -> str:
    m = pattern.search(text)
    return m[0] if m else ""


def _immediate(op: str) -> int | None:
    try:
        return int(op, 0)
    except ValueError:
        return None


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


class _Flow:
    """Registers written and read by each instruction of one listing, by position."""

    def __init__(self, stage: Stage, instructions: Sequence) -> None:
        self.stage = stage
        self.instructions = instructions
        self.sets = _Sets(stage, instructions)
        self._uses: Counter[str] | None = None

    def moves(self, k: int) -> bool:
        ins = self.instructions[k]
        if self.stage == Stage.PTX:
            return ins.base in PTX_MOVES
        return ins.opcode.startswith(SASS_MOVES)

    def shuffle(self, k: int) -> bool:
        return self.instructions[k].base in ("shfl", "SHFL")

    def copies_before(self, k: int, reg: str) -> set[str]:
        """``reg`` and the registers it was copied from (through moves) before position ``k``."""
        out, wanted = {reg}, {reg}
        for j in range(k - 1, max(-1, k - WINDOW), -1):
            writes, reads = self.sets[j]
            hit = writes & wanted
            if not hit:
                continue
            wanted -= hit
            if self.moves(j):
                out |= reads
                wanted |= reads
            if not wanted:
                break
        return out

    def combine_of(self, k: int, dest: str, source: str) -> int | None:
        """The position of the instruction that combines shuffle ``k``'s result with the lane's own value
        (it reads both, through moves), or None where none does before either is overwritten."""
        theirs, own = {dest}, self.copies_before(k, source)
        if dest in own:  # the shuffle wrote over its own source: the lane's value is gone
            own = own - {dest}
        for j in range(k + 1, min(len(self.instructions), k + WINDOW)):
            writes, reads = self.sets[j]
            if reads & theirs and reads & own and not self.shuffle(j) and not self.moves(j) and not self._store(j):
                return j
            if reads & theirs and self.moves(j):
                theirs |= writes
                continue
            theirs -= writes
            own -= writes
            if not theirs or not own:
                return None
        return None

    def _store(self, k: int) -> bool:
        base = self.instructions[k].base
        return base in ("st", "red", "atom") if self.stage == Stage.PTX else base in SASS_STORES

    def read_anywhere(self, reg: str) -> bool:
        """Whether any instruction reads ``reg`` (PTX: virtual registers, so any use but its one write)."""
        if self._uses is None:
            self._uses = Counter(r for ins in self.instructions for r in PTX_REG.findall(ins.operand_text))
        return self._uses[reg] > 1

    def previous_step(self, k: int, source: str, combines: dict[int, int]) -> int | None:
        """The combining shuffle whose combine made the value shuffle ``k`` shuffles out (through moves,
        selects and the combining operations), or None."""
        wanted = {source}
        for j in range(k - 1, max(-1, k - WINDOW), -1):
            writes, reads = self.sets[j]
            hit = writes & wanted
            if not hit:
                continue
            if j in combines:
                return combines[j]
            wanted -= hit
            if self.moves(j) or _passes_value(self.stage, self.instructions[j]):
                wanted |= reads - {"RZ", "URZ"}
            if not wanted:
                return None
        return None


class _Sets:
    """``_writes_and_reads`` of each instruction, worked out when first asked for: a listing of 15,000
    lines has a few dozen shuffles, and only the instructions near them are read."""

    def __init__(self, stage: Stage, instructions: Sequence) -> None:
        self.stage = stage
        self.instructions = instructions
        self.cache: dict[int, tuple[set[str], set[str]]] = {}

    def __getitem__(self, k: int) -> tuple[set[str], set[str]]:
        found = self.cache.get(k)
        if found is None:
            found = self.cache[k] = _writes_and_reads(self.stage, self.instructions[k])
        return found


def reductions(
    stage: Stage, instructions: Sequence, own_lines: Sequence[int | None], stores: Sequence[int], barriers, loads
) -> Reductions:
    """The warp reductions and scans of a listing, grouped by source line, and their crossings of warps.

    ``stores``/``loads``: lines of shared-memory stores and loads; ``barriers``: lines of block barriers."""
    found = _shuffle_registers(stage, instructions)
    if not found:
        return Reductions((), (), (), (), ())
    flow = _Flow(stage, instructions)
    position = {ins.index: k for k, ins in enumerate(instructions)}
    combines: dict[int, int] = {}  # position of a combine -> position of its shuffle
    combining: list[tuple[Shuffle, int, str]] = []
    moves: list[Shuffle] = []
    unused: list[Shuffle] = []
    for shuffle, dest, source in found:
        k = position[shuffle.index]
        if stage == Stage.PTX and dest and not flow.read_anywhere(dest):
            unused.append(shuffle)
            continue
        j = flow.combine_of(k, dest, source) if shuffle.mode != "idx" and dest and source else None
        if j is None:
            moves.append(shuffle)
            continue
        combines.setdefault(j, k)
        combining.append((shuffle, k, source))
    known = [(s, k, src) for s, k, src in combining if s.offset is not None]
    unknown = [s for s, _, _ in combining if s.offset is None]
    # chains by data flow: each step's predecessor is the step whose combine made what it shuffles out
    by_position = {k: s for s, k, _ in known}
    previous = {k: flow.previous_step(k, src, combines) for _, k, src in known}
    followed = {p for p in previous.values() if p in by_position}
    shaped: Counter[tuple[int | None, str, tuple[int, ...]]] = Counter()
    irregular: list[Shuffle] = []
    for _, k, _ in known:
        if k in followed:
            continue  # not the last step of its chain
        steps = [by_position[k]]
        at: int | None = previous[k]
        while at is not None and at in by_position and len(steps) < 6:
            steps.append(by_position[at])
            at = previous.get(at)
        offsets = [s.offset for s in steps]
        modes = {s.mode for s in steps}
        kind = "scan" if modes == {"up"} else "reduction" if "up" not in modes else ""
        if not kind or not all(o is not None and _power_of_two(o) and o <= 16 for o in offsets):
            irregular += steps
            continue
        if len(set(offsets)) != len(offsets):
            irregular += steps
            continue
        last = steps[0].index
        line = own_lines[last] if last < len(own_lines) else None
        shaped[(line, kind, tuple(sorted((o for o in offsets if o is not None), reverse=True)))] += 1
    chains = tuple(
        Chains(line, 1 << len(offsets), len(offsets), n, kind, offsets)
        for (line, kind, offsets), n in sorted(
            shaped.items(), key=lambda kv: (kv[0][0] is None, kv[0][0] or 0, kv[0][1], [-o for o in kv[0][2]])
        )
    )
    shuffle_lines = {s.index for s, _, _ in combining}
    crossings = _crossings(stage, instructions, shuffle_lines, stores, barriers, loads)
    return Reductions(
        tuple(s for s, _, _ in combining),
        chains,
        tuple(irregular),
        tuple(unknown),
        tuple(crossings),
        tuple(moves),
        tuple(unused),
    )


def _writes_and_reads(stage: Stage, ins) -> tuple[set[str], set[str]]:
    """The registers an instruction writes and reads (memory addresses included in what it reads)."""
    ops = ins.operands
    if stage == Stage.PTX:
        if not ops:
            return set(), set()
        if ins.base in NO_DESTINATION:
            return set(), {r for op in ops for r in PTX_REG.findall(op)}
        reads = {r for op in ops[1:] for r in PTX_REG.findall(op)}
        if ins.guard:
            reads |= set(PTX_REG.findall(ins.guard))
        return set(PTX_REG.findall(ops[0])), reads
    base = ins.base
    if base in SASS_STORES or base in SASS_NO_REGISTER_DEST or not ops:
        return set(), {r for op in ops for r in SASS_REG.findall(op)}
    if base == "SHFL":  # Pd, Rd, Ra, b, c
        return set(SASS_REG.findall(ops[1])) if len(ops) > 1 else set(), {
            r for op in ops[2:] for r in SASS_REG.findall(op)
        }
    writes, reads = set(SASS_REG.findall(ops[0])), {r for op in ops[1:] for r in SASS_REG.findall(op)}
    if base in SASS_PAIRS:
        writes |= {_next_register(r) for r in writes}
        reads |= {_next_register(r) for r in reads}
    return writes, reads


def _next_register(reg: str) -> str:
    head = reg.rstrip("0123456789")
    return f"{head}{int(reg[len(head) :]) + 1}"


def _passes_value(stage: Stage, ins) -> bool:
    if stage == Stage.PTX:
        return ins.base in PTX_PASS
    return ins.base in SASS_PASS


def _from_shuffle(stage: Stage, instructions: Sequence, position: int, registers: set[str], shuffle_lines: set[int]):
    """Whether a value in ``registers`` just before ``instructions[position]`` was made by a reduction
    shuffle, looking back through straight-line code (the last writer of each register) and through
    combining operations and moves only."""
    wanted = set(registers) - {"RZ", "URZ"}
    for k in range(position - 1, max(-1, position - 200), -1):
        if not wanted:
            return False
        ins = instructions[k]
        writes, reads = _writes_and_reads(stage, ins)
        hit = writes & wanted
        if not hit:
            continue
        if ins.index in shuffle_lines:
            return True
        wanted -= hit
        if _passes_value(stage, ins):
            wanted |= reads - {"RZ", "URZ"}
    return False


def _crossings(stage, instructions, shuffle_lines: set[int], stores, barriers, loads) -> list[Crossing]:
    if not shuffle_lines or not stores or not barriers or not loads:
        return []
    position = {ins.index: k for k, ins in enumerate(instructions)}
    out = []
    for store in stores:
        k = position.get(store)
        if k is None:
            continue
        ins = instructions[k]
        ops = ins.operands
        data = ops[-1] if ops else ""  # st.shared [addr], value / STS [addr], value
        pattern = PTX_REG if stage == Stage.PTX else SASS_REG
        if not _from_shuffle(stage, instructions, k, set(pattern.findall(data)), shuffle_lines):
            continue
        barrier = next((b for b in barriers if b > store), None)
        load = next((ld for ld in loads if barrier is not None and ld > barrier), None)
        if barrier is not None and load is not None:
            out.append(Crossing(store, barrier, load))
    return out
