"""What each operand of the deep instructions is for: wgmma and tcgen05 tensor-core
MMAs, tensor memory, and cp.async's zero-fill.

These operands are plain registers and immediates whose meaning depends on their
position (a 64-bit register is a shared-memory matrix descriptor, an immediate 1 is
"do not negate A"), so the generic decoder can only call them "64-bit bits". Here each
one is named by its role; where the listing builds a descriptor from constants
(``or.b64 %rd59, %rd77, 4611686293305294848``), the constant's fields are decoded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..ir import ptx as ptx_ir

WGMMA_DESC = "9.7.15.5.1 Matrix Descriptor Format (wgmma shared-memory matrix descriptor)"
WGMMA_MMA = "9.7.15.5.2 Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions: wgmma.mma_async"
TC05_SMEM_DESC = "9.7.16.4.1 Shared Memory Descriptor (tcgen05)"
TC05_IDESC = "9.7.16.4.2 Instruction Descriptor (tcgen05)"
TC05_MMA = "9.7.16.10.9 TensorCore 5th Generation Family Instructions: tcgen05.mma"
TC05_MEMORY = "9.7.16.2 Tensor Memory (tcgen05): addresses by lane and column, data movement shapes"
CP_ASYNC = "9.7.9.25.3.1 Data Movement and Conversion Instructions: cp.async"
# SASS operand formats are not documented; these roles match the PTX operands the instruction was compiled from.
SASS_SECTION = "as the PTX operands it comes from: wgmma.mma_async (9.7.15.5.2), tcgen05.mma (9.7.16.10.9)"

# Instructions that name a register first without writing it.
NO_DESTINATION = ("st", "red", "cp", "wgmma", "tcgen05", "bar", "barrier", "prefetch", "mbarrier", "fence")
PTX_REGISTER = re.compile(r"^%[a-z]+\d+$")
IMMEDIATE = re.compile(r"^-?(?:0[xX][0-9A-Fa-f]+|\d+)[uU]?$")


@dataclass(frozen=True)
class Role:
    text: str
    section: str = ""


@dataclass
class Definitions:
    """The one instruction that writes each PTX register, for registers written exactly once."""

    writers: dict[str, tuple[str, tuple[str, ...]] | None] = field(default_factory=dict)  # None: written twice

    def note(self, ins: ptx_ir.PtxInstruction) -> None:
        ops = ins.operands
        if not ops or not PTX_REGISTER.match(ops[0]) or ins.base in NO_DESTINATION:
            return
        self.writers[ops[0]] = None if ops[0] in self.writers else (ins.opcode, ops[1:])

    def writer(self, reg: str) -> tuple[str, tuple[str, ...]] | None:
        return self.writers.get(reg)

    def constant(self, op: str, depth: int = 0) -> int | None:
        """The value of an immediate, or of a register set once by ``mov`` of a constant."""
        op = op.strip()
        if IMMEDIATE.match(op):
            return int(op.rstrip("uU"), 0)
        found = self.writer(op) if depth < 4 else None
        if found and found[0].split(".")[0] == "mov" and len(found[1]) == 1:
            return self.constant(found[1][0], depth + 1)
        return None

    def outcomes(self, op: str, depth: int = 0) -> list[tuple[int, tuple[str, ...]]] | None:
        """The values a register can hold and the predicates that choose each, through nested
        ``selp`` of constants: ``selp r, 16, 0, p`` -> [(16, ("p",)), (0, ("!p",))]."""
        value = self.constant(op)
        if value is not None:
            return [(value, ())]
        found = self.writer(op.strip()) if depth < 4 else None
        if not found or found[0].split(".")[0] != "selp" or len(found[1]) != 3:
            return None
        a, b = self.outcomes(found[1][0], depth + 1), self.outcomes(found[1][1], depth + 1)
        if a is None or b is None:
            return None
        pred = found[1][2]
        return [(v, (pred, *c)) for v, c in a] + [(v, ("!" + pred, *c)) for v, c in b]


def _bits(value: int, lo: int, width: int) -> int:
    return value >> lo & ((1 << width) - 1)


def _offset_fields(value: int, with_start: bool) -> list[str]:
    # Start address, leading- and stride-dimension byte offsets are stored divided by 16.
    out = []
    if with_start:
        out.append(f"start address {_bits(value, 0, 14) * 16} bytes into shared memory")
    out.append(f"leading-dimension byte offset {_bits(value, 16, 14) * 16}")
    out.append(f"stride-dimension byte offset {_bits(value, 32, 14) * 16}")
    out.append(f"base offset {_bits(value, 49, 3)}")
    return out


WGMMA_SWIZZLE = {0: "no swizzle", 1: "128-byte swizzle", 2: "64-byte swizzle", 3: "32-byte swizzle"}
TC05_SWIZZLE = {
    0: "no swizzle",
    1: "128-byte swizzle with 32-byte atoms",
    2: "128-byte swizzle",
    4: "64-byte swizzle",
    6: "32-byte swizzle",
}


def descriptor_fields(value: int, family: str, with_start: bool = True) -> list[str]:
    """The fields of a 64-bit shared-memory matrix descriptor, in words (family: wgmma or tcgen05)."""
    out = _offset_fields(value, with_start)
    if family == "tcgen05":
        out.append(
            "version bits 46-48 = "
            + str(_bits(value, 46, 3))
            + (" (as required)" if _bits(value, 46, 3) == 1 else " (should be 1)")
        )
        out.append("leading offset is an absolute address" if _bits(value, 52, 1) else "leading offset is relative")
        mode = _bits(value, 61, 3)
        out.append(TC05_SWIZZLE.get(mode, f"invalid swizzle mode {mode}"))
    else:
        out.append(WGMMA_SWIZZLE[_bits(value, 62, 2)])
    return out


IDESC_D_TYPE = {0: "F16", 1: "F32", 2: "S32"}
IDESC_AB_TYPES = {
    "f16": {0: "F16", 1: "BF16"},
    "tf32": {2: "TF32"},
    "i8": {0: "U8", 1: "S8"},
    "f8f6f4": {0: "E4M3", 1: "E5M2", 3: "E2M3", 4: "E3M2", 5: "E2M1"},
}


def instruction_descriptor_fields(value: int, kind: str) -> list[str] | None:
    """The fields of a tcgen05.mma instruction descriptor (32 bits) for .kind::f16/tf32/f8f6f4/i8; None otherwise."""
    types = IDESC_AB_TYPES.get(kind)
    if types is None:
        return None
    a, b = _bits(value, 7, 3), _bits(value, 10, 3)
    out = [
        f"D is {IDESC_D_TYPE.get(_bits(value, 4, 2), '?')}",
        f"A is {types.get(a, f'type {a}')}",
        f"B is {types.get(b, f'type {b}')}",
        f"M={_bits(value, 24, 5) * 16}",
        f"N={_bits(value, 17, 6) * 8}",
        "A transposed (MN-major)" if _bits(value, 15, 1) else "A K-major",
        "B transposed (MN-major)" if _bits(value, 16, 1) else "B K-major",
    ]
    out += [f"{m} negated" for m, bit in (("A", 13), ("B", 14)) if _bits(value, bit, 1)]
    if _bits(value, 2, 1):
        out.append(f"sparse A (selector {_bits(value, 0, 2)})")
    if _bits(value, 3, 1):
        out.append("saturating")
    return out


# ----------------------------------------------------------------- PTX


def ptx_roles(ins: ptx_ir.PtxInstruction, defs: Definitions) -> list[Role | None]:
    """One role per operand of ``ins`` (None where the generic decoding says enough)."""
    ops = ins.operands
    if ins.opcode.startswith("wgmma.mma_async") and ".sp" not in ins.opcode:
        return _wgmma(ops, defs)
    if ins.opcode.startswith("tcgen05.mma") and ".ws" not in ins.opcode:
        return _tcgen05_mma(ins, ops, defs)
    if ins.base == "tcgen05":
        return _tcgen05_memory(ins, ops, defs)
    if ins.opcode.startswith("cp.async.") and ins.modifiers[1:2] in (("ca",), ("cg",)) and len(ops) >= 3:
        return _cp_async(ins, ops, defs)
    return [None] * len(ops)


def _vector_size(op: str) -> int | None:
    if op.startswith("{") and op.endswith("}"):
        return len([r for r in op[1:-1].split(",") if r.strip()])
    return None


def _descriptor(which: str, op: str, defs: Definitions, family: str) -> Role:
    section = TC05_SMEM_DESC if family == "tcgen05" else WGMMA_DESC
    head = (
        f"{which}'s shared-memory matrix descriptor (64 bits: where the {which} tile starts in shared memory "
        "and how it is laid out)"
    )
    value = defs.constant(op)
    if value is not None:
        return Role(
            f"{head}; value 0x{value & (1 << 64) - 1:016X}: " + ", ".join(descriptor_fields(value, family)), section
        )
    found = defs.writer(op)
    if found:
        opcode, args = found
        base = opcode.split(".")[0]
        consts = [(i, defs.constant(a)) for i, a in enumerate(args)]
        known = [(i, c) for i, c in consts if c is not None]
        if base in ("or", "add") and len(args) == 2 and len(known) == 1:
            i, const = known[0]
            reg = args[1 - i]
            start = _bits(const, 0, 14)
            fields = descriptor_fields(const, family, with_start=False)
            if base == "add" and start:
                fields.insert(0, f"start address advanced by {start * 16} bytes")
            verb = "ORs" if base == "or" else "adds"
            return Role(
                f"{head}; {opcode} {verb} {reg} ({_start_words(reg, defs)}) and the constant "
                f"0x{const & (1 << 64) - 1:016X}, whose fields say: " + ", ".join(fields),
                section,
            )
    return Role(f"{head}; computed at run time", section)


def _start_words(reg: str, defs: Definitions) -> str:
    """What the run-time half of a descriptor holds, when the listing shows it is only the start address."""
    found = defs.writer(reg)
    if found and found[0].startswith("cvt.u64.u32") and found[1]:
        inner = defs.writer(found[1][0])
        if inner:
            opcode, args = inner
            if (
                opcode.startswith("bfe.u32")
                and len(args) == 3
                and defs.constant(args[1]) == 4
                and (defs.constant(args[2]) or 99) <= 14
            ):
                return f"the start address: shared address {args[0]} / 16, 14 bits"
            if opcode.startswith("and.b32") and 16383 in (defs.constant(args[0]), defs.constant(args[1])):
                return "the start address field, 14 bits"
    return "computed at run time"


def _wgmma(ops: tuple[str, ...], defs: Definitions) -> list[Role | None]:
    roles: list[Role | None] = [None] * len(ops)
    if len(ops) < 4:
        return roles
    n = _vector_size(ops[0])
    roles[0] = Role(f"accumulator D: {n} registers per thread, this thread's share of the result tile", WGMMA_MMA)
    a_in_registers = _vector_size(ops[1]) is not None
    if a_in_registers:
        roles[1] = Role(f"A fragment: {_vector_size(ops[1])} registers per thread (A read from registers)", WGMMA_MMA)
    else:
        roles[1] = _descriptor("A", ops[1], defs, "wgmma")
    roles[2] = _descriptor("B", ops[2], defs, "wgmma")
    scale_d = defs.constant(ops[3])
    if ops[3].startswith("%p"):
        found = defs.writer(ops[3])
        if found and found[0] == "mov.pred" and found[1]:
            scale_d = 0 if defs.constant(found[1][0]) == 0 else 1
    now = "" if scale_d is None else (" (here: accumulates)" if scale_d else " (here: overwrites D)")
    roles[3] = Role(
        "scale-d: true adds the product to D (D = A*B + D); false ignores D's old value (D = A*B)" + now, WGMMA_MMA
    )
    names = (
        ["imm-scale-a", "imm-scale-b", "imm-trans-b"]
        if a_in_registers
        else ["imm-scale-a", "imm-scale-b", "imm-trans-a", "imm-trans-b"]
    )
    for i, name in enumerate(names, start=4):
        if i >= len(ops):
            break
        value = defs.constant(ops[i])
        matrix = name[-1].upper()
        if name.startswith("imm-scale"):
            text = (
                f"{name}: {matrix} is "
                + ("negated" if value == -1 else "used as is" if value == 1 else "scaled by " + ops[i])
                + " (1 keeps it, -1 negates it)"
            )
        else:
            text = f"{name}: {matrix} is " + (
                "transposed: read MN-major from shared memory"
                if value == 1
                else "not transposed: read K-major from shared memory"
            )
        roles[i] = Role(text, WGMMA_MMA)
    return roles


def _tcgen05_mma(ins: ptx_ir.PtxInstruction, ops: tuple[str, ...], defs: Definitions) -> list[Role | None]:
    roles: list[Role | None] = [None] * len(ops)
    if len(ops) < 4:
        return roles
    roles[0] = Role(f"D in tensor memory at the address in {_inside(ops[0])} (the accumulator tile)", TC05_MMA)
    if ops[1].startswith("["):
        roles[1] = Role(f"A in tensor memory at the address in {_inside(ops[1])}", TC05_MMA)
    else:
        roles[1] = _descriptor("A", ops[1], defs, "tcgen05")
    roles[2] = _descriptor("B", ops[2], defs, "tcgen05")
    kind = next((m.split("::", 1)[1] for m in ins.modifiers if m.startswith("kind::")), "")
    head = "instruction descriptor (32 bits: types, shape, transposes and negations of this MMA)"
    value = defs.constant(ops[3])
    fields = None if value is None else instruction_descriptor_fields(value, kind)
    where = "" if value is None else f"; value 0x{value & 0xFFFFFFFF:08X}"
    roles[3] = Role(head + where + (": " + ", ".join(fields) if fields else ""), TC05_IDESC)
    rest = list(range(4, len(ops)))
    if ".block_scale" in ins.opcode:
        for which, i in zip("AB", [i for i in rest if ops[i].startswith("[")]):
            roles[i] = Role(f"scale factors of {which} in tensor memory at the address in {_inside(ops[i])}", TC05_MMA)
    for i in rest:
        if roles[i] is not None:
            continue
        if _vector_size(ops[i]) is not None:
            roles[i] = Role("disable-output-lane: a mask of lanes of D that this MMA leaves unwritten", TC05_MMA)
        elif ops[i].startswith("%p") or ops[i].startswith("!%p"):
            found = defs.writer(ops[i])
            now = ""
            if found and found[0] == "mov.pred" and found[1]:
                now = " (here: overwrites D)" if defs.constant(found[1][0]) == 0 else " (here: accumulates)"
            roles[i] = Role(
                "enable-input-d: true adds the product to D in tensor memory; false overwrites D" + now, TC05_MMA
            )
        elif IMMEDIATE.match(ops[i]):
            roles[i] = Role(f"scale-input-d: D is scaled by 2^-{ops[i]} before the product is added", TC05_MMA)
    return roles


def _inside(op: str) -> str:
    return op.strip("[] ").split("+")[0].strip()


def _tcgen05_memory(ins: ptx_ir.PtxInstruction, ops: tuple[str, ...], defs: Definitions) -> list[Role | None]:
    roles: list[Role | None] = [None] * len(ops)
    taddr = "tensor-memory address in {} (lane in the upper 16 bits, column in the lower 16)"
    sub = ins.opcode.split(".")[1] if "." in ins.opcode else ""
    if sub == "ld" and len(ops) >= 2:
        roles[0] = Role(f"{_vector_size(ops[0]) or 1} registers receiving this thread's values", TC05_MEMORY)
        roles[1] = Role("source: " + taddr.format(_inside(ops[1])), TC05_MEMORY)
    elif sub == "st" and len(ops) >= 2:
        roles[0] = Role("destination: " + taddr.format(_inside(ops[0])), TC05_MEMORY)
        roles[1] = Role(f"{_vector_size(ops[1]) or 1} registers whose values are stored", TC05_MEMORY)
    elif sub == "alloc" and len(ops) >= 2:
        roles[0] = Role(
            f"shared-memory address (in {_inside(ops[0])}) where the allocated tensor-memory address is written",
            TC05_MEMORY,
        )
        roles[1] = _columns(ops[1], defs)
    elif sub == "dealloc" and len(ops) >= 2:
        roles[0] = Role(f"the tensor-memory address to free (from tcgen05.alloc), in {ops[0]}", TC05_MEMORY)
        roles[1] = _columns(ops[1], defs)
    elif sub == "commit" and ops:
        roles[0] = Role(
            f"the mbarrier (address in {_inside(ops[0])}) that is arrived on once the earlier "
            "tcgen05 operations complete",
            TC05_MEMORY,
        )
    return roles


def _columns(op: str, defs: Definitions) -> Role:
    n = defs.constant(op)
    return Role(
        f"number of tensor-memory columns{f': {n}' if n is not None else ''} (a power of two from 32 to 512; "
        "each column is 32 bits wide in each of 128 lanes)",
        TC05_MEMORY,
    )


def _cp_async(ins: ptx_ir.PtxInstruction, ops: tuple[str, ...], defs: Definitions) -> list[Role | None]:
    roles: list[Role | None] = [None] * len(ops)
    size = defs.constant(ops[2])
    roles[0] = Role("destination in shared memory", CP_ASYNC)
    roles[1] = Role("source in global memory", CP_ASYNC)
    roles[2] = Role(f"cp-size: {size if size is not None else ops[2]} bytes are written to shared memory", CP_ASYNC)
    if len(ops) < 4:
        return roles
    fourth = ops[3]
    if fourth.lstrip("!").startswith("%p"):
        roles[3] = Role("ignore-src: where true, nothing is read and the destination is filled with zeros", CP_ASYNC)
        return roles
    if ".L2::cache_hint" in ins.opcode and len(ops) == 4:
        roles[3] = Role("cache policy (64 bits, from createpolicy) for the L2 accesses", CP_ASYNC)
        return roles
    text = (
        f"src-size: how many bytes are read from global memory; the rest of the {size or 'cp-size'} bytes are "
        "filled with zeros (this is how a masked load becomes a cp.async: 0 reads nothing and writes zeros)"
    )
    outcomes = defs.outcomes(fourth)
    if outcomes is not None:
        text += "; here " + _outcome_words(outcomes)
    roles[3] = Role(text, CP_ASYNC)
    return roles


def _outcome_words(outcomes: list[tuple[int, tuple[str, ...]]]) -> str:
    values = sorted({v for v, _ in outcomes}, reverse=True)
    if len(values) == 1:
        return f"always {values[0]}" + (" (nothing read: all zero-filled)" if values[0] == 0 else "")
    if len(values) == 2 and 0 in values:
        full = [
            " and ".join(f"{c.lstrip('!')} is {'false' if c.startswith('!') else 'true'}" for c in conds)
            for v, conds in outcomes
            if v
        ]
        return f"{values[0]} where {' or where '.join(full)}, else 0 (masked off: nothing read, all zero-filled)"
    return "one of " + ", ".join(map(str, values))


# ----------------------------------------------------------------- SASS

SASS_GDESC = re.compile(r"^gdesc\[(?P<ur>UR(?P<n>\d+))\](?:\.(?P<mods>[\w.]+))?$")
SASS_TMEM = re.compile(r"^tmem\[(?P<ur>UR\d+)\]$")
SASS_IDESC = re.compile(r"^idesc\[(?P<ur>UR\d+)\]$")


def _group(pattern: re.Pattern[str], text: str, name: str) -> str:
    """``name``'s text in ``pattern``'s match of ``text`` (which the caller found to match)."""
    m = pattern.match(text)
    return m[name] if m else ""


def sass_roles(opcode: str, ops: tuple[str, ...]) -> list[Role | None]:
    """Roles of HGMMA (sm_90) and UTC*MMA (sm_100) descriptor, tensor-memory and predicate operands."""
    roles: list[Role | None] = [None] * len(ops)
    base = opcode.split(".")[0]
    if base.endswith("GMMA") and len(ops) >= 3:
        a_registers = bool(re.match(r"^R\d+", ops[1])) and len(ops) >= 4
        for i, op in enumerate(ops):
            m = SASS_GDESC.match(op)
            if m:
                n = int(m["n"])
                if a_registers:
                    text = f"B's shared-memory matrix descriptor, in the uniform registers from {m['ur']}"
                else:
                    text = (
                        f"shared-memory matrix descriptors: A's in UR{n}:UR{n + 1}, B's in UR{n + 2}:UR{n + 3} "
                        "(64 bits each)"
                    )
                if m["mods"]:
                    text += "; " + ", ".join(
                        {"tnspA": "A transposed (MN-major)", "tnspB": "B transposed (MN-major)"}.get(x, x)
                        for x in m["mods"].split(".")
                    )
                roles[i] = Role(text, SASS_SECTION)
        roles[0] = Role(f"accumulator D: registers from {ops[0]} on", SASS_SECTION)
        if a_registers:
            roles[1] = Role(f"A fragment: registers from {ops[1]} on", SASS_SECTION)
        if ops[-1] == "gsb0":
            roles[-1] = Role(
                "group scoreboard 0: this MMA closes a wgmma group that WARPGROUP.DEPBAR waits on", SASS_SECTION
            )
        elif len(ops) >= 3 and re.match(r"^R\d+$", ops[-1]):
            roles[-1] = Role(
                f"accumulator input C: registers from {ops[-1]} on (the same as D: accumulate in place)", SASS_SECTION
            )
    elif base.startswith("UTC") and base.endswith("MMA"):
        gdescs = [i for i, op in enumerate(ops) if SASS_GDESC.match(op)]
        for which, i in zip("AB" if len(gdescs) == 2 else "B", gdescs):
            ur = _group(SASS_GDESC, ops[i], "ur")
            n = int(ur[2:])
            roles[i] = Role(f"{which}'s shared-memory matrix descriptor in {ur}:UR{n + 1} (64 bits)", SASS_SECTION)
        tmems = [i for i, op in enumerate(ops) if SASS_TMEM.match(op)]
        if tmems:
            roles[tmems[0]] = Role(
                f"D: tensor-memory address of the accumulator, in {_group(SASS_TMEM, ops[tmems[0]], 'ur')}",
                SASS_SECTION,
            )
        for i in tmems[1:]:
            roles[i] = Role(
                f"a second tensor-memory operand in {_group(SASS_TMEM, ops[i], 'ur')} (no PTX operand of a "
                "dense MMA matches it; its register sits just before the instruction descriptor's)",
                SASS_SECTION,
            )
        for i, op in enumerate(ops):
            m = SASS_IDESC.match(op)
            if m:
                roles[i] = Role(f"instruction descriptor (types, shape, transposes) in {m['ur']}", SASS_SECTION)
        last = ops[-1] if ops else ""
        if last in ("UPT", "!UPT") or re.match(r"^!?UP\d$", last):
            now = {"UPT": " (here: accumulates)", "!UPT": " (here: overwrites D)"}.get(last, "")
            roles[-1] = Role("accumulate predicate: true adds the product to D, false overwrites D" + now, SASS_SECTION)
    elif base == "LDGSTS" and len(ops) == 3 and re.match(r"^!?P\d$", ops[2]):
        roles[2] = Role(
            f"source predicate: where {ops[2].lstrip('!')} is {'true' if ops[2].startswith('!') else 'false'}"
            " nothing is read and the destination is zero-filled (the SASS form of cp.async's src-size 0)",
            CP_ASYNC,
        )
    return roles
