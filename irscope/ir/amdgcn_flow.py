"""Where each register an AMDGCN instruction reads was written, and whether every lane of the wave runs it.

The function's instructions split into basic blocks at labels and after branches; the usual
forward data flow over them gives, at each instruction, the writes of each register that may
reach it (``reaching``), and whether EXEC still holds every lane there (``full_exec``). Both
over-approximate: a write the parser cannot place in a block, a register written under a name it
does not expand, an EXEC it cannot follow, all make the answer "more than one write" or "not
every lane", never a wrong single one. annotating/amd_lds_banks.py builds on it.

Registers are single 32-bit names: ``v[4:7]`` is v4..v7, ``s[0:1]`` s0 and s1, ``vcc`` vcc_lo
and vcc_hi, ``exec`` exec_lo and exec_hi.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from .amdgcn import LABEL, instructions

# v[4:7], s[0:1], a[0:15], ttmp[4:5]
RANGE = re.compile(r"^(?P<file>v|s|a|ttmp)\[(?P<first>\d+):(?P<last>\d+)\]$")
# v12, s3, a7, ttmp9
SINGLE = re.compile(r"^(?P<file>v|s|a|ttmp)(?P<n>\d+)$")
PAIRS = {
    "vcc": ("vcc_lo", "vcc_hi"),
    "exec": ("exec_lo", "exec_hi"),
    "flat_scratch": ("flat_scratch_lo", "flat_scratch_hi"),
}
ENTRY = -1  # the "write" of a register's value at the kernel's start
WIDEST = 64  # registers one operand names at most (an MFMA's accumulator: a[0:31]); more is not a listing's
LARGEST = 100_000  # instructions a function may have for its flow to be worked out (Triton's: a few thousand)

# Instructions that write no register with their first operand: memory writes, waits, branches, barriers.
NO_DESTINATION = re.compile(
    r"^(?:ds_(?:write|store)|(?:buffer|global|flat|scratch)_store|s_(?:store|buffer_store|waitcnt|wait_|barrier|branch|"
    r"cbranch|endpgm|nop|sleep|setprio|sendmsg|trap|cmp|bitcmp|set_|setpc|dcache|icache|clause|delay_alu|"
    r"inst_prefetch|ttracedata)|buffer_(?:wbl2|inv|gl)|global_(?:wb|inv))"
)
# ... and those that write a second register too: a carry or a 64-bit product's high half (an SGPR pair)
TWO_DESTINATIONS = re.compile(r"^v_(?:\w+_co_\w+|mad_[iu]64_[iu]32|div_scale_\w+|swap_b32)")
TERMINATORS = ("s_branch", "s_endpgm", "s_setpc_b64", "s_endpgm_saved")


def registers(operand: str) -> tuple[str, ...]:
    """The 32-bit registers an operand names (none for a constant or a label)."""
    operand = operand.strip().lstrip("-|").rstrip("|")
    m = RANGE.match(operand)
    if m:
        first, last = int(m["first"]), int(m["last"])
        if not 0 <= last - first < WIDEST:
            return ("?",)  # damaged: a register no instruction reads, and never a huge tuple
        return tuple(f"{m['file']}{n}" for n in range(first, last + 1))
    m = SINGLE.match(operand)
    if m:
        return (operand,)
    if operand in PAIRS:
        return PAIRS[operand]
    if operand.endswith(("_lo", "_hi")) or operand in ("m0", "scc", "vccz", "execz"):
        return (operand,)
    return ()


@dataclass(frozen=True)
class Instruction:
    index: int  # line of the listing
    opcode: str
    operands: tuple[str, ...]  # comma-separated, as written
    modifiers: tuple[str, ...]  # written after the last operand: ``offset:4096``, ``glc``
    # gfx11's dual issue (VOPD): ``v_dual_mov_b32 v1, v2 :: v_dual_add_nc_u32 v3, v4, v5``, two VALU
    # operations that read their operands before either writes: each half as an instruction of its own
    # (``v_mov_b32``, ``v_add_nc_u32``), at the same line
    halves: tuple[Instruction, ...] = ()

    def modifier(self, key: str) -> int | None:
        """An integer modifier's value: ``offset`` of ``offset:4096``."""
        for m in self.modifiers:
            name, _, value = m.partition(":")
            if name == key and value:
                try:
                    return int(value, 0)
                except ValueError:
                    return None
        return None

    @cached_property
    def writes(self) -> tuple[str, ...]:
        """The registers this instruction may write (EXEC where it changes it)."""
        if self.halves:
            return tuple(r for half in self.halves for r in half.writes)
        op = self.opcode
        if NO_DESTINATION.match(op) or not self.operands:
            return ()
        out = registers(self.operands[0])
        if TWO_DESTINATIONS.match(op) and len(self.operands) > 1:
            out += registers(self.operands[1])
        if "saveexec" in op or op.startswith("v_cmpx"):
            out += PAIRS["exec"]
        return out


