"""SASS instructions, parsed from irscope's (nvdisasm-style) listing."""

from __future__ import annotations

import re
from typing import NamedTuple

from .ptx import matches_with_lines, opcode_base, opcode_modifiers

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
        return access_bits(self.opcode)


MEMORY_OPCODES = ("LDG", "STG", "LDS", "STS", "LDL", "STL", "LD", "ST", "LDSM", "ATOMG", "RED")


def access_bits(opcode: str) -> int | None:
    """Width of the access ``opcode`` makes, or None for an instruction that is not a load or store."""
    base, *mods = opcode.split(".")
    if base not in MEMORY_OPCODES:
        return None
    for mod in mods:
        if mod.isdigit():
            return int(mod)
        if mod in ("U8", "S8"):
            return 8
        if mod in ("U16", "S16"):
            return 16
    return 32


# The same, over a whole listing at once (MULTILINE): one scan instead of a loop over lines.
# (it starts with the literal "/*" so the regex engine can skip ahead to each address)
SASS_LINE_INSTRUCTION = re.compile(r"/\*([0-9a-f]+)\*/[ \t]+(?:@(!?U?P\w+)[ \t]+)?([A-Z][A-Za-z0-9_.]*)([^;\n]*);")


def guards_and_opcodes(text: str) -> list[tuple[str, str]]:
    """``(guard, opcode)`` of every instruction, without positions: the cheap scan counting needs."""
    return [(guard, opcode) for _, guard, opcode, _ in SASS_LINE_INSTRUCTION.findall(text)]


def instructions(text: str) -> list[SassInstruction]:
    out = []
    for line, m in matches_with_lines(SASS_LINE_INSTRUCTION, text):
        address, guard, opcode, operands = m.groups()
        out.append(SassInstruction(line, int(address, 16), opcode, operands.strip(), guard))
    return out
