"""SASS instructions, parsed from irscope's (nvdisasm-style) listing."""

from __future__ import annotations

import re
from typing import NamedTuple

from .ptx import opcode_base, opcode_modifiers

#         /*0220*/              @!P6 LDG.E.128 R16, desc[UR8][R4.64] ;
SASS_INSTRUCTION = re.compile(
    r"^\s*/\*(?P<address>[0-9a-f]+)\*/\s+(?:@(?P<guard>!?U?P\w+)\s+)?(?P<opcode>[A-Z][A-Za-z0-9_.]*)(?:\s+(?P<operands>.*?))?\s*;\s*$"
)


class SassInstruction(NamedTuple):
    index: int  # 0-based line in the listing
    address: int
    opcode: str  # "LDG.E.128"
    operand_text: str = ""
    guard: str | None = None

    @property
    def operands(self) -> tuple[str, ...]:
        return tuple(o.strip() for o in self.operand_text.split(",") if o.strip())

    base = property(lambda self: opcode_base(self.opcode), doc="The opcode without modifiers: ld, LDG.")
    modifiers = property(lambda self: opcode_modifiers(self.opcode), doc="The modifiers, in order.")

    @property
    def access_bits(self) -> int | None:
        """Width of a memory access (LDG.E.128 -> 128; plain LDG.E -> 32)."""
        if self.base not in ("LDG", "STG", "LDS", "STS", "LDL", "STL", "LD", "ST", "LDSM", "ATOMG", "RED"):
            return None
        for mod in self.modifiers:
            if mod.isdigit():
                return int(mod)
            if mod in ("U8", "S8"):
                return 8
            if mod in ("U16", "S16"):
                return 16
            if mod == "64":
                return 64
        return 32


def instructions(text: str) -> list[SassInstruction]:
    out = []
    for i, line in enumerate(text.splitlines()):
        if "/*" not in line:
            continue
        m = SASS_INSTRUCTION.match(line)
        if m:
            out.append(SassInstruction(i, int(m.group("address"), 16), m.group("opcode"), m.group("operands") or "",
                                       m.group("guard")))
    return out
