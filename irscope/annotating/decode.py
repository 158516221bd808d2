"""Decode one line of PTX or SASS into its parts, each explained in plain words."""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field

from ..ir import ptx as ptx_ir
from ..ir import sass as sass_ir
from ..ir.sass_control import Control
from .knowledge import SASS_MMA_SHAPE, Knowledge, Meaning, generic_modifier
from .roles import Definitions, ptx_roles, sass_roles


@dataclass(frozen=True)
class Part:
    token: str  # as written: "ld", "global", "%p1", "-8388608"
    role: str  # opcode, modifier, guard, operand, directive, label, comment
    text: str  # what it means; "" when unknown
    section: str = ""

    @property
    def known(self) -> bool:
        return bool(self.text)


@dataclass(frozen=True)
class Explanation:
    kind: str  # instruction, directive, label, comment, blank, other
    summary: str
    parts: tuple[Part, ...] = ()
    detail: str = ""
    category: str = ""
    known: bool = True  # False: an instruction (or directive) the knowledge base lacks
    control: Control | None = None  # SASS only: the instruction's scheduling bits, where the cubin was read

    def describe(self) -> str:
        """Summary plus each known part's meaning, one line."""
        parts = [f"{p.token}: {p.text}" for p in self.parts if p.role != "opcode" and p.text]
        return "; ".join([self.summary, *parts]) if parts else self.summary


# ----------------------------------------------------------------- immediates


def float_bits(value: int, bits: int = 32) -> float | None:
    """The float whose bit pattern is the integer ``value`` (two's complement allowed)."""
    try:
        if bits == 32:
            return struct.unpack("<f", struct.pack("<I", value & 0xFFFFFFFF))[0]
        if bits == 64:
            return struct.unpack("<d", struct.pack("<Q", value & 0xFFFFFFFFFFFFFFFF))[0]
    except (OverflowError, struct.error):
        return None
    return None


def _float_text(x: float | None) -> str:
    if x is None:
        return "?"
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "+inf" if x > 0 else "-inf"
    return repr(x) if abs(x) >= 1e-4 or x == 0 else f"{x:.6g}"


def _interesting_float(x: float | None) -> bool:
    """Worth saying "this integer is the bit pattern of float x": inf, NaN, or a short decimal."""
    if x is None:
        return False
    if x != x or x in (float("inf"), float("-inf")):
        return True
    return x != 0 and 1e-6 < abs(x) < 1e9 and len(f"{x:.7g}".rstrip("0").rstrip(".")) <= 7 and float(f"{x:.7g}") == x


# 0f3F800000 (PTX single-precision hex literal), 0d3FF0000000000000 (double)
PTX_FLOAT_LITERAL = re.compile(r"^0([fF])([0-9A-Fa-f]{8})$|^0([dD])([0-9A-Fa-f]{16})$")
INTEGER = re.compile(r"^-?(?:0[xX][0-9A-Fa-f]+|\d+)[uU]?$")


def immediate(token: str, type_bits: int | None, is_float_type: bool) -> str | None:
    m = PTX_FLOAT_LITERAL.match(token)
    if m:
        if m.group(1):
            x = float_bits(int(m.group(2), 16), 32)
            return f"float literal {_float_text(x)} (hex bit pattern 0x{m.group(2).upper()})"
        x = float_bits(int(m.group(4), 16), 64)
        return f"double literal {_float_text(x)} (hex bit pattern 0x{m.group(4).upper()})"
    if not INTEGER.match(token):
        return None
    value = int(token.rstrip("uU"), 0)
    text = f"immediate {value}"
    bits = type_bits or 32
    if bits in (32, 64):
        hexed = f"0x{value & ((1 << bits) - 1):0{bits // 4}X}"
        x = float_bits(value, bits)
        if is_float_type or (abs(value) >= 1 << 20 and _interesting_float(x)):
            return f"{text} ({hexed}, the bit pattern of {'float' if bits == 32 else 'double'} {_float_text(x)})"
        if abs(value) >= 1 << 16:
            return f"{text} ({hexed})"
    return text


