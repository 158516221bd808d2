"""The value a SASS register holds in every thread of a block, where the listing proves it: the SASS twin
of ptx_lanes.py, for the same ``Value``.

SASS registers are physical and reused, so a register's value at an instruction is that of its last write
before it in the same straight run of code: the search stops at a label (another path may reach the
instruction with another value) and at a guarded write. The operations are those ptxas emits to compute
addresses (CUDA Binary Utilities' instruction set tables): ``S2R`` of ``SR_TID.X`` (the thread id) and
``SR_LANEID``, ``IMAD`` (and its ``.SHL``, ``.IADD``, ``.MOV`` forms), ``IADD3``, ``VIADD``, ``LEA``,
``SHF``, ``LOP3.LUT`` (its lookup table applied bit by bit, as PTX's ``lop3``), ``SGXT``, ``MOV``, ``SEL``
and ``ISETP`` for predicates. Uniform registers (``UR``), ``S2UR`` and constant-bank operands (``c[0x0][..]``)
are the same in every thread: proven as the uniform unknown ``U`` with the alignment their own operations
keep (``ULEA UR4, UR5, UR4, 0x18`` after ``UMOV UR4, 0x400``: a multiple of 1024).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..ir import sass as sass_ir
from .amd_lanes import Value, trailing_zeros
from .ptx_lanes import Block

MASK = 0xFFFFFFFF
DEPTH = 48
LABEL = re.compile(r"^\s*\.L_x_\d+:")
REGISTER = re.compile(r"^(-)?(U?R\d+|U?RZ|U?P\d|U?PT)(?:\.reuse)?$")
IMMEDIATE = re.compile(r"^-?0x[0-9a-f]+$|^-?\d+$")
CONSTANT_BANK = re.compile(r"^-?c\[0x[0-9a-f]+\]\[0x[0-9a-f]+\]$")
NO_WRITE = (
    "ST",
    "STS",
    "STG",
    "STL",
    "STSM",
    "RED",
    "BRA",
    "EXIT",
    "BAR",
    "RET",
    "CALL",
    "WARPSYNC",
    "BSYNC",
    "LDGSTS",
)


def _lut(table: int) -> Callable[[int, int, int], int]:
    """LOP3.LUT's function: bit ``4a + 2b + c`` of ``table`` (a = 0xF0, b = 0xCC, c = 0xAA)."""

    def apply(a: int, b: int, c: int) -> int:
        out = 0
        for row in range(8):
            if table >> row & 1:
                out |= (a if row & 4 else ~a) & (b if row & 2 else ~b) & (c if row & 1 else ~c)
        return out & MASK

    return apply


def _shf(opcode: str) -> Callable[[int, int, int], int] | None:
    """SHF.{L,R}.{U32,S32,U64,S64}[.HI] lo, shift, hi: the 64-bit funnel hi:lo shifted, its low or high word."""
    mods = opcode.split(".")[1:]
    left, high = "L" in mods, "HI" in mods
    signed = "S32" in mods or "S64" in mods
    wide = "U64" in mods or "S64" in mods

    def apply(lo: int, s: int, hi: int) -> int:
        s &= 63 if wide else 31
        whole = ((hi & MASK) << 32) | (lo & MASK)
        if signed and hi & 0x80000000:
            whole -= 1 << 64
        shifted = whole << s if left else whole >> s
        return (shifted >> 32 if high else shifted) & MASK

    return apply


