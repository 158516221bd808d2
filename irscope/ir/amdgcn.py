"""AMDGCN as LLVM's AMDGPU backend prints it: its instructions and global accesses (normalize.py: its normal form).

The listing is assembly text: instructions indented by a tab, directives starting with a dot,
``;`` comments. After the function come the kernel descriptor (``.amdhsa_*``), LLVM's register
summary, the DWARF tables as ``.byte``/``.long`` data and the YAML metadata; only the function's
instructions count as instructions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

# 	global_load_dwordx4 v[2:5], v[0:1], off
# 	buffer_load_b32 v1, v2, s[4:7], 0 offen
# 	v_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[4:5], a[0:15]
INSTRUCTION = re.compile(r"^\s+([a-z][a-z0-9_]*)(?=\s|$)")
# .LBB0_3:   .Ltmp12:   row_softmax:
LABEL = re.compile(r"^(\.?[A-Za-z_$][\w.$]*):")
# .LBB0_3, .Ltmp12, .Lfunc_end0: numbered by the compiler, renumbered by any change before them
NUMBERED_LABEL = re.compile(r"\.L(?:BB|tmp|func_begin|func_end)\d+(?:_\d+)?\b")

# What one lane moves, by the size suffix of a global or buffer access (gfx9 spells it dword/short/byte,
# gfx11 on b32/u16/i8 ...): global_load_dwordx4 -> 16.
ACCESS_BYTES = {
    "dword": 4,
    "dwordx2": 8,
    "dwordx3": 12,
    "dwordx4": 16,
    "short": 2,
    "ushort": 2,
    "sshort": 2,
    "short_d16": 2,
    "short_d16_hi": 2,
    "byte": 1,
    "ubyte": 1,
    "sbyte": 1,
    "b8": 1,
    "u8": 1,
    "i8": 1,
    "b16": 2,
    "u16": 2,
    "i16": 2,
    "d16_b16": 2,
    "b32": 4,
    "b64": 8,
    "b96": 12,
    "b128": 16,
}
# global_load_dwordx4, buffer_store_b32, global_atomic_add_f32, buffer_atomic_cmpswap_b64
GLOBAL_ACCESS = re.compile(r"^(global|buffer)_(load|store|atomic)_(.+)$")


class Access(NamedTuple):
    kind: str  # "load", "store" or "atomic"
    bytes: int | None  # per lane


def instructions(text: str) -> list[tuple[int, str]]:
    """``(line index, opcode)`` of each instruction of the function, in order."""
    out = []
    for i, line in enumerate(text.splitlines()):
        if line.startswith("\t.section") or line.startswith("\t.end_amdhsa_kernel"):
            break  # the function's code is over: descriptor, summary and debug tables follow
        m = INSTRUCTION.match(line)
        if m:
            out.append((i, m.group(1)))
    return out


def access(opcode: str) -> Access | None:
    """What a ``global_``/``buffer_`` instruction does to global memory (None: not such an access)."""
    m = GLOBAL_ACCESS.match(opcode)
    if m is None:
        return None
    kind, rest = m.group(2), m.group(3)
    if kind == "atomic":
        width = rest.rpartition("_")[2]
        return Access("atomic", ACCESS_BYTES.get("dwordx2" if width == "x2" else width, 4))
    return Access(kind, ACCESS_BYTES.get(rest))


# LLVM marks every spill and reload it writes: `; 4-byte Folded Spill`, `; 16-byte Folded Reload`. Where a
# target has no scratch_ instructions (gfx90a) its spills are buffer_ accesses through the private
# segment's descriptor, which only this comment tells from the kernel's own buffer accesses.
SPILL_COMMENT = re.compile(r";\s*\d+-byte Folded (?:Spill|Reload)\b")
# ds_read_b128, ds_write2_b32, ds_read2st64_b64, ds_load_2addr_b32, ds_read_b64_tr_b16, ds_load_u16_d16_hi
LDS_ACCESS = re.compile(r"^ds_(read|write|load|store)(2st64|2|_2addr_stride64|_2addr|_addtid|_tr\d*)?_(.+)$")
SCRATCH_ACCESS = re.compile(r"^scratch_(load|store)_(.+)$")


@dataclass(frozen=True)
class MemoryOp:
    """One instruction of the function that touches memory, as far as it says which memory."""

    index: int  # line in the listing
    opcode: str
    space: str  # "global", "lds", "scratch" or "flat" (a generic address, resolved at run time)
    kind: str  # "load", "store" or "atomic"
    bytes: int | None  # per lane (both halves of a ds_read2)


def memory_ops(text: str) -> list[MemoryOp]:
    """Every global, LDS, scratch and flat access of the function, in order; spills and reloads are scratch."""
    lines = text.splitlines()
    out = []
    for index, opcode in instructions(text):
        spill = SPILL_COMMENT.search(lines[index]) is not None
        found = access(opcode)
        if found is not None:
            out.append(MemoryOp(index, opcode, "scratch" if spill else "global", found.kind, found.bytes))
            continue
        m = SCRATCH_ACCESS.match(opcode) or re.match(r"^flat_(load|store|atomic)_(.+)$", opcode)
        if m:
            space = "scratch" if opcode.startswith("scratch_") else "flat"
            out.append(MemoryOp(index, opcode, space, m.group(1), _width(m.group(2))))
            continue
        m = LDS_ACCESS.match(opcode)
        if m:
            kind = "load" if m.group(1) in ("read", "load") else "store"
            width = _width(m.group(3))
            pair = m.group(2) in ("2", "2st64", "_2addr", "_2addr_stride64")
            out.append(MemoryOp(index, opcode, "lds", kind, width * 2 if width and pair else width))
    return out


def _width(suffix: str) -> int | None:
    """Bytes per lane of a width suffix and what follows it: ``dwordx4`` 16, ``b64_tr_b16`` 8, ``u16_d16_hi`` 2."""
    if suffix in ACCESS_BYTES:
        return ACCESS_BYTES[suffix]
    first = suffix.split("_", 1)[0]
    return ACCESS_BYTES.get(first)


def barriers(text: str) -> list[int]:
    """Lines of workgroup barriers: ``s_barrier`` (gfx9, gfx11), ``s_barrier_signal``/``_wait`` (gfx12)."""
    return [i for i, op in instructions(text) if op in ("s_barrier", "s_barrier_signal", "s_barrier_wait")]


# 	v_writelane_b32 v81, s0, 0        v_readlane_b32 s84, v81, 0
LANE_SPILL = re.compile(r"^\s+v_(write|read)lane_b32\s+([vs]\d+),\s*([vs]\d+),")


@dataclass(frozen=True)
class LaneSpills:
    """SGPRs kept in lanes of VGPRs: the writes, the reads back, the VGPRs that hold them and their lines."""

    writes: int
    reads: int
    holders: tuple[str, ...]
    lines: tuple[int, ...]


def lane_spills(text: str) -> LaneSpills:
    """Every ``v_writelane_b32 vN, sM, lane`` and ``v_readlane_b32 sM, vN, lane`` of the function: how LLVM
    spills an SGPR without scratch (SILowerSGPRSpills)."""
    lines = text.splitlines()
    writes = reads = 0
    holders: dict[str, None] = {}
    found = []
    for index, opcode in instructions(text):
        if opcode not in ("v_writelane_b32", "v_readlane_b32"):
            continue
        m = LANE_SPILL.match(lines[index])
        if not m:
            continue
        found.append(index)
        if m[1] == "write":
            writes += 1
            holders[m[2]] = None
        else:
            reads += 1
            holders[m[3]] = None
    return LaneSpills(writes, reads, tuple(holders), tuple(found))