# ----------------------------------------------------------------- PTX

PTX_REGISTER = re.compile(r"^%(?P<cls>[a-z]+)(?P<n>\d+)$")
PTX_SPECIAL = re.compile(
    r"^%(?:tid|ntid|ctaid|nctaid|laneid|warpid|nwarpid|smid|nsmid|gridid|clock64|clock|"
    r"globaltimer\w*|lanemask_\w+|dynamic_smem_size|total_smem_size|cluster\w*|nclusterid|"
    r"envreg\d+|pm\d+\w*|is_explicit_cluster|aggr_smem_size|reserved_smem\w*)(?:\.[xyz])?$"
)
PTX_ADDRESS = re.compile(r"^\[\s*(?P<base>[^\]+\s]+)\s*(?:\+\s*(?P<offset>-?\w+))?\s*\]$")
PTX_PARAM = re.compile(r"^(?P<kernel>\w+)_param_(?P<n>\d+)$")
REG_DECLARATION = re.compile(r"^\.reg\s+\.(?P<type>\w+)\s+%(?P<cls>[a-z]+)<(?P<count>\d+)>")


@dataclass
class PtxContext:
    """What earlier lines of a listing tell about later ones."""

    register_types: dict[str, str] = field(default_factory=dict)  # "r" -> "b32"
    params: list[str] = field(default_factory=list)  # kernel argument names, in PTX parameter order
    # Triton appends parameters of its own (scratch and profiling buffers) after the kernel's; other
    # compilers add none, so a parameter past the named ones is only "added by" a compiler that adds them.
    adds_params: str = ""
    files: dict[str, str] = field(default_factory=dict)  # .file number -> path
    # Which instruction writes each register. Filled line by line, unless the whole listing was
    # read first (scanned), so descriptors built after their first use still decode.
    definitions: Definitions = field(default_factory=Definitions)
    scanned: bool = False

    def scan(self, text: str) -> None:
        """Read every register definition in ``text`` before explaining any line of it."""
        for ins in ptx_ir.instructions(text):
            self.definitions.note(ins)
        self.scanned = True


def ptx_line(kb: Knowledge, line: str, ctx: PtxContext) -> Explanation:
    code = line.strip()
    if not code:
        return Explanation("blank", "")
    if code.startswith("//"):
        return Explanation("comment", "comment")
    if code.startswith("."):
        return _ptx_directive(kb, code.split("//", 1)[0].strip().rstrip(";"), ctx)
    if code in ("{", "}"):
        return Explanation("other", "start of the kernel body" if code == "{" else "end of the kernel body")
    if re.match(r"^[$\w]+:", code):
        return Explanation("label", "label: a branch target" if "BB" in code else "label (debug bookkeeping)")
    instructions = ptx_ir.parse_line(code)
    if not instructions:
        return Explanation("other", "", known=False)
    explanations = [_ptx_instruction(kb, ins, ctx) for ins in instructions]
    if not ctx.scanned:
        for ins in instructions:
            ctx.definitions.note(ins)
    if len(explanations) == 1:
        return explanations[0]
    return Explanation(
        "instruction",
        " then ".join(e.summary for e in explanations),
        tuple(p for e in explanations for p in e.parts),
        known=all(e.known for e in explanations),
    )


