"""LDS bank pattern of each ``ds_`` read and write whose addresses the AMDGCN proves, lane by lane.

The rule, and why it is a proof. LDS is split into banks 4 bytes wide, word ``w`` (byte address // 4)
in bank ``w % banks``, and a bank delivers one word per clock (AMD's CDNA3 ISA guide, "Local Data
Share"; ROCm's "LDS bank conflicts" notes). A wave of ``L`` lanes each moving ``k`` words takes
``C = L * k / 32`` clocks at 128 bytes a clock, CDNA3's LDS rate (2 for ``ds_read_b32``, 8 for
``ds_write_b128``: the phases AMD documents), and no fewer than ``L * k / banks`` on any LDS.
Whatever order the hardware serves the lanes in, an instruction whose lanes ask one bank for ``M``
different words takes at least ``M`` clocks. So ``M > C`` is a conflict the addresses force: at
least ``M / C`` times those clocks. ``M <= L * k / banks`` means no bank is asked for more words
than the instruction's fewest clocks: the addresses force none. The two bounds are one on 32 banks;
on gfx950's 64, whose rate per clock is not documented, what falls between them is not said.
Which lanes the hardware serves together in one clock (AMD documents groups of 8 consecutive lanes
for ``ds_write_b128`` on CDNA; other widths' groups are measured by others, not documented) is not
modelled, so "forces none" is said as exactly that, not as "conflict-free".

Banks: 32 on gfx90a, gfx942 and RDNA3/4, 64 on gfx950 (CDNA4), as Triton's AMD backend counts them
(``TargetInfo::getSharedMemoryBanks``). An instruction is judged only where every lane of the wave
runs it (EXEC full, ir/amdgcn_flow.py) and every lane's address is proven (amd_lanes.py), up to a
wave-uniform number whose leftover bytes below a word (as its proven alignment allows) are each
tried; transposing reads (``_tr``) and ``addtid`` addressing are left alone. Each wave of the
workgroup is judged on its own lanes; the finding gives the worst.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ..arch import wave_size
from ..ir import amdgcn
from ..ir.amdgcn_flow import Flow, Instruction
from ..types import Stage, Variant
from .amd_lanes import LaneValues
from .finding import Finding

BANKS = {"gfx950": 64}  # else 32
# ds_read_b64, ds_write2_b32, ds_read2st64_b64, ds_load_u16_d16_hi, ds_store_2addr_stride64_b32
LDS_OPCODE = re.compile(r"^ds_(?P<kind>read|write|load|store)(?P<pair>2st64|2|_2addr_stride64|_2addr)?_(?P<rest>.+)$")
Words = Callable[[int], list[int]]  # a lane's words, every address moved by a number of bytes


def banks(arch: str) -> int:
    return BANKS.get(arch, 32)


@dataclass(frozen=True)
class BankPattern:
    """One ``ds_`` instruction's words per bank, in its worst wave."""

    index: int  # line of the listing
    opcode: str
    words: int  # different 4-byte words the wave touches
    busiest: int  # M: different words the busiest bank must deliver
    bank: int  # that bank
    clocks: int  # C: the instruction's clocks at 128 bytes a clock
    fewest: int  # the fewest clocks it can take on this target's banks
    wave: int  # the worst wave's number in the workgroup

    @property
    def conflict(self) -> bool:
        return self.busiest > self.clocks

    @property
    def clear(self) -> bool:
        return self.busiest <= self.fewest

    @property
    def ratio(self) -> float:
        return self.busiest / self.clocks

    def words_in(self) -> str:
        head = (
            f"AMDGCN line {self.index + 1} {self.opcode}: bank {self.bank} serves {self.busiest} of the wave's "
            f"{self.words} words"
        )
        if self.conflict:
            return (
                f"{head}, at least {self.busiest} clocks where 128 bytes a clock take {self.clocks} ({self.ratio:.3g}x)"
            )
        return f"{head}, within the {self.fewest} clocks it takes at the least"


@dataclass(frozen=True)
class LaneWords:
    """One ``ds_`` instruction's addresses, proven: the words each workitem's bytes fall in, moved by a
    number of bytes (``spans[tid](shift)``), the words a lane moves, and the alignment of an unknown
    wave-uniform number added to every address (32: there is none)."""

    index: int
    opcode: str
    spans: list[Words]
    per_lane: int
    align: int


def proven_addresses(text: str, threads: int, lanes: int) -> dict[int, LaneWords]:
    """Every LDS read and write of a listing whose lanes all run it and whose addresses are proven, by line."""
    flow = Flow(text, lanes)
    values = LaneValues(flow, threads, lanes)
    out = {}
    for op in amdgcn.memory_ops(text):
        ins = flow.by_index.get(op.index)
        if op.space != "lds" or ins is None or not flow.full_exec(op.index):
            continue
        addressed = _addresses(ins, values)
        if addressed is not None:
            out[op.index] = LaneWords(op.index, ins.opcode, *addressed)
    return out