def parse(line: str, index: int) -> Instruction | None:
    """One instruction line: ``\\tds_write_b64 v1, v[16:17] offset:4096`` (None: nothing there)."""
    code = line.split(";", 1)[0].strip()
    if not code:
        return None
    if "::" in code:
        halves = tuple(parse(half.strip().replace("v_dual_", "v_", 1), index) for half in code.split("::"))
        if any(h is None for h in halves):
            return None
        return Instruction(index, code.split()[0], (), (), halves)  # type: ignore[arg-type]
    opcode, _, rest = code.partition(" ")
    pieces = [p.strip() for p in _top_level_commas(rest)] if rest.strip() else []
    modifiers: tuple[str, ...] = ()
    if pieces:
        last, *more = pieces[-1].split()
        pieces[-1] = last
        modifiers = tuple(more)
    return Instruction(index, opcode, tuple(p for p in pieces if p), modifiers)


def _top_level_commas(text: str) -> list[str]:
    out, depth, current = [], 0, ""
    for ch in text:
        depth += ch in "[(" and 1 or (ch in "])" and -1 or 0)
        if ch == "," and depth == 0:
            out.append(current)
            current = ""
        else:
            current += ch
    return [*out, current]


@dataclass
class _Block:
    instructions: list[Instruction] = field(default_factory=list)
    successors: list[int] = field(default_factory=list)


class Flow:
    """The function of one AMDGCN listing as blocks, with reaching writes and EXEC at each instruction.

    ``bad`` (a branch it could not follow) makes every answer unknown: a write it did not see could
    reach anywhere."""

    def __init__(self, text: str, wave: int = 64) -> None:
        self.wave = wave  # lanes: on 32, the low half of EXEC is all of it
        lines = text.splitlines()
        found = instructions(text)
        self.by_index: dict[int, Instruction] = {}
        self.bad = len(found) > LARGEST  # a listing this long is no kernel's: nothing is worked out
        if self.bad:
            found = []
        blocks: list[_Block] = [_Block()]
        labels: dict[str, int] = {}
        previous = found[0][0] if found else 0
        for index, _ in found:
            # a label between the last instruction and this one starts a block
            for between in range(previous + 1, index):
                m = LABEL.match(lines[between])
                if m and blocks[-1].instructions:
                    blocks.append(_Block())
                if m:
                    labels[m.group(1)] = len(blocks) - 1
            previous = index
            ins = parse(lines[index], index)
            if ins is None:
                self.bad = True
                continue
            self.by_index[index] = ins
            blocks[-1].instructions.append(ins)
            if ins.opcode in TERMINATORS or ins.opcode.startswith("s_cbranch"):
                blocks.append(_Block())
        for number, block in enumerate(blocks):
            last = block.instructions[-1] if block.instructions else None
            falls = last is None or (last.opcode not in TERMINATORS)
            if last is not None and (last.opcode == "s_branch" or last.opcode.startswith("s_cbranch")):
                target = labels.get(last.operands[0]) if last.operands else None
                if target is None:
                    self.bad = True  # a branch out of the function, or to a label it missed
                else:
                    block.successors.append(target)
            if falls and number + 1 < len(blocks):
                block.successors.append(number + 1)
        self.blocks = blocks

    @cached_property
    def _block_of(self) -> dict[int, int]:
        return {ins.index: n for n, b in enumerate(self.blocks) for ins in b.instructions}

    @cached_property
    def _reaching_in(self) -> list[dict[str, frozenset[int]]]:
        """Per block, each register's writes that reach its first instruction."""
        start: dict[str, frozenset[int]] = {}
        ins: list[dict[str, frozenset[int]] | None] = [None] * len(self.blocks)
        ins[0] = start
        work = [0]
        while work:
            n = work.pop()
            out = dict(ins[n] or {})
            for i in self.blocks[n].instructions:
                for reg in i.writes:
                    out[reg] = frozenset((i.index,))
            for s in self.blocks[n].successors:
                merged = _merge(ins[s], out)
                if merged != ins[s]:
                    ins[s] = merged
                    work.append(s)
        return [b or {} for b in ins]

    def reaching(self, index: int, reg: str) -> frozenset[int]:
        """The writes of ``reg`` that may reach instruction ``index`` (``ENTRY``: its value at the start)."""
        block = self._block_of.get(index)
        if block is None:
            return frozenset()
        found = self._reaching_in[block].get(reg, frozenset((ENTRY,)))
        for i in self.blocks[block].instructions:
            if i.index == index:
                return found
            if reg in i.writes:
                found = frozenset((i.index,))
        return found

    @cached_property
    def _exec_in(self) -> list[Masks | None]:
        """Per block, what EXEC and the registers that saved it hold on entry (masks.py's terms below)."""
        state: list[Masks | None] = [None] * len(self.blocks)
        state[0] = Masks.start()
        work = [0]
        while work:
            n = work.pop()
            out = state[n]
            assert out is not None
            for i in self.blocks[n].instructions:
                out = out.after(i, self.wave)
            for s in self.blocks[n].successors:
                merged = out if state[s] is None else state[s].join(out)  # type: ignore[union-attr]
                if merged != state[s]:
                    state[s] = merged
                    work.append(s)
        return state

    @cached_property
    def _full_exec_at(self) -> dict[int, bool]:
        out: dict[int, bool] = {}
        for block, state in zip(self.blocks, self._exec_in):
            for i in block.instructions:
                out[i.index] = state is not None and state.exec == FULL
                if state is not None:
                    state = state.after(i, self.wave)
        return out

    def full_exec(self, index: int) -> bool:
        """Does every lane of the wave run instruction ``index``, whichever way the branches go?"""
        return not self.bad and self._full_exec_at.get(index, False)