def _ptx_instruction(kb: Knowledge, ins: ptx_ir.PtxInstruction, ctx: PtxContext) -> Explanation:
    info, rest = kb.opcode(ins.opcode)
    parts: list[Part] = []
    if info is None:
        parts.append(Part(ins.base, "opcode", ""))
        summary = f"{ins.opcode}: unknown instruction (not in irscope's PTX knowledge base)"
    else:
        parts.append(Part(info.key, "opcode", info.summary, info.section))
        summary = info.summary
    known = info is not None
    mods = []
    for mod in rest:
        meaning = kb.modifier(info.key if info else ins.base, mod)
        parts.append(Part("." + mod, "modifier", meaning.text if meaning else "", meaning.section if meaning else ""))
        if meaning is not None:
            mods.append(meaning.text)
        else:
            known = False
    if ins.guard:
        negated = ins.guard.startswith("!")
        pred = ins.guard.lstrip("!")
        parts.insert(
            0,
            Part(
                "@" + ins.guard,
                "guard",
                f"runs only in threads where predicate {pred} is {'false' if negated else 'true'}"
                " (a mask: other threads skip it)",
                "9.3.1 Predicated Execution",
            ),
        )
    bits, is_float = ins.type_bits, any(m.startswith(("f", "e4", "e5", "bf", "tf")) for m in ins.modifiers)
    for operand, role in zip(ins.operands, ptx_roles(ins, ctx.definitions)):
        if role is not None:
            parts.append(Part(operand, "operand", role.text, role.section))
        else:
            parts.append(Part(operand, "operand", _ptx_operand(kb, operand, ctx, bits, is_float, ins)))
    if mods:
        summary = f"{summary} ({', '.join(mods)})"
    if ins.guard:
        summary += f", only where {ins.guard.lstrip('!')} is {'false' if ins.guard.startswith('!') else 'true'}"
    return Explanation(
        "instruction", summary, tuple(parts), info.detail if info else "", info.category if info else "", known=known
    )


def _ptx_operand(
    kb: Knowledge, op: str, ctx: PtxContext, bits: int | None, is_float: bool, ins: ptx_ir.PtxInstruction
) -> str:
    op = op.strip()
    if op.startswith("{") and op.endswith("}"):
        regs = [r.strip() for r in op[1:-1].split(",") if r.strip()]
        return (
            f"{len(regs)} registers, one per vector element" if len(regs) > 1 else f"register {regs[0] if regs else ''}"
        )
    m = PTX_ADDRESS.match(op)
    if m:
        base, offset = m.group("base"), m.group("offset")
        param = PTX_PARAM.match(base)
        if param:
            i = int(param.group("n"))
            name = ctx.params[i] if i < len(ctx.params) else None
            added = f" (added by {ctx.adds_params})" if ctx.adds_params else ""
            return f"kernel parameter {i}" + (f" ({name})" if name else added)
        where = f"address held in {base}" if base.startswith("%") else f"address of {base}"
        return where + (f", plus {offset} bytes" if offset and offset not in ("0", "+0") else "")
    if PTX_SPECIAL.match(op):
        meaning = kb.special_register(op)
        return meaning.text if meaning else f"special register {op}"
    m = PTX_REGISTER.match(op)
    if m:
        kind = ctx.register_types.get(m.group("cls"))
        if m.group("cls") == "p" or kind == "pred":
            return f"predicate register {op}"
        return f"{_type_words(kind)} register {op}" if kind else f"register {op}"
    if op.startswith("$"):
        return f"branch target {op}"
    if op.startswith("!%"):
        return f"the negation of predicate {op[1:]}"
    text = immediate(op, bits, is_float)
    if text:
        return text
    if ins.base in ("call",) or re.match(r"^[A-Za-z_]\w*$", op):
        return f"symbol {op}"
    return ""


def _type_words(kind: str | None) -> str:
    if not kind:
        return ""
    meaning = generic_modifier(kind)
    return meaning.text if meaning else kind


