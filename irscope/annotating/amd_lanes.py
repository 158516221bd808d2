"""The value a register holds in every lane of a workgroup at one instruction, where the AMDGCN proves it.

A value is proven when every write of the register that may reach the instruction
(ir/amdgcn_flow.py) is an integer operation this module knows, run by every lane of the wave (a
VGPR written under a partial EXEC keeps the other lanes' values), whose operands are proven in turn,
down to constants and ``v0`` at the kernel's start: the workitem id, 0 to the workgroup's size
minus one (Triton launches one-dimensional workgroups, so on gfx90a and later, where v0 packs the y
and z ids above bit 10, those are 0). Where several writes reach, they must agree lane for lane.

An SGPR holds one value for a whole wave, so an SGPR this module cannot prove (a kernel argument,
the pipeline's stage offset a loop advances) still proves something: the same unknown number ``U``
in every lane, and often a multiple of a power of two (``alignment``: the trailing zero bits every
write that can reach it guarantees, the greatest fixed point over the writes, loops included:
``s_add_i32 s10, s10, 0x1000`` after ``s_mov_b32 s10, 0`` keeps 12). ``U`` is carried through the
operations that distribute over a sum (add, subtract, shift left or multiply by a lane-constant
amount): ``v_add_u32 v4, s22, v21`` is v21's lanes plus one ``U`` per wave. Anything else (a loaded
value, a VGPR a loop advances, DPP or SDWA, a float) is not proven: None. The operations are 32-bit and unsigned, as AMD's CDNA3 and RDNA3 ISA guides define
them ("Vector ALU" and "Scalar ALU" opcodes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..ir.amdgcn_flow import ENTRY, Flow, Instruction, registers

MASK = 0xFFFFFFFF
DEPTH = 48  # writes followed back from one read: deeper chains are not worth proving


@dataclass(frozen=True)
class Value:
    """One 32-bit number per workitem of the workgroup, plus an unknown number ``U`` the same in every lane
    of a wave and known to be a multiple of ``2**align`` (32: there is none)."""

    lanes: tuple[int, ...]
    align: int = 32

    @property
    def uniform(self) -> bool:
        """Is an unknown number added?"""
        return self.align < 32

    def constant(self) -> bool:
        """The same known number in every lane."""
        return not self.uniform and len(set(self.lanes)) == 1


def trailing_zeros(x: int) -> int:
    x &= MASK
    return 32 if x == 0 else (x & -x).bit_length() - 1


def _u24(x: int) -> int:
    return x & 0xFFFFFF


def _sext(x: int) -> int:
    return x - (1 << 32) if x & 0x80000000 else x


def _bfe_signed(a: int, offset: int, width: int) -> int:
    """v_bfe_i32: ``width`` bits of ``a`` from ``offset``, sign-extended."""
    width &= 31
    field = (a >> (offset & 31)) & ((1 << width) - 1)
    return field - (1 << width) if width and field >> (width - 1) else field


@dataclass(frozen=True)
class Operation:
    reads: int  # operands after the destination(s)
    compute: Callable[..., int]
    carries: tuple[int, ...] = ()  # operands a wave-uniform unknown passes through (the sum distributes)
    fixed: tuple[int, ...] = ()  # ... provided these are one known number in every lane (a shift, a factor)


ADD = Operation(2, lambda a, b: a + b, (0, 1))
SUB = Operation(2, lambda a, b: a - b, (0, 1))
SUBREV = Operation(2, lambda a, b: b - a, (0, 1))
SHIFT_LEFT = Operation(2, lambda s, a: a << (s & 31), (1,), (0,))
AND = Operation(2, lambda a, b: a & b)
OR = Operation(2, lambda a, b: a | b)
XOR = Operation(2, lambda a, b: a ^ b)
MUL = Operation(2, lambda a, b: a * b)
OPERATIONS: dict[str, Operation] = {
    "v_mov_b32": Operation(1, lambda a: a, (0,)),
    "s_mov_b32": Operation(1, lambda a: a, (0,)),
    "s_movk_i32": Operation(1, lambda a: a),
    "v_lshlrev_b32": SHIFT_LEFT,
    "v_lshrrev_b32": Operation(2, lambda s, a: a >> (s & 31)),
    "v_ashrrev_i32": Operation(2, lambda s, a: _sext(a) >> (s & 31)),
    "v_and_b32": AND,
    "v_or_b32": OR,
    "v_xor_b32": XOR,
    "v_add_u32": ADD,
    "v_add_nc_u32": ADD,
    "v_sub_u32": SUB,
    "v_sub_nc_u32": SUB,
    "v_subrev_u32": SUBREV,
    "v_subrev_nc_u32": SUBREV,
    "v_mul_lo_u32": MUL,
    "v_mul_u32_u24": Operation(2, lambda a, b: _u24(a) * _u24(b)),
    "v_mad_u32_u24": Operation(3, lambda a, b, c: _u24(a) * _u24(b) + c, (2,)),
    "v_lshl_add_u32": Operation(3, lambda a, s, c: (a << (s & 31)) + c, (0, 2), (1,)),
    "v_add_lshl_u32": Operation(3, lambda a, b, s: (a + b) << (s & 31), (0, 1), (2,)),
    "v_lshl_or_b32": Operation(3, lambda a, s, c: (a << (s & 31)) | c),
    "v_and_or_b32": Operation(3, lambda a, b, c: (a & b) | c),
    "v_or3_b32": Operation(3, lambda a, b, c: a | b | c),
    "v_xor3_b32": Operation(3, lambda a, b, c: a ^ b ^ c),
    "v_add3_u32": Operation(3, lambda a, b, c: a + b + c, (0, 1, 2)),
    "v_bfe_u32": Operation(3, lambda a, o, w: (a >> (o & 31)) & ((1 << (w & 31)) - 1)),
    "v_bfe_i32": Operation(3, _bfe_signed),
    "v_bfi_b32": Operation(3, lambda m, a, b: (m & a) | (~m & b)),
    "v_xad_u32": Operation(3, lambda a, b, c: (a ^ b) + c, (2,)),
    "s_lshl_b32": Operation(2, lambda a, s: a << (s & 31), (0,), (1,)),
    "s_lshr_b32": Operation(2, lambda a, s: a >> (s & 31)),
    "s_and_b32": AND,
    "s_or_b32": OR,
    "s_xor_b32": XOR,
    "s_add_u32": ADD,
    "s_add_i32": ADD,
    "s_sub_u32": SUB,
    "s_sub_i32": SUB,
    "s_mul_i32": MUL,
}
for _n in (1, 2, 3, 4):
    OPERATIONS[f"s_lshl{_n}_add_u32"] = Operation(2, lambda a, b, n=_n: (a << n) + b, (0, 1))
# two destinations (the result, and its carry in an SGPR pair or VCC), then the operands
CARRIES = {"v_add_co_u32": ADD, "v_sub_co_u32": SUB, "v_subrev_co_u32": SUBREV}
# the encoding LLVM names, which changes nothing here: v_add_u32_e32 is v_add_u32
ENCODINGS = ("_e32", "_e64")


class LaneValues:
    """Proves register values per lane over one listing's flow, for a workgroup of ``threads`` in waves of
    ``wave`` lanes."""

    def __init__(self, flow: Flow, threads: int, wave: int) -> None:
        self.flow = flow
        self.threads = threads
        self.wave = wave
        self._proven: dict[tuple[int, str], Value | None] = {}

    def at(self, index: int, operand: str) -> Value | None:
        """``operand``'s value in every workitem as instruction ``index`` reads it (None: not proven)."""
        return self._operand(index, operand, 0)

    def _operand(self, index: int, operand: str, depth: int) -> Value | None:
        constant = _constant(operand)
        if constant is not None:
            return Value((constant & MASK,) * self.threads)
        if operand[:1] in "-|" or "(" in operand:  # negated, absolute, sign-extended: not the register's value
            return None
        regs = registers(operand)
        if len(regs) != 1 or self.flow.bad:
            return None
        (reg,) = regs
        scalar = reg.startswith("s")
        found = self._reaching(index, reg, depth)
        if found is None and scalar:  # unproven, but one number for the whole wave
            return Value((0,) * self.threads, min(self.alignment(index, reg), 31))
        return found

    def _reaching(self, index: int, reg: str, depth: int) -> Value | None:
        writes = self.flow.reaching(index, reg)
        if not writes or depth > DEPTH:
            return None
        values: set[Value] = set()
        for write in writes:
            if write == ENTRY:
                if reg != "v0":
                    return None
                values.add(Value(tuple(range(self.threads))))
                continue
            if not reg.startswith("s") and not self.flow.full_exec(write):
                return None  # a vector write under a partial EXEC leaves the other lanes' old values
            key = (write, reg)
            if key not in self._proven:
                self._proven[key] = None  # a cycle through this write proves nothing
                self._proven[key] = self._result(self.flow.by_index[write], reg, depth + 1)
            proven = self._proven[key]
            if proven is None:
                return None
            values.add(proven)
        if len({v.lanes for v in values}) != 1:  # every path's write must agree lane for lane
            return None
        return Value(next(iter(values)).lanes, min(v.align for v in values))

    def _result(self, ins: Instruction, reg: str, depth: int) -> Value | None:
        if ins.halves:  # a VOPD pair: the half that writes reg (both read before either writes)
            half = next((h for h in ins.halves if reg in h.writes), None)
            return None if half is None else self._result(half, reg, depth)
        table = ins.modifier("bitop3") if ins.opcode.startswith("v_bitop3_b32") and len(ins.modifiers) == 1 else None
        if table is not None and len(ins.operands) == 4:
            return self._bitop3(ins, table, depth)
        if ins.modifiers or registers(ins.operands[0]) != (reg,):  # clamp, DPP, SDWA, op_sel ... or a wider write
            return None
        opcode = ins.opcode
        for suffix in ENCODINGS:
            opcode = opcode.removesuffix(suffix)
        sources: tuple[str, ...]
        if opcode in CARRIES and len(ins.operands) == 4:
            operation, sources = CARRIES[opcode], ins.operands[2:]
        elif opcode in OPERATIONS and len(ins.operands) == 1 + OPERATIONS[opcode].reads:
            operation, sources = OPERATIONS[opcode], ins.operands[1:]
        elif opcode in ("v_mbcnt_lo_u32_b32", "v_mbcnt_hi_u32_b32") and len(ins.operands) == 3:
            return self._mbcnt(ins, opcode.startswith("v_mbcnt_hi"), depth)
        else:
            return None
        values = [self._operand(ins.index, s, depth) for s in sources]
        if any(v is None for v in values):
            return None
        known: list[Value] = values  # type: ignore[assignment]
        uniform = [i for i, v in enumerate(known) if v.uniform]
        if uniform and not (
            set(uniform) <= set(operation.carries) and all(known[i].constant() for i in operation.fixed)
        ):
            return None
        lanes = tuple(operation.compute(*args) & MASK for args in zip(*(v.lanes for v in known)))
        return Value(lanes, carried_alignment(operation, known, uniform))

    def alignment(self, index: int, reg: str) -> int:
        """Trailing zero bits every value of SGPR ``reg`` read at ``index`` has: the greatest fixed point of
        each reaching write's alignment, as its operation keeps or adds them (0: a kernel argument, or a
        write it does not follow)."""
        sites: dict[int, Instruction] = {}
        pending = [(index, reg)]
        while pending:  # every write that can feed this register, through the SGPR operations followed
            at, r = pending.pop()
            for w in self.flow.reaching(at, r):
                if w == ENTRY or w in sites:
                    continue
                sites[w] = ins = self.flow.by_index[w]
                if _scalar_rule(ins) is not None:
                    pending += [(w, o) for o in ins.operands[1:] if registers(o) and registers(o)[0].startswith("s")]
        bits = dict.fromkeys(sites, 32)

        def of(at: int, operand: str) -> int:
            constant = _constant(operand)
            if constant is not None:
                return trailing_zeros(constant)
            regs = registers(operand)
            if len(regs) != 1 or not regs[0].startswith("s"):
                return 0
            return min((0 if w == ENTRY else bits[w] for w in self.flow.reaching(at, regs[0])), default=0)

        changed = True
        while changed:
            changed = False
            for w, ins in sites.items():
                rule = _scalar_rule(ins)
                new = 0 if rule is None else min(bits[w], rule([of(w, o) for o in ins.operands[1:]], ins))
                if new != bits[w]:
                    bits[w], changed = new, True
        return of(index, reg)

    def _bitop3(self, ins: Instruction, table: int, depth: int) -> Value | None:
        """gfx950's v_bitop3_b32 D, S0, S1, S2 bitop3:T: each bit of D is bit ``4*S0 + 2*S1 + S2`` of T (LLVM's
        ``BitOp3_Op`` builds T from S0 = 0xf0, S1 = 0xcc, S2 = 0xaa)."""
        values = [self._operand(ins.index, s, depth) for s in ins.operands[1:]]
        if any(v is None or v.uniform for v in values):
            return None

        def bits(a: int, b: int, c: int) -> int:
            out = 0
            for row in range(8):
                if table >> row & 1:
                    out |= (a if row & 4 else ~a) & (b if row & 2 else ~b) & (c if row & 1 else ~c)
            return out & MASK

        return Value(tuple(bits(*args) for args in zip(*(v.lanes for v in values))))  # type: ignore[union-attr]

    def _mbcnt(self, ins: Instruction, high: bool, depth: int) -> Value | None:
        """v_mbcnt_lo/hi_u32_b32: the mask's set bits below this lane (in its half of a wave64), plus the addend."""
        mask, addend = (self._operand(ins.index, s, depth) for s in ins.operands[1:])
        if mask is None or addend is None or mask.uniform or addend.uniform:
            return None
        out = []
        for tid, (m, a) in enumerate(zip(mask.lanes, addend.lanes)):
            lane = tid % self.wave
            below = lane - 32 if high else lane
            bits = m & ((1 << max(min(below, 32), 0)) - 1)
            out.append((bin(bits).count("1") + a) & MASK)
        return Value(tuple(out))


