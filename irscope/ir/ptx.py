"""PTX instructions, parsed: guard predicate, opcode with its modifiers, operands.

Shared by the structural summary (opcode mix, vector widths, predicated memory
operations) and the annotator (which explains each part in words).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import compress, count, repeat
from operator import contains, methodcaller
from typing import NamedTuple

# @%p2 ld.global.v4.b32 { %r10, %r11, %r12, %r13 }, [ %rd5 + 0 ];
PTX_INSTRUCTION = re.compile(r"(?:@(?P<guard>!?%\w+)\s+)?(?P<opcode>[a-z_][\w.:]*)(?:\s+(?P<operands>[^;]*))?")
# $L__BB0_2:     (also "$L__tmp0:" and "$L__func_begin0:")
PTX_LABEL = re.compile(r"^\s*[$\w]+:\s*(?://.*)?$")
# ld.global.v4.b32 -> ("ld", ("global", "v4", "b32"))
VECTOR = re.compile(r"^v(\d+)$")
TYPE_BITS = re.compile(r"^[bsuf](\d+)$")
STATE_SPACES = ("global", "shared", "local", "param", "const", "generic")
# .reqnctapercluster 2, 1, 1: the kernel must be launched in clusters of that shape (Triton's num_ctas > 1 writes it,
# with .explicitcluster); its y and z may be left out.
# Up to 5 digits a size: a longer one is no shape a launch could ask for (and int() of thousands of digits raises).
REQNCTAPERCLUSTER = re.compile(
    r"^\s*\.reqnctapercluster\s+(\d{1,5})(?:\s*,\s*(\d{1,5}))?(?:\s*,\s*(\d{1,5}))?(?![\d,])", re.M
)


def launchable_cluster(dims: tuple[int, ...]) -> bool:
    """Is ``dims`` a cluster shape a launch could ask for: x, y, z CTAs of 1 to 9,999 each (what
    ``Resources.cluster`` can spell)? A 0 or a larger size is damaged text, never a shape to show."""
    return len(dims) == 3 and all(type(d) is int and 1 <= d < 10_000 for d in dims)


def cluster_directive(ptx: str) -> tuple[re.Match, tuple[int, int, int]] | None:
    """The PTX's ``.reqnctapercluster`` and the shape it requires of every launch; None where it names none
    (or names sizes no launch could ask for)."""
    m = REQNCTAPERCLUSTER.search(ptx)
    if m is None:
        return None
    dims = (int(m[1]), int(m[2] or 1), int(m[3] or 1))
    return (m, dims) if launchable_cluster(dims) else None


def required_cluster(ptx: str) -> tuple[int, int, int] | None:
    """The cluster shape the PTX requires of every launch (``cluster_directive``'s), None where it names none."""
    found = cluster_directive(ptx)
    return found[1] if found else None


def cluster_label(dims: tuple[int, int, int] | None) -> str | None:
    """``(2, 1, 1)`` -> ``"2x1x1"``: a cluster shape as ``Resources.cluster`` holds it."""
    return "x".join(map(str, dims)) if dims and launchable_cluster(dims) else None


def opcode_base(opcode: str) -> str:
    """``ld.global.v4.b32`` -> ``ld`` (SASS alike: ``LDG.E.128`` -> ``LDG``)."""
    return opcode.split(".", 1)[0]


def opcode_modifiers(opcode: str) -> tuple[str, ...]:
    return tuple(opcode.split(".")[1:])


class PtxInstruction(NamedTuple):
    index: int  # type: ignore[assignment]  # 0-based line in the listing (shadows tuple.index)
    opcode: str  # full, with modifiers: "ld.global.v4.b32"
    operand_text: str = ""  # split on demand: most users only need the opcode
    guard: str | None = None  # "%p1" or "!%p1"

    @property
    def operands(self) -> tuple[str, ...]:
        return split_operands(self.operand_text)

    @property
    def base(self) -> str:
        """The opcode without modifiers: ld, LDG."""
        return opcode_base(self.opcode)

    @property
    def modifiers(self) -> tuple[str, ...]:
        """The modifiers, in order."""
        return opcode_modifiers(self.opcode)

    @property
    def space(self) -> str | None:
        """State space of a memory instruction (global, shared, local, ...)."""
        mods = self.modifiers
        for space in STATE_SPACES:
            if space in mods or any(m.startswith(space + ":") for m in mods):
                return space
        return None

    @property
    def vector(self) -> int:
        """Elements per access: 4 for .v4, 1 when not vectorised."""
        for mod in self.modifiers:
            m = VECTOR.match(mod)
            if m:
                return int(m.group(1))
        return 1

    @property
    def type_bits(self) -> int | None:
        for mod in reversed(self.modifiers):
            m = TYPE_BITS.match(mod)
            if m:
                return int(m.group(1))
        return None

    @property
    def access_bytes(self) -> int | None:
        """Bytes moved by one thread's access (16 for ld.global.v4.b32)."""
        bits = self.type_bits
        return None if bits is None else self.vector * bits // 8


def split_operands(text: str) -> tuple[str, ...]:
    """Split at top-level commas (not inside {} or [])."""
    out: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        out.append("".join(current).strip())
    return tuple(out)


def parse_line(line: str, index: int = 0) -> list[PtxInstruction]:
    """The instructions on one PTX line (usually one; none for directives, labels, comments)."""
    code = line.strip()
    if not code or code[0] in "./$}" or code == "{":
        return []  # directive, comment, label, brace: the common non-instruction lines, rejected cheaply
    if "//" in code:
        code = code.split("//", 1)[0].strip()
    if not code or code.endswith(":") and PTX_LABEL.match(code):
        return []
    if code.count(";") <= 1:  # the usual case: one instruction on the line
        m = PTX_INSTRUCTION.match(code)
        return (
            [PtxInstruction(index, m.group("opcode"), (m.group("operands") or "").strip(), m.group("guard"))]
            if m
            else []
        )
    out = []
    for statement in code.split(";"):
        statement = statement.strip()
        if statement.startswith("{"):  # an inline-asm scope opening on the same line
            statement = statement[1:].strip()
        if statement.endswith("}") and statement.count("}") > statement.count("{"):
            statement = statement[:-1].strip()
        if not statement or statement.startswith("."):
            continue
        m = PTX_INSTRUCTION.match(statement)
        if m:
            out.append(PtxInstruction(index, m.group("opcode"), (m.group("operands") or "").strip(), m.group("guard")))
    return out


# One instruction at the start of a line (after an optional guard), across the whole text.
PTX_LINE_INSTRUCTION = re.compile(
    r"^[ \t]*(?:@(?P<guard>!?%\w+)[ \t]+)?(?P<opcode>[a-z_][\w.:]*)(?:[ \t]+(?P<operands>[^;\n]*))?;(?P<rest>[^\n]*)",
    re.MULTILINE,
)


def lines_matching(find, lines: list[str]) -> tuple[list[int], list[re.Match]]:
    """The 0-based index and the match of each of ``lines`` in which ``find`` (a pattern's ``match`` or
    ``search``) finds something. Listings run to tens of thousands of lines: one C-level call is mapped
    over all of them, and only the lines found are looked at in Python."""
    found = list(map(find, lines))
    return list(compress(count(), found)), list(compress(found, found))


def instructions(text: str) -> list[PtxInstruction]:
    """Every instruction in a PTX listing, in order (the debug sections after the body are skipped).

    Listings run to tens of thousands of lines and the diff summary parses two of them (lines_matching).
    """
    end = text.find("\n\t.section")
    lines = (text if end == -1 else text[:end]).split("\n")
    indices, matches = lines_matching(PTX_LINE_INSTRUCTION.match, lines)
    if not matches:
        return []
    guards, opcodes, raw_operands, rests = zip(*map(_GROUPS, matches))
    operands = [o.strip() if o else "" for o in raw_operands]
    out = list(map(_NEW_TUPLE, repeat(PtxInstruction), zip(indices, opcodes, operands, guards)))
    more = list(compress(count(), map(_CONTAINS, rests, repeat(";"))))
    if more:  # more statements on the same line (inline asm): after their line's first, in order
        for n in reversed(more):
            out[n + 1 : n + 1] = parse_line(rests[n], indices[n])
    return out


_GROUPS = methodcaller("groups")
_CONTAINS = contains
_NEW_TUPLE = tuple.__new__  # a NamedTuple made in C (its own __new__ is Python)


class Access(NamedTuple):
    """What one memory instruction moves, per thread: shared by the statistics, the diff and the findings."""

    kind: str  # load, store or atomic
    space: str  # global, shared, local, generic
    bytes: int | None  # per thread and instruction (cp.async: its copy size)
    masked: bool  # predicated, or (cp.async) told to read fewer bytes than it writes and zero-fill the rest
    asynchronous: bool = False  # cp.async / LDGSTS: global to shared without registers


_ACCESS_BASES = {"ld": "load", "ldu": "load", "st": "store", "atom": "atomic", "red": "atomic"}
_IMMEDIATE = re.compile(r"^(?:0[xX][0-9a-fA-F]+|\d+)$")


def is_async_copy(opcode: str) -> bool:
    """``cp.async.cg.shared.global``, an Ampere-style copy; not its commit/wait groups, not a bulk (TMA) copy."""
    return opcode.startswith("cp.async.c") and not opcode.startswith(("cp.async.commit", "cp.async.bulk"))


def access(ins: PtxInstruction, constants: Mapping[str, int] | None = None) -> Access | None:
    """The memory access ``ins`` makes (None: not a load, store, atomic or asynchronous copy).

    ``constants``: registers the listing sets once to a number (``constant_registers``), so that a
    cp.async whose src-size is ``%r19`` after ``mov.b32 %r19, 16`` reads all it writes and is not masked."""
    base = ins.base
    if base == "cp":
        if not is_async_copy(ins.opcode):
            return None
        ops = ins.operands  # [dst], [src], cp-size[, src-size]: src-size < cp-size reads less and zero-fills
        size = _int(ops[2]) if len(ops) >= 3 else None
        if len(ops) >= 4 and not ops[3].startswith("."):
            src_size = _int(ops[3])
            if src_size is None and constants is not None:
                src_size = constants.get(ops[3].strip())
            partial = src_size != size
        else:
            partial = False
        return Access("load", "global", size, ins.guard is not None or partial, True)
    kind = _ACCESS_BASES.get(base)
    if kind is None:
        return None
    return Access(kind, ins.space or "generic", ins.access_bytes, ins.guard is not None)


# mov.b32 	%r19, 16;
CONSTANT_MOV = re.compile(r"^mov\.[bsu](?:16|32|64)$")


def constant_registers(instructions: list[PtxInstruction]) -> dict[str, int]:
    """Registers written exactly once, by a ``mov`` of an integer."""
    writes: dict[str, int] = {}
    values: dict[str, int] = {}
    for ins in instructions:
        text = ins.operand_text
        if not text or ins.base in ("st", "red", "cp", "bar", "barrier", "mbarrier", "fence", "wgmma", "tcgen05"):
            continue
        dest = text.split(",", 1)[0].strip()
        if not dest.startswith("%"):
            continue
        writes[dest] = writes.get(dest, 0) + 1
        if ins.guard is None and CONSTANT_MOV.match(ins.opcode):
            ops = ins.operands
            value = _int(ops[1]) if len(ops) == 2 else None
            if value is not None:
                values[dest] = value
    return {reg: value for reg, value in values.items() if writes[reg] == 1}


def _int(token: str) -> int | None:
    token = token.strip()
    return int(token, 0) if _IMMEDIATE.match(token) else None