def _merge(old: dict[str, frozenset[int]] | None, new: dict[str, frozenset[int]]) -> dict[str, frozenset[int]]:
    if old is None:
        return dict(new)
    keys = old.keys() | new.keys()
    return {k: old.get(k, frozenset((ENTRY,))) | new.get(k, frozenset((ENTRY,))) for k in keys}


# EXEC as LLVM lowers structured control flow, symbolically: FULL (every lane), ("carve", k, P) the lanes
# of mask P an ``s_and_saveexec`` at line k kept, ("rest", k, P) the others, None unknown.
#   s_and_saveexec_b64 s[0:1], vcc    s[0:1] = P, EXEC = carve(k, P)          (if)
#   s_xor_b64 s[0:1], exec, s[0:1]    s[0:1] = rest(k, P)                      (else: the lanes left)
#   s_andn2_saveexec_b64 s[0:1], s[0:1]   s[0:1] = carve(k, P), EXEC = rest(k, P)
#   s_or_b64 exec, exec, s[0:1]       EXEC = carve | rest = P, or carve | P = P  (end if)
FULL = "full"
Mask = object


@dataclass(frozen=True)
class Masks:
    exec: Mask
    saved: frozenset[tuple[str, Mask]]  # (operand as written, the mask it holds)

    @staticmethod
    def start() -> Masks:
        return Masks(FULL, frozenset())

    def join(self, other: Masks) -> Masks:
        return Masks(self.exec if self.exec == other.exec else None, self.saved & other.saved)

    def held(self, operand: str) -> Mask:
        if operand in ("exec", "exec_lo"):
            return self.exec
        if operand == "-1":
            return FULL
        return dict(self.saved).get(operand)

    def after(self, i: Instruction, wave: int) -> Masks:
        written = set(i.writes)
        touches_exec = bool(written & {"exec_lo", "exec_hi"})
        saved = frozenset((op, m) for op, m in self.saved if not written & set(registers(op)))
        ops, base = i.operands, i.opcode.rsplit("_", 1)[0]
        if not i.opcode.endswith("_b64" if wave == 64 else "_b32"):  # not an operation on a whole wave's mask
            return Masks(None if touches_exec else self.exec, saved)
        old = self.exec
        result: Mask = None
        if base.endswith("saveexec"):  # the old EXEC goes to the first operand
            if base == "s_and_saveexec" and old is not None:
                result = ("carve", i.index, old)
            elif base == "s_andn2_saveexec" and isinstance(old, tuple) and old[0] == "carve":
                result = ("rest", *old[1:]) if self.held(ops[1]) == ("rest", *old[1:]) else None
            return Masks(result, saved | {(ops[0], old)} if old is not None else saved)
        if base in ("s_mov", "s_or", "s_xor") and len(ops) == (2 if base == "s_mov" else 3):
            sources = [self.held(op) for op in ops[1:]]
            result = sources[0] if base == "s_mov" else (_union if base == "s_or" else _rest)(*sources)
            if touches_exec:
                return Masks(result, saved)
            if result is not None:  # a mask kept in SGPRs
                saved |= {(ops[0], result)}
        return Masks(None if touches_exec else old, saved)


def _union(a: Mask, b: Mask) -> Mask:
    if FULL in (a, b):
        return FULL
    if a == b:
        return a
    for x, y in ((a, b), (b, a)):
        if isinstance(x, tuple) and x[0] == "carve" and (y == x[2] or y == ("rest", *x[1:])):
            return x[2]
    return None


def _rest(a: Mask, b: Mask) -> Mask:
    """``x ^ P`` where x is a carve of P: the lanes of P it did not keep."""
    for x, y in ((a, b), (b, a)):
        if isinstance(x, tuple) and x[0] == "carve" and y == x[2]:
            return ("rest", *x[1:])
    return None