def _ptx_directive(kb: Knowledge, code: str, ctx: PtxContext) -> Explanation:
    name = code.split()[0]
    meaning = kb.directive(name)
    base = meaning.text if meaning else ""
    section = meaning.section if meaning else ""
    m = REG_DECLARATION.match(code)
    if m:
        count, cls, kind = int(m.group("count")), m.group("cls"), m.group("type")
        ctx.register_types[cls] = kind
        what = "predicate" if kind == "pred" else _type_words(kind)
        summary = f"declares {count} {what} virtual registers %{cls}0..%{cls}{count - 1}"
        return Explanation("directive", summary, (Part(name, "directive", base, section),), base, known=bool(meaning))
    tokens = code.replace(",", " ").split()
    if name in (".reqntid", ".maxntid") and len(tokens) > 1:
        dims = [int(t) for t in tokens[1:] if t.isdigit()]
        threads = 1
        for d in dims:
            threads *= d
        verb = "exactly" if name == ".reqntid" else "at most"
        summary = f"launch with {verb} {threads} threads per block ({threads // 32} warps of 32 = num_warps)"
        return Explanation("directive", summary, (Part(name, "directive", base, section),), base, known=bool(meaning))
    if name == ".param":
        pm = PTX_PARAM.search(tokens[-1])
        if pm:
            i = int(pm.group("n"))
            argname = ctx.params[i] if i < len(ctx.params) else None
            pointer = ".ptr" in code
            what = (
                "pointer to global memory"
                if pointer and ".global" in code
                else ("pointer" if pointer else _type_words(tokens[1].lstrip(".")))
            )
            added = f" (added by {ctx.adds_params}: scratch or profiling buffer)" if ctx.adds_params else ""
            who = f" = {argname}" if argname else added
            return Explanation(
                "directive",
                f"kernel parameter {i}{who}: {what}",
                (Part(name, "directive", base, section),),
                base,
                known=bool(meaning),
            )
    if name == ".loc" and len(tokens) >= 4:
        path = ctx.files.get(tokens[1], f"file {tokens[1]}")
        summary = f"source position: {path.rsplit('/', 1)[-1]} line {tokens[2]}, column {tokens[3]}"
        return Explanation("directive", summary, (Part(name, "directive", base, section),), base, known=bool(meaning))
    if name == ".file" and len(tokens) >= 3:
        path = code.split('"')[1] if '"' in code else tokens[2]
        ctx.files[tokens[1]] = path
        return Explanation(
            "directive",
            f"source file #{tokens[1]} is {path}",
            (Part(name, "directive", base, section),),
            base,
            known=bool(meaning),
        )
    if name in (".shared", ".extern") and ".shared" in code:
        return Explanation(
            "directive",
            "declares shared memory" + (" (dynamic: sized at launch)" if "[]" in code else ""),
            (Part(name, "directive", base, section),),
            base,
            known=bool(meaning),
        )
    summary = base or f"{name}: directive not in irscope's PTX knowledge base"
    if name in (".version", ".target", ".address_size") and len(tokens) > 1:
        summary = f"{base} ({tokens[1]})" if base else summary
    return Explanation("directive", summary, (Part(name, "directive", base, section),), base, known=bool(meaning))


# ----------------------------------------------------------------- SASS

SASS_REGISTER = re.compile(r"^-?\|?(?P<reg>(?:U?R|U?P|B)(?:\d+|Z|T))\|?(?:\.(?P<suffix>[\w.]+))?$")
SASS_CONST = re.compile(r"^c\[(?P<bank>0x[0-9a-f]+)\]\[(?P<offset>0x[0-9a-f]+)\]$")
SASS_DESC = re.compile(r"^desc\[(?P<ur>UR\d+)\]\[(?P<addr>[^\]]+)\]$")
SASS_MEMORY = re.compile(r"^\[(?P<addr>[^\]]+)\]$")
SASS_SPECIAL = re.compile(r"^SR_\w+(?:\.\w+)?$")


