"""AMDGCN as LLVM's AMDGPU backend prints it: its instructions and global accesses (normalize.py: its normal form).

The listing is assembly text: instructions indented by a tab, directives starting with a dot,
``;`` comments. After the function come the kernel descriptor (``.amdhsa_*``), LLVM's register
summary, the DWARF tables as ``.byte``/``.long`` data and the YAML metadata; only the function's
instructions count as instructions.
"""

from __future__ import annotations

import re
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
