"""SASS instructions, parsed from irscope's (nvdisasm-style) listing."""

from __future__ import annotations

import re
from typing import NamedTuple

from .ptx import lines_matching, opcode_base, opcode_modifiers

#         /*0220*/              @!P6 LDG.E.128 R16, desc[UR8][R4.64] ;
SASS_INSTRUCTION = re.compile(
    r"^\s*/\*(?P<address>[0-9a-f]+)\*/\s+(?:@(?P<guard>!?U?P\w+)\s+)?(?P<opcode>[A-Z][A-Za-z0-9_.]*)(?:\s+(?P<operands>.*?))?\s*;\s*$"
)


class SassInstruction(NamedTuple):
    index: int  # type: ignore[assignment]  # 0-based line in the listing (shadows tuple.index)
    address: int
    opcode: str  # "LDG.E.128"
    operand_text: str = ""
    guard: str | None = None

    @property
    def operands(self) -> tuple[str, ...]:
        return tuple(o.strip() for o in self.operand_text.split(",") if o.strip())

    @property
    def base(self) -> str:
        """The opcode without modifiers: ld, LDG."""
        return opcode_base(self.opcode)

    @property
    def modifiers(self) -> tuple[str, ...]:
        """The modifiers, in order."""
        return opcode_modifiers(self.opcode)

    @property
    def access_bits(self) -> int | None:
        """Width of a memory access (LDG.E.128 -> 128; plain LDG.E -> 32)."""
        return access_bits(self.opcode)


# opcode -> (kind, space) of the access it makes
MEMORY_OPCODES = {
    "LDG": ("load", "global"),
    "STG": ("store", "global"),
    "LDGSTS": ("load", "global"),
    "LDS": ("load", "shared"),
    "STS": ("store", "shared"),
    "LDSM": ("load", "shared"),
    "STSM": ("store", "shared"),
    "LDL": ("load", "local"),
    "STL": ("store", "local"),
    "LD": ("load", "generic"),
    "ST": ("store", "generic"),
    "ATOMG": ("atomic", "global"),
    "REDG": ("atomic", "global"),
    "RED": ("atomic", "generic"),
    "ATOM": ("atomic", "generic"),
    "ATOMS": ("atomic", "shared"),
}


def access_bits(opcode: str) -> int | None:
    """Width of the access ``opcode`` makes per thread, from its own size suffix (LDG.E.128 -> 128,
    LDGSTS.E.BYPASS.128 -> 128, LDG.E.U16 -> 16, plain LDG.E -> 32), or None for an instruction that is
    not a load, store or atomic."""
    base, *mods = opcode.split(".")
    if base not in MEMORY_OPCODES:
        return None
    if base in ("LDSM", "STSM"):  # .16.M88.4 / .16.MT88.2: the count of 8x8 matrices, 32 bits a thread each
        count = next((int(m) for m in reversed(mods) if m in ("1", "2", "4")), 1)
        return 32 * count
    for mod in mods:
        if mod.isdigit():
            return int(mod)
        if mod in ("U8", "S8"):
            return 8
        if mod in ("U16", "S16"):
            return 16
    return 32


class Access(NamedTuple):
    """As ``ptx.Access``: what one memory instruction moves, per thread."""

    kind: str
    space: str
    bytes: int | None
    masked: bool
    asynchronous: bool = False


PREDICATE = re.compile(r"^!?U?P[0-6]$")  # a predicate register, not PT (always true)


def access(ins: SassInstruction) -> Access | None:
    """The memory access ``ins`` makes. LDGSTS's last operand, a predicate, zero-fills the copy where false:
    that is how a masked cp.async reaches SASS."""
    found = MEMORY_OPCODES.get(ins.base)
    if found is None:
        return None
    kind, space = found
    bits = access_bits(ins.opcode)
    masked = ins.guard is not None
    asynchronous = ins.base == "LDGSTS"
    if asynchronous:
        ops = ins.operands
        masked = masked or bool(ops and PREDICATE.match(ops[-1])) or "ZFILL" in ins.modifiers
    return Access(kind, space, bits // 8 if bits else None, masked, asynchronous)


# The same, found in a line or across a whole listing (it never spans a newline).
# (it starts with the literal "/*" so the regex engine can skip ahead to each address)
SASS_LINE_INSTRUCTION = re.compile(r"/\*([0-9a-f]+)\*/[ \t]+(?:@(!?U?P\w+)[ \t]+)?([A-Z][A-Za-z0-9_.]*)([^;\n]*);")


def instruction_matches(text: str) -> tuple[list[int], list[re.Match]]:
    """The 0-based line and the SASS_LINE_INSTRUCTION match of every instruction (groups: address, guard,
    opcode, operands), without making SassInstructions of them (statistics need few)."""
    return lines_matching(SASS_LINE_INSTRUCTION.search, text.split("\n"))


def instructions(text: str) -> list[SassInstruction]:
    out = []
    for line, m in zip(*instruction_matches(text)):
        address, guard, opcode, operands = m.groups()
        out.append(SassInstruction(line, int(address, 16), opcode, operands.strip(), guard))
    return out