# SGPR writes whose result's trailing zeros follow from their operands': (operands' zeros, instruction) -> zeros
def _least(zeros: list[int], ins: Instruction) -> int:  # a sum, a choice, an or: the least of them
    return min(zeros)


def _shifted(zeros: list[int], ins: Instruction) -> int:  # shifting left adds the amount, when it is known
    return min(32, zeros[0] + (_constant(ins.operands[2]) or 0))


SCALAR_ALIGNMENT: dict[str, Callable[[list[int], Instruction], int]] = {
    "s_mov_b32": _least,
    "s_movk_i32": _least,
    "s_add_i32": _least,
    "s_add_u32": _least,
    "s_sub_i32": _least,
    "s_sub_u32": _least,
    "s_cselect_b32": _least,
    "s_or_b32": _least,
    "s_xor_b32": _least,
    "s_and_b32": lambda zeros, ins: max(zeros),
    "s_mul_i32": lambda zeros, ins: min(32, sum(zeros)),
    "s_lshl_b32": _shifted,
}


def _shifted_sum(n: int) -> Callable[[list[int], Instruction], int]:  # s_lshlN_add_u32: (a << N) + b
    return lambda zeros, ins: min(zeros[0] + n, zeros[1])


for _n in (1, 2, 3, 4):
    SCALAR_ALIGNMENT[f"s_lshl{_n}_add_u32"] = _shifted_sum(_n)


def _scalar_rule(ins: Instruction) -> Callable[[list[int], Instruction], int] | None:
    rule = SCALAR_ALIGNMENT.get(ins.opcode)
    if rule is None or ins.modifiers or len(registers(ins.operands[0])) != 1:
        return None
    return rule


def carried_alignment(operation: Operation, values: list[Value], uniform: list[int]) -> int:
    """The alignment of the unknown part of a result: the operation is linear in each ``U`` it carries, so
    each contributes ``2**align`` times its coefficient (the result for that operand 1, the others 0)."""
    if not uniform:
        return 32
    fixed = [values[i].lanes[0] if i in operation.fixed else 0 for i in range(operation.reads)]
    zero = operation.compute(*fixed)
    out = 32
    for i in uniform:
        unit = list(fixed)
        unit[i] = 1
        out = min(out, values[i].align + trailing_zeros(operation.compute(*unit) - zero))
    return min(out, 32)


def _constant(operand: str) -> int | None:
    """An integer operand: ``64``, ``-1``, ``0x3ff`` (None: a register, a float, anything else)."""
    try:
        return int(operand, 0)
    except ValueError:
        return None