def lds_bank_patterns(variant: Variant) -> tuple[list[BankPattern], int]:
    """The proven bank pattern of each LDS read and write, and how many LDS reads and writes there are."""
    text = variant.listings.get(Stage.AMDGCN, "")
    info = variant.compile_info
    total = sum(op.space == "lds" for op in amdgcn.memory_ops(text))
    lanes = wave_size(variant.arch)
    threads = info.threads_per_block if info is not None else None
    # a workgroup has at most 1024 workitems (getMaxFlatWorkGroupSize), in whole waves as Triton launches them
    if not total or not threads or threads > 1024 or threads % lanes:
        return [], total
    count = banks(variant.arch)
    found = []
    for proven in proven_addresses(text, threads, lanes).values():
        clocks = (-(-lanes * proven.per_lane // 32), -(-lanes * proven.per_lane // count))
        # an unknown wave-uniform addend moves every lane's words by one number: whole words only rotate
        # the banks, which changes no count; the bytes left over (0 to 3, as far as its alignment allows)
        # can split words, so each is tried, and only what holds for all of them is said
        patterns = [_worst(proven, r, count, lanes, clocks) for r in range(0, 4, 1 << min(proven.align, 2))]
        if all(p.conflict for p in patterns):
            found.append(min(patterns, key=lambda p: p.ratio))
        elif all(p.clear for p in patterns):
            found.append(max(patterns, key=lambda p: p.busiest))
    return found, total


def _addresses(ins: Instruction, values: LaneValues) -> tuple[list[Words], int, int] | None:
    """Each workitem's words (byte address // 4) for one ds_ instruction, the words a lane moves, and the
    alignment of an unknown wave-uniform number added to every address (32: none); None where not proven."""
    m = LDS_OPCODE.match(ins.opcode)
    if m is None or "_tr" in ins.opcode or "addtid" in ins.opcode:
        return None
    width = amdgcn.ACCESS_BYTES.get(m["rest"]) or amdgcn.ACCESS_BYTES.get(m["rest"].split("_", 1)[0])
    where = 1 if m["kind"] in ("read", "load") else 0
    if width is None or len(ins.operands) <= where:
        return None
    base = values.at(ins.index, ins.operands[where])
    if base is None:
        return None
    if m["pair"]:  # two accesses a lane, each offset in elements (st64: in 64 elements)
        unit = width * (64 if "64" in m["pair"] else 1)
        offsets = [(ins.modifier("offset0") or 0) * unit, (ins.modifier("offset1") or 0) * unit]
    else:
        offsets = [ins.modifier("offset") or 0]

    def spans(address: int) -> Words:
        # the words a lane's bytes fall in: a b128's four, a u16's one (two where it straddles a word)
        return lambda shift: [
            w for o in offsets for w in range((address + o + shift) // 4, (address + o + shift + width - 1) // 4 + 1)
        ]

    return [spans(a) for a in base.lanes], len(offsets) * -(-width // 4), base.align


def _worst(proven: LaneWords, shift: int, count: int, lanes: int, clocks: tuple[int, int]) -> BankPattern:
    """The pattern of the wave whose busiest bank is busiest, every address moved by ``shift`` bytes."""
    worst = None
    for wave in range(len(proven.spans) // lanes):
        words = {w for span in proven.spans[wave * lanes : (wave + 1) * lanes] for w in span(shift)}
        per_bank = Counter(w % count for w in words)
        bank, busiest = max(per_bank.items(), key=lambda kv: (kv[1], -kv[0]))
        if worst is None or busiest > worst.busiest:
            worst = BankPattern(proven.index, proven.opcode, len(words), busiest, bank, *clocks, wave)
    assert worst is not None
    return worst


def lds_bank_finding(variant: Variant) -> list[Finding]:
    patterns, total = lds_bank_patterns(variant)
    if not patterns:
        return []  # nothing proven: nothing said
    count = banks(variant.arch)
    conflicts = [p for p in patterns if p.conflict]
    rule = (
        f"A bank delivers one 4-byte word per clock; {variant.arch} has {count} banks. The lane addresses of "
        f"{len(patterns)} of the {total} LDS reads and writes are proven from the AMDGCN (the workitem id, "
        "constants and wave-uniform offsets, every lane active); the rest are not judged."
    )
    shown = conflicts or patterns
    rows = tuple(p.words_in() for p in shown)
    if conflicts:
        worst = max(conflicts, key=lambda p: p.ratio)
        title = (
            f"LDS bank conflicts: {len(conflicts)} of {total} ds_ instructions ask one bank for more words "
            "than they have clocks"
        )
        detail = (
            f"{rule} In these, one bank must deliver more words than the instruction takes clocks at 128 "
            f"bytes a clock, whatever lanes the hardware serves together: the worst takes at least "
            f"{worst.ratio:.3g}x the clocks. Padding or swizzling the shared layout spreads the words. "
            + "; ".join(rows)
            + "."
        )
        return [Finding("lds-banks", "warn", title, detail, Stage.AMDGCN, tuple(p.index for p in shown), rows)]
    title = f"LDS accesses force no bank conflict ({len(patterns)} of {total} ds_ instructions proven)"
    detail = (
        f"{rule} No proven one asks a bank for more words than the fewest clocks it can take. " + "; ".join(rows) + "."
    )
    return [Finding("lds-banks", "info", title, detail, Stage.AMDGCN, tuple(p.index for p in shown), rows)]