class SassLanes:
    """Proves register values per thread over one SASS listing, for the block ``block``."""

    def __init__(self, text: str, block: Block, instructions: list[sass_ir.SassInstruction] | None = None) -> None:
        self.block = block
        self.instructions = sass_ir.instructions(text) if instructions is None else instructions
        self.position = {ins.index: k for k, ins in enumerate(self.instructions)}
        labels = [n for n, line in enumerate(text.split("\n")) if LABEL.match(line)]
        # for each instruction, the line of the last label before it
        self._label_before: list[int] = []
        k = 0
        last = -1
        for ins in self.instructions:
            while k < len(labels) and labels[k] < ins.index:
                last = labels[k]
                k += 1
            self._label_before.append(last)
        self.first_label = labels[0] if labels else None
        self.writes = [_writes(ins) for ins in self.instructions]
        self.write_count: dict[str, int] = {}
        for written in self.writes:
            for reg in written:
                self.write_count[reg] = self.write_count.get(reg, 0) + 1
        self._proven: dict[tuple[int, str], Value | None] = {}

    def at(self, ins: sass_ir.SassInstruction, operand: str) -> Value | None:
        """``operand``'s value in every thread as ``ins`` reads it (None: not proven)."""
        return self._operand(self.position[ins.index], operand, 0)

    def _uniform(self, align: int = 0) -> Value:
        return Value((0,) * self.block.threads, min(align, 31))

    def _operand(self, k: int, operand: str, depth: int) -> Value | None:
        operand = _bare(operand)
        n = self.block.threads
        if IMMEDIATE.match(operand):
            return Value(((int(operand, 0) if not operand.startswith("-") else -int(operand[1:], 0)) & MASK,) * n)
        if CONSTANT_BANK.match(operand.lstrip("-")):
            return self._uniform()
        m = REGISTER.match(operand)
        if m is None or depth > DEPTH:
            return None
        negate, reg = bool(m[1]), m[2]
        if reg in ("RZ", "URZ"):
            return Value((0,) * n)
        if reg in ("PT", "UPT"):
            return Value((1,) * n)
        found = self._register(k, reg, depth)
        if found is None and reg.startswith("U"):
            return self._uniform()
        if found is not None and negate:
            if found.uniform:
                return None
            return Value(tuple(-x & MASK for x in found.lanes))
        return found

    def _register(self, k: int, reg: str, depth: int) -> Value | None:
        """The value of ``reg`` just before position ``k``: its last write in the same straight run."""
        floor = self._label_before[k]
        # past a label another path may bring another value, unless the register's one write in the listing
        # comes before the first label: then every path has been through it
        once = self.write_count.get(reg) == 1
        for j in range(k - 1, -1, -1):
            ins = self.instructions[j]
            if ins.index < floor and not once:
                return None
            if reg not in self.writes[j]:
                continue
            if ins.index < floor and (self.first_label is None or ins.index > self.first_label):
                return None
            if ins.guard:
                return None
            key = (j, reg)
            if key not in self._proven:
                self._proven[key] = None
                self._proven[key] = self._result(j, ins, reg, depth + 1)
            return self._proven[key]
        return None

    def _result(self, k: int, ins: sass_ir.SassInstruction, reg: str, depth: int) -> Value | None:
        ops = [_bare(o) for o in ins.operands]
        base = ins.base.removeprefix("U") if ins.base not in ("UMOV",) else "MOV"
        mods = ins.modifiers
        n = self.block.threads

        def val(i: int) -> Value | None:
            return self._operand(k, ops[i], depth) if i < len(ops) else None

        if ins.base == "S2R" and len(ops) == 2:
            special = ops[1]
            if special == "SR_TID.X":
                return Value(tuple(range(n)))
            if special in ("SR_TID.Y", "SR_TID.Z"):
                return Value((0,) * n) if self.block.flat else None
            if special == "SR_LANEID":
                return Value(tuple(t % 32 for t in range(n)))
            if special.startswith(("SR_CTAID", "SR_CgaCtaId", "SR_NCTAID")):
                return self._uniform()
            return None
        if ins.base == "S2UR":
            return self._uniform()
        if ins.base in ("LDC", "ULDC") and "64" not in mods:
            return self._uniform()
        if ops and _first_register(ops[0]) != reg:
            return None  # a second destination (a carry, a predicate) is not followed
        if base in ("MOV",) and len(ops) >= 2:
            return val(1)
        if base == "IMAD" and len(ops) == 4 and "WIDE" not in mods and "HI" not in mods:
            return self._apply(lambda a, b, c: a * b + c, [val(1), val(2), val(3)], (0, 2), (1,), k, ops, depth)
        if base == "IADD3" and len(ops) >= 4:
            return self._apply(lambda a, b, c: a + b + c, [val(i) for i in (-3, -2, -1)], (0, 1, 2), (), k, ops, depth)
        if base == "VIADD" and len(ops) == 3:
            return self._apply(lambda a, b: a + b, [val(1), val(2)], (0, 1), (), k, ops, depth)
        if base == "LEA" and len(ops) == 5 and "HI" in mods and re.fullmatch(r"U?P\d|U?PT", ops[1]) is None:
            # LEA.HI Rd, a, b, c, s: b + ((c:a) >> (32 - s))
            return self._apply(
                lambda a, b, c, s: b + ((((c & MASK) << 32) | (a & MASK)) >> (32 - (s & 31))),
                [val(1), val(2), val(3), val(4)],
                (1,),
                (3,),
                k,
                ops,
                depth,
            )
        if base == "LEA" and len(ops) == 4 and "HI" not in mods:
            return self._apply(
                lambda a, b, s: (a << (s & 31)) + b, [val(1), val(2), val(3)], (0, 1), (2,), k, ops, depth
            )
        if base == "SHF" and len(ops) == 4:
            shf = _shf(ins.opcode)
            if shf is not None:
                carries = (0,) if "L" in mods and "HI" not in mods else ()
                return self._apply(shf, [val(1), val(2), val(3)], carries, (1,), k, ops, depth)
        if base == "LOP3" and len(ops) >= 5 and "LUT" in mods:
            table = _immediate(ops[4])
            if table is not None:
                return self._apply(_lut(table), [val(1), val(2), val(3)], (), (), k, ops, depth)
        if base == "SGXT" and "U32" in mods and len(ops) == 3:
            return self._apply(lambda a, w: a & ((1 << (w & 31)) - 1), [val(1), val(2)], (), (), k, ops, depth)
        if base == "SEL" and len(ops) == 4:
            a, b, p = val(1), val(2), self._predicate(k, ops[3], depth)
            if a is None or b is None or p is None or a.uniform or b.uniform:
                return None
            return Value(tuple(x if c else y for x, y, c in zip(a.lanes, b.lanes, p)))
        return None

    def _apply(self, compute, values, carries, fixed, k, ops, depth) -> Value | None:
        if any(v is None for v in values):
            return None
        known: list[Value] = values
        uniform = [i for i, v in enumerate(known) if v.uniform]
        if uniform and not (set(uniform) <= set(carries) and all(known[i].constant() for i in fixed)):
            if all(v.uniform or v.constant() for v in known):
                return self._uniform()  # every operand the same in all threads: so is the result
            return None
        lanes = tuple(compute(*args) & MASK for args in zip(*(v.lanes for v in known)))
        return Value(lanes, _alignment(compute, known, uniform, fixed))

    def _predicate(self, k: int, operand: str, depth: int) -> tuple[bool, ...] | None:
        """A predicate's value per thread: ``ISETP`` of proven operands, and ``PT``."""
        operand = _bare(operand)
        negate = operand.startswith("!")
        name = operand.lstrip("!")
        n = self.block.threads
        if depth > DEPTH:
            return None
        if name == "PT":
            return (not negate,) * n
        floor = self._label_before[k]
        for j in range(k - 1, -1, -1):
            ins = self.instructions[j]
            if ins.index < floor:
                return None
            if name not in self.writes[j]:
                continue
            ops = tuple(_bare(o) for o in ins.operands)
            if not ins.guard and ins.base == "LOP3" and len(ops) >= 6 and ops[0] == name and _immediate(ops[5]):
                # LOP3.LUT P0, RZ, R12, 0x1f, RZ, 0xc0, !PT: P0 = the result is not zero
                values = [self._operand(j, ops[i], depth + 1) for i in (2, 3, 4)]
                if any(v is None or v.uniform for v in values):
                    return None
                lut = _lut(_immediate(ops[5]) or 0)
                out = tuple(lut(*args) != 0 for args in zip(*(v.lanes for v in values)))  # type: ignore[union-attr]
                return tuple(not x for x in out) if negate else out
            if ins.guard or ins.base != "ISETP" or len(ops) < 5 or ops[0] != name:
                return None
            test = _test(ins.modifiers)
            a, b = self._operand(j, ins.operands[2], depth + 1), self._operand(j, ins.operands[3], depth + 1)
            chain = self._predicate(j, ins.operands[4], depth + 1)
            if test is None or a is None or b is None or a.uniform or b.uniform or chain is None:
                return None
            signed = "U32" not in ins.modifiers
            conv = (lambda x: x - (1 << 32) if x & 0x80000000 else x) if signed else (lambda x: x)
            both = "OR" not in ins.modifiers
            out = tuple(
                (test(conv(x), conv(y)) and c) if both else (test(conv(x), conv(y)) or c)
                for x, y, c in zip(a.lanes, b.lanes, chain)
            )
            return tuple(not x for x in out) if negate else out
        return None

    def active(self, ins: sass_ir.SassInstruction) -> tuple[bool, ...] | None:
        if not ins.guard:
            return (True,) * self.block.threads
        if ins.guard.lstrip("!").startswith("UP"):
            return None
        return self._predicate(self.position[ins.index], ins.guard, 0)


