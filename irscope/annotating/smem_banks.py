"""The shared-memory bank pattern of each PTX shared access whose addresses the listing proves, thread by
thread: ``ld.shared``/``st.shared``, ``ldmatrix``/``stmatrix`` and the shared side of ``cp.async``.

The rule, and why it is a proof. On every NVIDIA GPU from sm_80 to sm_120 shared memory is 32 banks 4
bytes wide, word ``w`` (byte address // 4) in bank ``w % 32``, and a bank delivers one word per cycle: a
warp's request takes one pass ("wavefront") per word its busiest bank must deliver, and words asked for
by several threads are delivered once (CUDA C++ Programming Guide, "Shared Memory", compute capability
5.x and later; Nsight Compute's ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared``). Whatever the
hardware serves together, an instruction whose threads ask one bank for ``M`` different words takes at
least ``M`` wavefronts, and one whose threads ask for ``W`` different words at least ``C = ceil(W / 32)``.
So ``M > C`` is a conflict the addresses force, at least ``M / C`` times the wavefronts: the 32x32 float
tile read down a column without padding asks bank ``c`` for 32 words (32-way); with a 33-float pitch
every word lies in its own bank. ``M <= C`` means the addresses force none (not "conflict-free": 64- and
128-bit accesses are served a half- or quarter-warp at a time, which is not modelled).

``ldmatrix``/``stmatrix`` take one 16-byte row address from each of the first 8, 16 or 32 threads (.x1,
.x2, .x4); ``cp.async`` writes its copy size at its shared address. An instruction is judged only where
the threads that run it (its guard proven, or none) and every one of their addresses are proven
(ptx_lanes.py), up to a number the same in every thread: a multiple of 4 only rotates the banks, and
the bytes left below a word (as its proven alignment allows) are each tried, only what holds for all
said. Each warp is judged on its own threads; the finding gives the worst (with only ``.maxntid`` known,
the block may be smaller: the best warp's, which every launch has).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ..arch import Vendor, capability_of
from ..ir import ptx as ptx_ir
from ..ir import sass as sass_ir
from ..types import Stage, Variant
from .amd_lanes import Value
from .finding import Finding
from .ptx_lanes import PtxLanes, block_of
from .sass_lanes import SassLanes

BANKS = 32
# [ %r3 + 1024 ]   [%r21]   [global_smem+16]   [ %r5 + -64 ]
ADDRESS = re.compile(r"^\[\s*([%$\w.]+)\s*(?:\+\s*(-?(?:0[xX][0-9a-fA-F]+|\d+)))?\s*\]$")


@dataclass(frozen=True)
class BankPattern:
    """One shared access's words per bank, in its worst (or, with an upper bound on the block, best) warp."""

    index: int
    opcode: str
    words: int  # W: different 4-byte words the warp touches
    busiest: int  # M: different words its busiest bank delivers
    bank: int
    warp: int

    @property
    def fewest(self) -> int:
        return max(1, -(-self.words // BANKS))

    @property
    def conflict(self) -> bool:
        return self.busiest > self.fewest

    @property
    def ways(self) -> float:
        return self.busiest / self.fewest

    def words_in(self) -> str:
        head = (
            f"line {self.index + 1} {self.opcode}: bank {self.bank} serves {self.busiest} of warp {self.warp}'s "
            f"{self.words} words"
        )
        if self.conflict:
            return f"{head}, at least {self.busiest} wavefronts where {self.fewest} would do ({self.ways:.3g}-way)"
        return f"{head}, within the {self.fewest} wavefront{'s' if self.fewest > 1 else ''} it takes at the least"


@dataclass(frozen=True)
class Access:
    index: int
    opcode: str
    address: str
    offset: int
    width: int  # bytes per thread
    threads: int  # threads that supply an address: 32, or 8/16/32 for ldmatrix/stmatrix


def shared_accesses(instructions) -> list[tuple[ptx_ir.PtxInstruction, Access]]:
    """Every shared load, store, ldmatrix, stmatrix and cp.async destination of a listing, with its address."""
    out = []
    for ins in instructions:
        found = _access(ins)
        if found is not None:
            out.append((ins, found))
    return out


def _access(ins: ptx_ir.PtxInstruction) -> Access | None:
    base = ins.base
    if base not in ("ld", "st", "ldmatrix", "stmatrix", "cp") or "shared" not in ins.opcode:
        return None
    ops, mods = ins.operands, ins.modifiers
    if base in ("ld", "st") and any(m == "shared" or m.startswith("shared::") for m in mods):
        where = ops[1] if base == "ld" and len(ops) > 1 else ops[0] if ops else ""
        width = ins.access_bytes
        threads = 32
    elif base in ("ldmatrix", "stmatrix"):
        where = ops[1] if base == "ldmatrix" and len(ops) > 1 else ops[0] if ops else ""
        count = next((int(m[1:]) for m in mods if m in ("x1", "x2", "x4")), 1)
        width, threads = 16, 8 * count
    elif ptx_ir.is_async_copy(ins.opcode) and len(ops) >= 3:
        where, width, threads = ops[0], ptx_ir._int(ops[2]), 32
    else:
        return None
    m = ADDRESS.match(where.strip())
    if m is None or not width:
        return None
    return Access(ins.index, ins.opcode, m[1], int(m[2], 0) if m[2] else 0, width, threads)


def bank_patterns(variant: Variant, instructions=None) -> tuple[list[BankPattern], int]:
    """The proven bank pattern of each shared access of the PTX, and how many shared accesses there are
    (``instructions``: the PTX's, where the caller has them)."""
    text = variant.listings.get(Stage.PTX, "")
    info = variant.compile_info
    block = block_of(text, info.threads_per_block if info is not None else None)
    instructions = ptx_ir.instructions(text) if instructions is None else instructions
    accesses = shared_accesses(instructions)
    if not accesses or block is None or block.threads % 32 or block.threads > 1024:
        return [], len(accesses)
    lanes = PtxLanes(text, block, instructions)
    found = []
    for ins, access in accesses:
        base = lanes.value(access.address)
        active = lanes.active(ins)
        if base is None or active is None:
            continue
        pattern = _judged(access, base, active, block.exact)
        if pattern is not None:
            found.append(pattern)
    return found, len(accesses)


_BUSIEST: dict[frozenset[int], tuple[int, int]] = {}  # a warp's words -> (its busiest bank, its words there)


def _pattern(access: Access, addresses: list[int], active, exact: bool) -> BankPattern | None:
    """The pattern of the warp whose busiest bank is busiest (the least busy warp's where the block may be
    smaller than its bound), or None where no warp runs the access."""
    chosen = None
    span = (access.width + 3) // 4  # words a thread's bytes fall in, at an aligned address
    supplying = min(32, access.threads)
    for warp in range(len(addresses) // 32):
        first = warp * 32
        starts = {addresses[t] >> 2 for t in range(first, first + supplying) if active[t]}
        if not starts:
            continue
        words = starts if span == 1 else {w + k for w in starts for k in range(span)}
        low = min(words)
        key = frozenset(w - (low - low % BANKS) for w in words)  # the same words a whole number of rows on
        if key not in _BUSIEST:
            per_bank = Counter(w & (BANKS - 1) for w in words)
            _BUSIEST[key] = max(per_bank.items(), key=lambda kv: (kv[1], -kv[0]))
        bank, busiest = _BUSIEST[key]
        pattern = BankPattern(access.index, access.opcode, len(words), busiest, bank, warp)
        if chosen is None or (pattern.ways > chosen.ways if exact else pattern.ways < chosen.ways):
            chosen = pattern
    return chosen


# LDS.128 R4, [R3+UR4+0x400]     STS [R8], R11     LDSM.16.MT88.4 R4, [R2]    LDGSTS.E.BYPASS.128 [R7+0x800], [R10.64], P0
SASS_SHARED = ("LDS", "STS", "LDSM", "STSM", "LDGSTS")


def sass_shared_accesses(instructions) -> list[tuple[sass_ir.SassInstruction, Access]]:
    """Every shared load, store, LDSM, STSM and LDGSTS destination of a SASS listing, with its address terms."""
    out = []
    for ins in instructions:
        if ins.base not in SASS_SHARED or not ins.operands:
            continue
        text = ins.operand_text
        brackets = re.findall(r"\[([^]]*)\]", text)
        if not brackets:
            continue
        where = brackets[0] if ins.base in ("STS", "STSM", "LDGSTS") else brackets[-1]
        mods = ins.modifiers
        if ins.base in ("LDSM", "STSM"):
            count = next((int(m) for m in reversed(mods) if m in ("1", "2", "4")), 1)
            width, threads = 16, 8 * count
        else:
            bits = sass_ir.access_bits(ins.opcode) or 32
            width, threads = bits // 8, 32
        out.append((ins, Access(ins.index, ins.opcode, where, 0, width, threads)))
    return out


def _sass_address(lanes: SassLanes, ins, where: str):
    """The value of a SASS address ``R3+UR4+0x400`` in every thread (None: not proven)."""
    total = None
    for term in where.replace(" ", "").split("+"):
        scaled = re.fullmatch(r"(.+)\.X(\d+)", term)  # [R8.X4]: sm_80 and sm_120 scale the register
        if not term or term.endswith(".64"):
            return None
        value = lanes.at(ins, scaled[1] if scaled else term)
        if value is None:
            return None
        if scaled:
            value = Value(
                tuple(x * int(scaled[2]) for x in value.lanes), min(value.align + (int(scaled[2]).bit_length() - 1), 32)
            )
        # two unknowns the same in every thread sum to one, aligned as the less aligned of them
        total = (
            value
            if total is None
            else Value(tuple(map(sum, zip(total.lanes, value.lanes))), min(total.align, value.align))
        )
    return total


def sass_bank_patterns(variant: Variant, instructions=None) -> tuple[list[BankPattern], int]:
    """As ``bank_patterns``, for the SASS."""
    text = variant.listings.get(Stage.SASS, "")
    info = variant.compile_info
    block = block_of(variant.listings.get(Stage.PTX, ""), info.threads_per_block if info is not None else None)
    instructions = sass_ir.instructions(text) if instructions is None else instructions
    accesses = sass_shared_accesses(instructions)
    if not accesses or block is None or block.threads % 32 or block.threads > 1024:
        return [], len(accesses)
    lanes = SassLanes(text, block, instructions)
    found = []
    for ins, access in accesses:
        value = _sass_address(lanes, ins, access.address)
        active = lanes.active(ins)
        if value is None or active is None:
            continue
        pattern = _judged(access, value, active, block.exact)
        if pattern is not None:
            found.append(pattern)
    return found, len(accesses)


def _judged(access: Access, base, active, exact: bool) -> BankPattern | None:
    """The pattern that holds whatever the unknown part of the addresses is, or None."""
    patterns = []
    for r in range(0, 4, 1 << min(base.align, 2)):
        addresses = [a + access.offset + r for a in base.lanes]
        unit = min(access.width, 4)
        if unit > 1 and any(addresses[t] % unit for t in range(len(addresses)) if active[t]):
            continue  # a misaligned access traps: not a number the unknown part can be
        found = _pattern(access, addresses, active, exact)
        if found is not None:
            patterns.append(found)
    if patterns and all(p.conflict for p in patterns):
        return min(patterns, key=lambda p: p.ways)
    if patterns and all(not p.conflict for p in patterns):
        return max(patterns, key=lambda p: p.busiest)
    return None


_KEPT: dict[tuple, tuple[list[BankPattern], int]] = {}  # the last listings' patterns, by their texts


def bank_finding(variant: Variant, stage: Stage = Stage.PTX, instructions=None) -> list[Finding]:
    """The finding for a PTX or SASS listing: conflicts where the addresses force them, else that they force
    none (``instructions``: the stage's, where the caller has them)."""
    if variant.vendor is not Vendor.NVIDIA or (capability_of(variant.arch) or 0) < 80:
        return []
    info = variant.compile_info
    key = (stage, variant.listings.get(stage, ""), variant.listings.get(Stage.PTX, ""), info and info.threads_per_block)
    if key not in _KEPT:  # the TUI and the report ask again for a variant they show again
        if len(_KEPT) >= 16:
            _KEPT.pop(next(iter(_KEPT)))
        _KEPT[key] = (
            bank_patterns(variant, instructions) if stage == Stage.PTX else sass_bank_patterns(variant, instructions)
        )
    patterns, total = _KEPT[key]
    if not patterns:
        return []
    conflicts = [p for p in patterns if p.conflict]
    rule = (
        f"Shared memory is {BANKS} banks of 4 bytes; a bank delivers one word per wavefront, and threads asking "
        f"for the same word share it. The thread addresses of {len(patterns)} of the {total} shared accesses "
        f"are proven from the {stage.value.upper()} (the thread id, constants and numbers the same in every thread); the rest are "
        "not judged."
    )
    shown = sorted(conflicts or patterns, key=lambda p: -p.ways)[:8]
    rows = tuple(p.words_in() for p in shown)
    if conflicts:
        worst = max(conflicts, key=lambda p: p.ways)
        title = (
            f"shared-memory bank conflicts: {len(conflicts)} of {total} shared accesses, the worst "
            f"{worst.ways:.3g}-way ({worst.opcode}, {stage.value.upper()} line {worst.index + 1})"
        )
        detail = (
            f"{rule} In these, one bank must deliver more words than the warp needs wavefronts: the worst takes at "
            f"least {worst.ways:.3g}x the wavefronts. Padding the row pitch by one word, or swizzling the shared "
            "layout, spreads the words over the banks. " + "; ".join(rows) + "."
        )
        lines = tuple(sorted(p.index for p in conflicts))
        return [Finding("bank-conflicts", "warn", title, detail, stage, lines, rows)]
    title = f"shared-memory accesses force no bank conflict ({len(patterns)} of {total} proven)"
    detail = f"{rule} No proven one asks a bank for more words than it needs wavefronts. " + "; ".join(rows) + "."
    return [Finding("bank-conflicts", "info", title, detail, stage, tuple(p.index for p in patterns), rows)]
