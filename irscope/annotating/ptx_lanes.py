"""The value a PTX register holds in every thread of a block, where the listing proves it: the NVIDIA twin of
amd_lanes.py, whose ``Value`` (one number per thread, plus an unknown number the same in every thread,
known to be a multiple of ``2**align``) it shares.

A register's value is proven from its writes (PTX registers are virtual: most are written once, and every
write of a register is taken, wherever it is): integer operations this module knows (the PTX ISA's
"Integer Arithmetic", "Logic and Shift" and ``cvt``/``selp``/``setp`` instructions, at the width their
type names), down to constants and ``%tid.x`` (0 to the block's size minus one; ``%tid.y``/``%tid.z`` are 0
only where the block is known to be one-dimensional), ``%laneid`` (the thread's index mod 32) and
``%ntid.x`` where the block's size is exact. Every write of a register must agree thread for thread.

What is the same in every thread but not known (``%ctaid``, a kernel parameter, a shared array's address,
a value a loop advances from such numbers) is proven as the uniform unknown ``U``: a register is uniform
when nothing it is computed from differs between threads (a fixed point over the listing). ``U`` passes
through the operations that distribute over a sum (add, subtract, shift left or multiply by a constant),
with the alignment its writes keep; a shared array's address is aligned as its ``.align`` says.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..ir import ptx as ptx_ir
from .amd_lanes import Operation, Value, carried_alignment, trailing_zeros

DEPTH = 48
REGISTER = re.compile(r"^%[a-z]+\d+$")
PTX_REGISTERS = re.compile(r"%[a-z]+\d+")
# .shared .align 4 .b8 _ZZ17transpose_and_sumPKfPfS1_iE4tile[4224];   .extern .shared .align 16 .b8 global_smem[];
SHARED_SYMBOL = re.compile(r"^\s*(?:\.extern\s+)?\.shared\s+\.align\s+(\d+)\s+\.\w+\s+([$\w]+)\s*\[")
# .reqntid 128, 1, 1     .maxntid 1024, 1, 1
NTID = re.compile(r"^\s*\.(reqntid|maxntid)\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?")
VARYING_SPECIAL = re.compile(r"%(?:tid|laneid|warpid|lanemask|clock|globaltimer|smid)")
VARYING_OPS = ("atom", "shfl", "vote", "activemask", "elect", "match", "redux", "ld", "ldu", "tex", "suld")
NO_DESTINATION = ("st", "red", "cp", "bar", "barrier", "bra", "ret", "mbarrier", "fence", "wgmma", "tcgen05")


@dataclass(frozen=True)
class Block:
    """The threads a kernel runs with: ``threads`` in x, exact or an upper bound (``.maxntid``), and whether
    ``%tid.y`` and ``%tid.z`` are known to be 0."""

    threads: int
    exact: bool
    flat: bool


def block_of(text: str, threads: int | None) -> Block | None:
    """The block of a listing: Triton's ``threads`` (exact, one-dimensional), else ``.reqntid`` (exact) or
    ``.maxntid`` (an upper bound) from the PTX; None where neither says."""
    if threads:
        return Block(threads, True, True)
    for line in text.splitlines():
        m = NTID.match(line)
        if m:
            y, z = int(m[3] or 1), int(m[4] or 1)
            return Block(int(m[2]), m[1] == "reqntid", y == 1 and z == 1)
    return None


def _bits(opcode: str) -> int:
    for mod in reversed(opcode.split(".")[1:]):
        if mod[:1] in "bsu" and mod[1:] in ("16", "32", "64"):
            return int(mod[1:])
    return 32


def _signed(x: int, bits: int) -> int:
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) & 1 else x


def _shr(opcode: str) -> Callable[[int, int], int]:
    bits = _bits(opcode)
    if ".s" in opcode:
        return lambda a, s: _signed(a, bits) >> min(s, bits)
    return lambda a, s: (a & ((1 << bits) - 1)) >> min(s, bits)


def _operation(opcode: str) -> Operation | None:
    base = opcode.split(".")[0]
    mods = opcode.split(".")[1:]
    if base == "mov":
        return Operation(1, lambda a: a, (0,))
    if base == "add":
        return Operation(2, lambda a, b: a + b, (0, 1))
    if base == "sub":
        return Operation(2, lambda a, b: a - b, (0, 1))
    if base == "mul" and ("lo" in mods or "wide" in mods):
        return Operation(2, lambda a, b: a * b, (0, 1), (1,))
    if base == "mad" and ("lo" in mods or "wide" in mods):
        return Operation(3, lambda a, b, c: a * b + c, (0, 2), (1,))
    if base == "shl":
        return Operation(2, lambda a, s: a << min(s, 64), (0,), (1,))
    if base == "shr":
        return Operation(2, _shr(opcode))
    if base == "and":
        return Operation(2, lambda a, b: a & b)
    if base == "or":
        return Operation(2, lambda a, b: a | b)
    if base == "xor":
        return Operation(2, lambda a, b: a ^ b)
    if base == "not":
        return Operation(1, lambda a: ~a)
    if base == "neg":
        return Operation(1, lambda a: -a, (0,))
    if base == "min":
        return Operation(2, min)
    if base == "max":
        return Operation(2, max)
    if base in ("div", "rem") and ".u" in opcode:
        return Operation(2, (lambda a, b: a // b if b else 0) if base == "div" else (lambda a, b: a % b if b else 0))
    if base == "bfe" and ".u" in opcode:
        return Operation(3, lambda a, o, w: (a >> (o & 0xFF)) & ((1 << (w & 0xFF)) - 1))
    if base == "cvt" and not any(m.startswith("f") or m.startswith("rn") for m in mods):
        return Operation(1, lambda a: a, (0,))
    return None


class PtxLanes:
    """Proves register values per thread over one PTX listing, for the block ``block``."""

    def __init__(self, text: str, block: Block, instructions: list[ptx_ir.PtxInstruction] | None = None) -> None:
        self.block = block
        self.instructions = ptx_ir.instructions(text) if instructions is None else instructions
        self.writes: dict[str, list[ptx_ir.PtxInstruction]] = {}
        self.symbols: dict[str, int] = {}
        for line in text.splitlines():
            m = SHARED_SYMBOL.match(line)
            if m:
                self.symbols[m[2]] = trailing_zeros(int(m[1]))
        for ins in self.instructions:
            dest = self._destination(ins)
            if dest:
                self.writes.setdefault(dest, []).append(ins)
        self.varying = self._varying()
        self._proven: dict[str, Value | None] = {}

    @staticmethod
    def _destination(ins: ptx_ir.PtxInstruction) -> str:
        if ins.base in NO_DESTINATION or not ins.operand_text:
            return ""
        first = ins.operand_text.split(",", 1)[0].strip().split("|")[0]
        return first if REGISTER.match(first) else ""

    def _varying(self) -> set[str]:
        """Registers that may differ between the threads of a block (flow-insensitive fixed point)."""
        varying: set[str] = set()
        rows = []
        for ins in self.instructions:
            dest = self._destination(ins)
            if not dest:
                continue
            reads = set(PTX_REGISTERS.findall(ins.operand_text.partition(",")[2]))
            if ins.guard:
                reads.add(ins.guard.lstrip("!"))
            source = bool(VARYING_SPECIAL.search(ins.operand_text)) or (
                ins.base in VARYING_OPS and not (ins.base == "ld" and ".param" in ins.opcode)
            )
            rows.append((dest, reads, source, ins.guard is not None))
        changed = True
        while changed:
            changed = False
            for dest, reads, source, _guarded in rows:
                if dest not in varying and (source or reads & varying):
                    varying.add(dest)
                    changed = True
        return varying

    def value(self, operand: str, depth: int = 0) -> Value | None:
        """``operand``'s value in every thread (None: not proven)."""
        operand = operand.strip()
        constant = ptx_ir._int(operand) if not operand.startswith("-") else None
        if operand.startswith("-") and operand[1:].isdigit():
            constant = -int(operand[1:])
        if constant is not None:
            return Value((constant,) * self.block.threads)
        if operand in self.symbols:  # a shared array's address: one unknown number, aligned as declared
            return Value((0,) * self.block.threads, min(self.symbols[operand], 31))
        special = self._special(operand)
        if special is not None or operand.startswith("%") and not REGISTER.match(operand):
            return special
        if not REGISTER.match(operand) or depth > DEPTH:
            return None
        if operand not in self._proven:
            self._proven[operand] = None  # a cycle through this register proves nothing by itself
            self._proven[operand] = self._register(operand, depth)
        return self._proven[operand]

    def _special(self, operand: str) -> Value | None:
        n = self.block.threads
        if operand == "%tid.x":
            return Value(tuple(range(n)))
        if operand in ("%tid.y", "%tid.z"):
            return Value((0,) * n) if self.block.flat else None
        if operand == "%laneid":
            return Value(tuple(t % 32 for t in range(n)))
        if operand == "%ntid.x" and self.block.exact:
            return Value((n,) * n)
        if operand.startswith(("%ctaid", "%nctaid", "%clusterid", "%cluster_ctaid", "%nclusterid")):
            return Value((0,) * n, 0)
        return None

    def _register(self, reg: str, depth: int) -> Value | None:
        writes = self.writes.get(reg, [])
        if not writes:
            return None
        values = [self._result(ins, depth + 1) for ins in writes]
        if all(v is not None for v in values) and len({v.lanes for v in values if v is not None}) == 1:
            proven = [v for v in values if v is not None]
            return Value(proven[0].lanes, min(v.align for v in proven))
        if reg not in self.varying:  # every write the same in all threads: one unknown number
            return Value((0,) * self.block.threads, min((v.align for v in values if v is not None), default=0))
        return None

    def _result(self, ins: ptx_ir.PtxInstruction, depth: int) -> Value | None:
        if ins.guard:
            return None  # a guarded write leaves the old value in some threads
        ops = ins.operands
        base = ins.base
        if base == "ld" and ".param" in ins.opcode:
            return Value((0,) * self.block.threads, 0)
        if base == "selp" and len(ops) == 4:
            return self._select(ops, depth)
        if base == "setp" and len(ops) == 3:
            return self._compare(ins, ops, depth)
        operation = _operation(ins.opcode)
        if operation is None or len(ops) != 1 + operation.reads:
            return None
        values = [self.value(x, depth) for x in ops[1:]]
        if any(v is None for v in values):
            return None
        known: list[Value] = values  # type: ignore[assignment]
        uniform = [i for i, v in enumerate(known) if v.uniform]
        if uniform and base in ("or", "xor") and len(known) == 2 and len(uniform) == 1:
            # an or of a uniform number aligned to 2**a (ctaid << 6) and per-thread bits below 2**a is their sum
            u, other = known[uniform[0]], known[1 - uniform[0]]
            if not other.uniform and all(0 <= x < (1 << u.align) for x in other.lanes) and not any(u.lanes):
                return Value(other.lanes, u.align)
        if uniform and not (
            set(uniform) <= set(operation.carries) and all(known[i].constant() for i in operation.fixed)
        ):
            if all(v.uniform or v.constant() for v in known):
                return Value((0,) * self.block.threads, 0)  # every operand the same in all threads
            return None
        bits = 64 if "wide" in ins.opcode else _bits(ins.opcode)
        mask = (1 << bits) - 1
        lanes = tuple(operation.compute(*args) & mask for args in zip(*(v.lanes for v in known)))
        return Value(lanes, carried_alignment(operation, known, uniform))

    def _select(self, ops: Sequence[str], depth: int) -> Value | None:
        a, b, p = (self.value(x, depth) for x in ops[1:])
        if a is None or b is None or p is None or a.uniform or b.uniform or p.uniform:
            return None
        return Value(tuple(x if c else y for x, y, c in zip(a.lanes, b.lanes, p.lanes)))

    def _compare(self, ins: ptx_ir.PtxInstruction, ops: Sequence[str], depth: int) -> Value | None:
        a, b = self.value(ops[1], depth), self.value(ops[2], depth)
        if a is None or b is None or a.uniform or b.uniform:
            return None
        bits = _bits(ins.opcode)
        signed = ".s" in ins.opcode
        test = next((COMPARE[m] for m in ins.modifiers if m in COMPARE), None)
        if test is None:
            return None
        conv = (lambda x: _signed(x, bits)) if signed else (lambda x: x & ((1 << bits) - 1))
        return Value(tuple(int(test(conv(x), conv(y))) for x, y in zip(a.lanes, b.lanes)))

    def active(self, ins: ptx_ir.PtxInstruction) -> tuple[bool, ...] | None:
        """Which threads run ``ins``: all without a guard; by its guard, where proven; else None."""
        if not ins.guard:
            return (True,) * self.block.threads
        guard = self.value(ins.guard.lstrip("!"))
        if guard is None or guard.uniform:
            return None
        negate = ins.guard.startswith("!")
        return tuple(bool(x) != negate for x in guard.lanes)


COMPARE: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "lo": lambda a, b: a < b,
    "ls": lambda a, b: a <= b,
    "hi": lambda a, b: a > b,
    "hs": lambda a, b: a >= b,
}