def _bare(operand: str) -> str:
    """An operand without what newer nvdisasm prints after it (``R4   &req={2}   ?trans1``)."""
    parts = operand.split()
    return parts[0] if parts else ""


def _test(mods: Sequence[str]) -> Callable[[int, int], bool] | None:
    tests: dict[str, Callable[[int, int], bool]] = {
        "EQ": lambda a, b: a == b,
        "NE": lambda a, b: a != b,
        "LT": lambda a, b: a < b,
        "LE": lambda a, b: a <= b,
        "GT": lambda a, b: a > b,
        "GE": lambda a, b: a >= b,
    }
    return next((tests[m] for m in mods if m in tests), None)


def _immediate(op: str) -> int | None:
    return int(op, 0) if IMMEDIATE.match(op) and not op.startswith("-") else None


def _first_register(op: str) -> str:
    m = REGISTER.match(_bare(op))
    return m[2] if m else ""


def _writes(ins: sass_ir.SassInstruction) -> set[str]:
    """The registers an instruction writes: its first operand, and a second one where that is a predicate."""
    if ins.base in NO_WRITE or not ins.operands:
        return set()
    ops = ins.operands
    out = {_first_register(ops[0])}
    if len(ops) > 1 and re.fullmatch(r"U?P\d", _bare(ops[1])):
        out.add(_bare(ops[1]))
    if ins.base in ("LDS", "LDG", "LDC", "ULDC", "LDSM", "LD", "LDL") and any(
        m in ("64", "128") for m in ins.modifiers
    ):
        first = _first_register(ops[0])
        if first[:1] in "RU":
            head = first.rstrip("0123456789")
            count = 4 if "128" in ins.modifiers else 2
            out |= {f"{head}{int(first[len(head) :]) + i}" for i in range(count)}
    return out - {""}


def _alignment(compute, values: list[Value], uniform: list[int], fixed) -> int:
    if not uniform:
        return 32
    base = [values[i].lanes[0] if i in fixed else 0 for i in range(len(values))]
    zero = compute(*base)
    out = 32
    for i in uniform:
        unit = list(base)
        unit[i] = 1
        out = min(out, values[i].align + trailing_zeros(compute(*unit) - zero))
    return min(out, 32)