def sass_line(kb: Knowledge, line: str, param_base: int | None = None, control: Control | None = None) -> Explanation:
    """One SASS line explained; ``control``: the instruction's scheduling bits, read from the cubin."""
    code = line.strip()
    if not code:
        return Explanation("blank", "")
    if code.startswith("//##"):
        return Explanation("comment", "source line of the instructions below")
    if code.startswith("//"):
        return Explanation("comment", "comment")
    if code.endswith(":"):
        return Explanation("label", "label: a branch target" if code.startswith(".L") else "start of the function")
    found = sass_ir.instructions(line)
    if not found:
        return Explanation("other", "", known=False)
    ins = found[0]
    info = kb.opcodes.get(ins.base)
    parts: list[Part] = []
    known = info is not None
    summary = (
        info.get("summary", "") if info else f"{ins.opcode}: unknown instruction (not in irscope's SASS knowledge base)"
    )
    parts.append(Part(ins.base, "opcode", summary if info else "", info.get("section", "") if info else ""))
    mods = []
    for mod in ins.modifiers:
        meaning = _sass_modifier(kb, ins.base, mod)
        parts.append(Part("." + mod, "modifier", meaning.text if meaning else "", meaning.section if meaning else ""))
        if meaning:
            mods.append(meaning.text)
        else:
            known = False
    if ins.guard:
        pred = ins.guard.lstrip("!")
        parts.insert(
            0,
            Part(
                "@" + ins.guard,
                "guard",
                f"runs only in threads where {pred} is {'false' if ins.guard.startswith('!') else 'true'}",
            ),
        )
    for operand, role in zip(ins.operands, sass_roles(ins.opcode, ins.operands)):
        if role is not None:
            parts.append(Part(operand, "operand", role.text, role.section))
        else:
            parts.append(Part(operand, "operand", _sass_operand(kb, operand, param_base)))
    if mods:
        summary = f"{summary} ({', '.join(mods)})"
    if ins.guard:
        summary += f", only where {ins.guard.lstrip('!')} is {'false' if ins.guard.startswith('!') else 'true'}"
    if control is not None:
        parts.append(Part(control.code, "control", control.describe(), control.section))
        summary += f"; {control.describe()}"
    return Explanation(
        "instruction",
        summary,
        tuple(parts),
        info.get("detail", "") if info else "",
        info.get("category", "") if info else "",
        known=known,
        control=control,
    )


def _sass_modifier(kb: Knowledge, base: str, mod: str) -> Meaning | None:
    if base in ("HMMA", "IMMA", "DMMA") and mod.isdigit() and len(mod) >= 4:
        m = SASS_MMA_SHAPE.match(mod)
        if m:
            return Meaning(f"matrix shape M={m['m']} x N={m['n']} x K={m['k']}", "shape")
    return kb.modifier(base, mod)


def _sass_operand(kb: Knowledge, op: str, param_base: int | None) -> str:
    m = SASS_CONST.match(op)
    if m:
        bank, offset = int(m.group("bank"), 16), int(m.group("offset"), 16)
        if bank == 0 and param_base is not None and offset >= param_base:
            return f"constant bank 0 at 0x{offset:x}: kernel parameter bytes {offset - param_base}.."
        return f"constant bank {bank}, offset 0x{offset:x} (driver-provided constants)"
    m = SASS_DESC.match(op)
    if m:
        return f"memory at address {m.group('addr')} (64-bit register pair), using the access descriptor in {m.group('ur')}"
    m = SASS_MEMORY.match(op)
    if m:
        return f"memory at address {m.group('addr')}"
    if SASS_SPECIAL.match(op):
        special = {
            "SR_TID": "thread index in the block",
            "SR_CTAID": "block index in the grid",
            "SR_LANEID": "lane index in the warp",
            "SR_CLOCKLO": "cycle counter (low bits)",
        }
        name = op.split(".")[0]
        return special.get(name, "special system register") + (f" ({op.split('.')[1].lower()})" if "." in op else "")
    m = SASS_REGISTER.match(op)
    if m:
        reg = m.group("reg")
        if reg in ("RZ", "URZ"):
            return "the zero register (reads as 0)"
        if reg in ("PT", "UPT"):
            return "the always-true predicate"
        kind = {
            "R": "register",
            "UR": "uniform register (one value for the whole warp)",
            "P": "predicate register",
            "UP": "uniform predicate",
            "B": "convergence barrier register",
        }[reg.rstrip("0123456789").rstrip("Z")]
        suffix = m.group("suffix")
        if suffix == "64":
            return f"{kind} pair {reg}:{reg[0]}{int(reg[1:]) + 1 if reg[1:].isdigit() else ''} (64 bits)"
        return (
            f"{kind} {reg}"
            + (f" ({suffix})" if suffix and suffix != "reuse" else "")
            + (", reused from the operand cache" if suffix and "reuse" in suffix else "")
        )
    if op.startswith("`(") or op.startswith(".L"):
        return "branch target"
    text = immediate(op.lstrip("-") if op.startswith("-0x") else op, 32, False)
    return text or ""
