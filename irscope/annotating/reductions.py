"""Warp reductions as the listing proves them: how many, over how many lanes, in how many steps, and
whether their results then cross warps through shared memory.

A butterfly (or tree) reduction over 2^k lanes is k shuffles with lane offsets 2^(k-1), ..., 2, 1; a
reduction within groups of 4 lanes (each row of an MMA tile) is two shuffles, offsets 2 and 1. So the
shape comes from the offsets, never from how close the shuffles sit: several reductions interleave,
and ptxas reorders them. Counted per source line, a line's offsets decompose into chains exactly when
each offset is used at least as often as the next larger one; the chains that start at offset 2^j
number ``n(2^j) - n(2^(j+1))``. Offsets are read from the immediate, or in PTX from the one ``mov``
of a constant that sets the register; a shuffle whose offset the listing does not show is counted
apart, never guessed.

"Across warps" is claimed only where the data flow shows it: a shared-memory store whose value is a
reduction shuffle's result (through the combining operations and moves after it), then a block
barrier, then a shared-memory load.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ..types import Stage
from .roles import NO_DESTINATION, Definitions

COMBINING = ("bfly", "down", "up")  # idx shuffles broadcast one lane's value: not a reduction step

PTX_REG = re.compile(r"%[a-z]+\d+")
SASS_REG = re.compile(r"\bU?R\d+\b")
# What a reduction's value may pass through between a shuffle and the store of its result: the
# combining operation itself, moves and conversions. Anything else (an exp, a subtract) makes it a new
# value, so a tile computed from a reduced maximum is not "a partial result".
PTX_PASS = ("add", "max", "min", "mul", "and", "or", "xor", "mov", "cvt", "selp", "fma")
SASS_PASS = ("FADD", "FMNMX", "FMUL", "IADD3", "IMNMX", "VIMNMX", "LOP3", "MOV", "SEL", "FSEL", "F2F", "DADD", "HADD2")
SASS_NO_REGISTER_DEST = ("ISETP", "FSETP", "DSETP", "HSETP2", "PSETP", "PLOP3", "BAR", "BRA", "EXIT")
SASS_STORES = ("STS", "STG", "ST", "STL", "RED", "REDG", "STSM")


@dataclass(frozen=True)
class Shuffle:
    index: int  # 0-based line of the listing
    mode: str  # bfly, down, up, idx
    offset: int | None  # lane offset; None where the listing does not show it


@dataclass(frozen=True)
class Chains:
    """The reductions of one source line: ``count`` reductions of ``steps`` steps over ``lanes`` lanes."""

    line: int | None  # the source line (None without a source map)
    lanes: int
    steps: int
    count: int

    def words(self) -> str:
        where = "across a warp" if self.lanes == 32 else f"within groups of {self.lanes} lanes"
        return f"{self.count} x {self.steps} step{'s' if self.steps > 1 else ''} {where}"


@dataclass(frozen=True)
class Crossing:
    """A reduction's result stored to shared memory, a block barrier after it, a shared load after that."""

    store: int
    barrier: int
    load: int


@dataclass(frozen=True)
class Reductions:
    shuffles: tuple[Shuffle, ...]  # the combining shuffles
    chains: tuple[Chains, ...]
    irregular: tuple[Shuffle, ...]  # offsets that do not decompose into chains (counted, not shaped)
    unknown: tuple[Shuffle, ...]  # offsets the listing does not show
    crossings: tuple[Crossing, ...]

    @property
    def count(self) -> int:
        return sum(c.count for c in self.chains)


def shuffles(stage: Stage, instructions: Sequence) -> list[Shuffle]:
    """Every shuffle of a PTX or SASS listing with its mode and lane offset."""
    out = []
    if stage == Stage.PTX:
        defs = Definitions()
        for i in instructions:
            defs.note(i)
        for i in instructions:
            if i.base != "shfl":
                continue
            mode = next((m for m in i.modifiers if m in ("bfly", "down", "up", "idx")), "")
            ops = i.operands  # d[|p], a, b (the offset), c, membermask
            out.append(Shuffle(i.index, mode, defs.constant(ops[2]) if len(ops) > 2 else None))
    else:
        for i in instructions:
            if i.base != "SHFL":
                continue
            mode = next((m.lower() for m in i.modifiers if m in ("BFLY", "DOWN", "UP", "IDX")), "")
            ops = i.operands  # Pd, Rd, Ra, b (the offset), c
            out.append(Shuffle(i.index, mode, _immediate(ops[3]) if len(ops) > 3 else None))
    return out


def _immediate(op: str) -> int | None:
    try:
        return int(op, 0)
    except ValueError:
        return None


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def decompose(line: int | None, group: list[Shuffle]) -> tuple[list[Chains], list[Shuffle]]:
    """One source line's shuffles as chains of offsets 2^(k-1) .. 1; ([], group) when they are not."""
    uses = Counter(s.offset for s in group)
    if not all(o is not None and _power_of_two(o) and o <= 16 for o in uses):
        return [], group
    top = max(o for o in uses if o is not None)
    chains = []
    offset, larger = top, 0
    while offset >= 1:
        starting = uses.get(offset, 0) - larger
        if starting < 0:
            return [], group
        if starting:
            chains.append(Chains(line, 2 * offset, offset.bit_length(), starting))
        larger = uses.get(offset, 0)
        offset //= 2
    return chains, []


def reductions(
    stage: Stage, instructions: Sequence, own_lines: Sequence[int | None], stores: Sequence[int], barriers, loads
) -> Reductions:
    """The warp reductions of a listing, grouped by source line, and their crossings of warps.

    ``stores``/``loads``: lines of shared-memory stores and loads; ``barriers``: lines of block barriers."""
    combining = [s for s in shuffles(stage, instructions) if s.mode in COMBINING]
    known = [s for s in combining if s.offset is not None]
    unknown = [s for s in combining if s.offset is None]
    by_line: dict[int | None, list[Shuffle]] = defaultdict(list)
    for s in known:
        by_line[own_lines[s.index] if s.index < len(own_lines) else None].append(s)
    chains: list[Chains] = []
    irregular: list[Shuffle] = []
    for line in sorted(by_line, key=lambda x: (x is None, x or 0)):
        found, odd = decompose(line, by_line[line])
        chains += found
        irregular += odd
    crossings = _crossings(stage, instructions, {s.index for s in combining}, stores, barriers, loads)
    return Reductions(tuple(combining), tuple(chains), tuple(irregular), tuple(unknown), tuple(crossings))


def _writes_and_reads(stage: Stage, ins) -> tuple[set[str], set[str]]:
    """The registers an instruction writes and reads (memory addresses included in what it reads)."""
    if stage == Stage.PTX:
        ops = ins.operands
        if not ops:
            return set(), set()
        if ins.base in NO_DESTINATION:
            return set(), {r for op in ops for r in PTX_REG.findall(op)}
        return set(PTX_REG.findall(ops[0])), {r for op in ops[1:] for r in PTX_REG.findall(op)}
    ops = ins.operands
    base = ins.base
    if base in SASS_STORES or base in SASS_NO_REGISTER_DEST or not ops:
        return set(), {r for op in ops for r in SASS_REG.findall(op)}
    if base == "SHFL":  # Pd, Rd, Ra, b, c
        return set(SASS_REG.findall(ops[1])) if len(ops) > 1 else set(), {
            r for op in ops[2:] for r in SASS_REG.findall(op)
        }
    return set(SASS_REG.findall(ops[0])), {r for op in ops[1:] for r in SASS_REG.findall(op)}


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
