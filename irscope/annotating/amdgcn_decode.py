"""Decode one line of AMDGCN (LLVM's AMDGPU assembly) into its parts, each explained in plain words.

An opcode is read the way LLVM spells them: ``v_cmp_lt_u32_e64`` is the longest known prefix
(``v_cmp``, from irscope/knowledge/amdgcn.json) and the parts after it, each a modifier: a condition
(``lt``), types (``u32``), an access width (``dwordx4``), an encoding (``e64``). Types, access widths
and matrix shapes follow patterns and are decoded here: ``v_mfma_f32_32x32x8_f16`` is a 32x32 output
tile, K=8, f16 inputs, accumulated in f32. Operands are registers (``v[2:5]``: four VGPRs),
special registers (``vcc``, ``exec``), constants, labels, and the modifiers written after them
(``offen``, ``offset:16``, ``vmcnt(0)``). Lines of the code object metadata (YAML) at the end of the
listing are explained as metadata, so every line of a listing has a reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..ir.amdgcn import ACCESS_BYTES, LABEL
from .decode import Explanation, Part, immediate
from .knowledge import Knowledge, Meaning

# ------------------------------------------------------------------ patterns of opcode parts

TYPE = re.compile(r"^(?P<kind>f|bf|i|u|b)(?P<bits>4|6|8|16|32|64|96|128)$")
TYPE_NAMES = {"f": "float", "bf": "bfloat", "i": "signed integer", "u": "unsigned integer", "b": "untyped bits"}
OTHER_TYPES = {
    "xf32": "xf32 (f32 inputs at reduced precision)",
    "fp8": "fp8 E4M3",
    "bf8": "fp8 E5M2",
    "f8f6f4": "fp8, fp6 or fp4 inputs (format set by modifiers)",
    "iu8": "8-bit integers, signed or unsigned per operand",
    "iu4": "4-bit integers, signed or unsigned per operand",
    "fp4": "fp4",
}
# 32x32x8, and the older spelling with the input type fused on: 32x32x8f16
SHAPE = re.compile(r"^(?P<m>\d+)x(?P<n>\d+)x(?P<k>\d+)(?P<type>[a-z]+\d*)?$")
BLOCKS = re.compile(r"^(?P<n>\d+)b$")
# v_mfma_f32_32x32x8_f16, v_mfma_f32_32x32x8f16, v_mfma_f32_16x16x4_4b_f16, v_wmma_f32_16x16x16_f16
MATRIX = re.compile(
    r"^v_(?P<kind>mfma|smfmac|wmma|swmmac)(?:_scale)?_(?P<acc>[a-z]+\d*)_(?P<m>\d+)x(?P<n>\d+)x(?P<k>\d+)"
    r"(?:_(?P<blocks>\d+)b)?_?(?P<inputs>[a-z0-9_]*?)(?:_e64)?$"
)
ENCODINGS = ("e32", "e64", "dpp", "sdwa", "vop3")
CONDITIONED = ("v_cmp", "v_cmpx", "s_cmp", "s_cmpk")
WAITS = ("s_wait_loadcnt", "s_wait_storecnt", "s_wait_dscnt", "s_wait_kmcnt", "s_wait_expcnt")

# ------------------------------------------------------------------ operands

REGISTER = re.compile(r"^(?P<file>v|s|a|ttmp)(?P<n>\d+)$")
REGISTERS = re.compile(r"^(?P<file>v|s|a|ttmp)\[(?P<lo>\d+):(?P<hi>\d+)\]$")
FILES = {  # register file -> (one register, several, what it holds)
    "v": ("vector register", "vector registers", "one 32-bit value per lane"),
    "s": ("scalar register", "scalar registers", "one 32-bit value for the whole wave"),
    "a": ("accumulation register (AGPR)", "accumulation registers (AGPRs)", "where matrix-core results accumulate"),
    "ttmp": ("trap-handler register", "trap-handler registers", "reserved for the trap handler"),
}
SPECIAL = {
    "vcc": "VCC, the vector condition code: one bit per lane (64 bits)",
    "vcc_lo": "VCC, the vector condition code: one bit per lane (32 lanes)",
    "vcc_hi": "the high half of VCC",
    "exec": "EXEC, the execution mask: one bit per lane, set for the lanes that run",
    "exec_lo": "EXEC, the execution mask (32 lanes)",
    "exec_hi": "the high half of EXEC",
    "scc": "SCC, the scalar condition code",
    "m0": "M0, a scalar register with special uses (LDS limits, indexing, messages)",
    "null": "no register (the null operand)",
    "off": "no register: the address or offset is not taken from one",
    "flat_scratch": "the flat-scratch base register",
    "xnack_mask": "the XNACK mask register",
    "src_scc": "SCC as a source",
    "src_execz": "1 if EXEC is zero",
    "src_vccz": "1 if VCC is zero",
    "src_lds_direct": "a value read directly from LDS",
    "src_shared_base": "the base address of LDS in the flat address space",
    "src_private_base": "the base address of scratch in the flat address space",
    "src_pops_exiting_wave_id": "the exiting wave's id",
}
INTEGER = re.compile(r"^-?(?:0x[0-9a-fA-F]+|\d+)$")
FLOAT = re.compile(r"^-?\d+\.\d+(?:[eE][-+]?\d+)?$")
SYMBOL = re.compile(r"^[.A-Za-z_$][\w.$@+-]*$")
# offset:16  row_shr:1  quad_perm:[1,0,3,2]  scope:SCOPE_SE
KEY_VALUE = re.compile(r"^(?P<key>[a-z_0-9]+):(?P<value>.+)$")
# vmcnt(0)  instid0(VALU_DEP_1)  sendmsg(MSG_DEALLOC_VGPRS)
CALL = re.compile(r"^(?P<key>[a-z_0-9]+)\((?P<value>[^)]*)\)$")

WAITCNT = "AMDGPUUsage: Memory Model (s_waitcnt); ISA guide: Data Dependency Resolution"
FLAGS = {
    "offen": "the lane's address register holds an offset into the buffer",
    "idxen": "the lane's address register holds an index (scaled by the buffer's stride)",
    "addr64": "64-bit address in the address registers",
    "glc": "globally coherent: bypass (or write through) the per-CU cache; atomics return the old value",
    "slc": "system-level coherent / streaming: a hint not to keep the data in cache",
    "dlc": "device-level coherent",
    "nt": "non-temporal: a hint that the data will not be reused soon",
    "sc0": "scope bit 0 (gfx940 cache coherence scope; on atomics: return the old value)",
    "sc1": "scope bit 1 (gfx940 cache coherence scope)",
    "lds": "the data goes to LDS instead of registers",
    "gds": "the global data share instead of LDS",
    "tfe": "texture-fail enable: an extra register reports a failed access",
    "clamp": "clamp the result (to [0, 1] for floats, to the type's range for integers)",
    "bound_ctrl": "lanes whose source lane is out of range read 0",
    "|": "separates the two halves of the hint",
}
KEYED = {
    "offset": "constant byte offset added to the address",
    "offset0": "first offset (in elements of the access size)",
    "offset1": "second offset (in elements of the access size)",
    "row_shr": "DPP: read the lane N below within each row of 16",
    "row_shl": "DPP: read the lane N above within each row of 16",
    "row_ror": "DPP: rotate right within each row of 16",
    "row_bcast": "DPP: broadcast lane 15 (or 31) of each row to the next row(s)",
    "row_share": "DPP: every lane of a row reads lane N of the row",
    "row_xmask": "DPP: read the lane whose index is xored with N",
    "row_newbcast": "DPP: broadcast within rows",
    "row_half_mirror": "DPP: mirror within half rows",
    "row_mirror": "DPP: mirror within rows",
    "wave_shr": "DPP: shift right across the wave",
    "wave_shl": "DPP: shift left across the wave",
    "wave_ror": "DPP: rotate right across the wave",
    "wave_rol": "DPP: rotate left across the wave",
    "quad_perm": "DPP: each lane reads the lane of its quad given by this permutation",
    "row_mask": "DPP: which rows of 16 lanes write their result",
    "bank_mask": "DPP: which banks of 4 lanes write their result",
    "bound_ctrl": "lanes whose source lane is out of range read 0",
    "fi": "DPP: fetch from inactive lanes too",
    "dpp8": "DPP8: each lane of 8 reads the lane given here",
    "op_sel": "which half (low or high 16 bits) of each operand to use",
    "op_sel_hi": "which half of each operand feeds the high half of a packed operation",
    "neg_lo": "negate the low halves of these operands",
    "neg_hi": "negate the high halves of these operands",
    "bitop3": "the truth table of the three-input bitwise function",
    "cbsz": "MFMA: broadcast control (block size)",
    "abid": "MFMA: which block A is broadcast from",
    "blgp": "MFMA: lane-group pattern for B",
    "scope": "memory scope of the access's coherence",
    "th": "temporal hint for the caches",
    "mul": "multiply the result by this",
    "div": "divide the result by this",
    "byte_sel": "which byte the operation uses",
    "index_key": "which part of the sparse index register is used",
    "matrix_a_fmt": "the format of matrix A",
    "matrix_b_fmt": "the format of matrix B",
}
COUNTERS = {
    "vmcnt": "vector memory loads (global, buffer, scratch, flat)",
    "vscnt": "vector memory stores",
    "lgkmcnt": "LDS, scalar memory (s_load) and message operations",
    "expcnt": "exports and GDS writes",
}


@dataclass
class AmdgcnContext:
    """What the whole listing tells about one line: which lines are the code object metadata (YAML)."""

    metadata_lines: set[str] = field(default_factory=set)
    files: dict[str, str] = field(default_factory=dict)  # .file number -> file name

    def scan(self, text: str) -> None:
        inside = False
        for line in text.splitlines():
            stripped = line.strip()
            if stripped.startswith(".file"):
                m = re.match(r'^\.file\s+(\d+)\s+(?:"[^"]*"\s+)?"([^"]*)"', stripped)
                if m:
                    self.files[m.group(1)] = m.group(2)
            if stripped == ".amdgpu_metadata":
                inside = True
                continue
            if stripped == ".end_amdgpu_metadata":
                inside = False
            elif inside:
                self.metadata_lines.add(line)


def amdgcn_line(kb: Knowledge, line: str, ctx: AmdgcnContext) -> Explanation:
    if line in ctx.metadata_lines:
        return _metadata(line)
    code = line.split(";", 1)[0].rstrip()
    stripped = code.strip()
    if not stripped:
        return Explanation("comment", "comment") if line.strip() else Explanation("blank", "")
    if stripped.startswith("."):
        if LABEL.match(stripped):
            return _label(stripped)
        return _directive(kb, stripped, ctx)
    if LABEL.match(stripped) and not line.startswith(("\t", " ")):
        return _label(stripped)
    if "::" in stripped:  # VOPD (gfx11+): two independent VALU operations issued together
        halves = [_instruction(kb, half.strip().replace("v_dual_", "v_", 1)) for half in stripped.split("::")]
        return Explanation(
            "instruction",
            "dual issue (VOPD), two operations at once: " + "; and ".join(h.summary for h in halves),
            tuple(p for h in halves for p in h.parts),
            category=halves[0].category,
            known=all(h.known for h in halves),
        )
    return _instruction(kb, stripped)


# ------------------------------------------------------------------ instructions


def _instruction(kb: Knowledge, code: str) -> Explanation:
    opcode, _, rest = code.partition(" ")
    parts, summary, info_known, category, detail = _opcode(kb, opcode)
    operands, modifiers = _split_operands(rest.strip())
    known = info_known
    for op in operands:
        parts.append(Part(op, "operand", _operand(op, opcode)))
    for mod in modifiers:
        text = _trailing_modifier(mod)
        parts.append(Part(mod, "modifier", text))
        known = known and bool(text)
    waits = [p.text for p in parts if p.role == "modifier" and p.token.split("(")[0] in COUNTERS]
    if waits:
        summary = f"{summary}: " + "; ".join(waits)
    return Explanation("instruction", summary, tuple(parts), detail, category, known=known)


def _opcode(kb: Knowledge, opcode: str) -> tuple[list[Part], str, bool, str, str]:
    """The opcode's parts (the matched entry, then one modifier per remaining piece), its summary, whether
    every piece is known, its category and detail."""
    info, rest = kb.opcode(opcode)
    if info is None:
        summary = f"{opcode}: unknown instruction (not in irscope's AMDGCN knowledge base)"
        return [Part(opcode, "opcode", "")], summary, False, "", ""
    parts = [Part(info.key, "opcode", info.summary, info.section)]
    known = True
    words = []
    for piece in rest:
        meaning = _piece(kb, info.key, piece)
        parts.append(Part("_" + piece, "modifier", meaning.text if meaning else "", meaning.section if meaning else ""))
        if meaning is None:
            known = False
        elif meaning.kind != "encoding":
            words.append(meaning.text)
    shaped = _matrix_summary(opcode, info.summary) or _cvt_summary(info.key, rest, info.summary)
    if shaped is None:
        shaped = f"{info.summary} ({', '.join(words)})" if words else info.summary
    return parts, shaped, known, info.category, info.detail


def _piece(kb: Knowledge, key: str, piece: str) -> Meaning | None:
    """What one part of an opcode after its entry means: a condition, a type, a width, a shape, an encoding."""
    if key in CONDITIONED:
        found = kb.modifiers.get("cond:" + piece)
        if found:
            return Meaning(found["text"], "condition", found.get("section", ""))
    found = kb.modifiers.get(f"{key}:{piece}") or kb.modifiers.get(piece)
    if found:
        return Meaning(found["text"], found.get("kind", "other"), found.get("section", ""))
    m = TYPE.match(piece)
    if m:
        return Meaning(f"{m['bits']}-bit {TYPE_NAMES[m['kind']]}", "type")
    if piece in OTHER_TYPES:
        return Meaning(OTHER_TYPES[piece], "type")
    wide = re.match(r"^dwordx(\d+)$", piece)
    if piece in ACCESS_BYTES or wide:
        n = ACCESS_BYTES.get(piece) or 4 * int(wide.group(1) if wide else 1)
        per = "for the whole wave" if key.startswith("s_") else "per lane"
        return Meaning(f"{n} byte{'s' if n > 1 else ''} {per}: {piece}", "width")
    m = SHAPE.match(piece)
    if m:
        fused = OTHER_TYPES.get(m["type"] or "") or (_type_words(m["type"]) if m["type"] else "")
        return Meaning(f"{m['m']}x{m['n']} output tile, K={m['k']}" + (f", {fused} inputs" if fused else ""), "shape")
    m = BLOCKS.match(piece)
    if m:
        return Meaning(f"{m['n']} independent blocks in one instruction", "shape")
    return None


def _type_words(name: str) -> str:
    m = TYPE.match(name)
    return f"{m['bits']}-bit {TYPE_NAMES[m['kind']]}" if m else OTHER_TYPES.get(name, "")


def _matrix_summary(opcode: str, base: str) -> str | None:
    """``v_mfma_f32_32x32x8_f16`` -> "... 32x32 f32 tile += (32x8 f16) x (8x32 f16) ..."."""
    m = matrix_shape(opcode)
    if m is None:
        return None
    inputs = m.inputs or m.acc
    blocks = f", {m.blocks} blocks at once" if m.blocks > 1 else ""
    return (
        f"{base}: a {m.m}x{m.n} {m.acc} tile += ({m.m}x{m.k} {inputs}) x ({m.k}x{m.n} {inputs}){blocks}, "
        f"{m.macs} multiply-adds per instruction"
    )


@dataclass(frozen=True)
class MatrixShape:
    kind: str  # mfma, smfmac, wmma, swmmac
    acc: str  # accumulator and output type: f32
    m: int
    n: int
    k: int
    blocks: int
    inputs: str  # input types: f16, fp8_fp8

    @property
    def macs(self) -> int:
        return self.m * self.n * self.k * self.blocks

    def words(self) -> str:
        inputs = self.inputs or self.acc
        blocks = f" x{self.blocks} blocks" if self.blocks > 1 else ""
        return f"{self.m}x{self.n} {self.acc} tile, K={self.k}, {inputs} inputs{blocks}"


def matrix_shape(opcode: str) -> MatrixShape | None:
    """The tile shape and types of a ``v_mfma``/``v_wmma`` opcode (None: not one)."""
    m = MATRIX.match(opcode)
    if m is None:
        return None
    return MatrixShape(
        m["kind"], m["acc"], int(m["m"]), int(m["n"]), int(m["k"]), int(m["blocks"] or 1), m["inputs"] or ""
    )


def _cvt_summary(key: str, rest: list[str], base: str) -> str | None:
    """``v_cvt_f32_u32``: the first type is what it converts to, the second what from."""
    if not key.endswith(("_cvt", "_cvt_pk", "_cvt_pkrtz")):
        return None
    types = [p for p in rest if TYPE.match(p) or p in OTHER_TYPES]
    if len(types) != 2:
        return None
    return f"{base}: {_type_words(types[1]) or types[1]} to {_type_words(types[0]) or types[0]}"


def _split_operands(text: str) -> tuple[list[str], list[str]]:
    """Operands (comma-separated) and the modifiers written after them (space-separated), brackets kept whole."""
    tokens: list[tuple[str, bool]] = []  # (token, followed a comma)
    depth, current, after_comma = 0, "", True
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if depth == 0 and ch in ", \t":
            if current:
                tokens.append((current, after_comma))
                current = ""
                after_comma = False
            if ch == ",":
                after_comma = True
            continue
        current += ch
    if current:
        tokens.append((current, after_comma))
    operands: list[str] = []
    modifiers: list[str] = []
    for i, (token, comma) in enumerate(tokens):
        modifier = (
            token in FLAGS
            or KEY_VALUE.match(token) is not None
            or CALL.match(token) is not None
            or (i > 0 and not comma and bool(operands))
        )
        (modifiers if modifier else operands).append(token)
    return operands, modifiers


def _trailing_modifier(token: str) -> str:
    if token in FLAGS:
        return FLAGS[token]
    m = CALL.match(token)
    if m:
        key, value = m["key"], m["value"]
        if key in COUNTERS:
            return f"at most {value} {COUNTERS[key]} still outstanding"
        if key in ("instid0", "instid1"):
            return f"waits for {_delay(value)}"
        if key == "instskip":
            return (
                "the second hint applies to the next instruction"
                if value == "NEXT"
                else f"the second hint skips {value}"
            )
        if key == "sendmsg":
            return (
                "message " + value + (": the wave frees its VGPRs early, before it ends" if "DEALLOC" in value else "")
            )
        if key == "hwreg":
            return f"hardware register {value}"
        if key.startswith("depctr"):
            return f"dependency counter {key} = {value}"
        if key in ("neg", "abs", "sext"):
            return f"{key} of the operand"
        return ""
    m = KEY_VALUE.match(token)
    if m and m["key"] in KEYED:
        return f"{KEYED[m['key']]}: {m['value']}"
    return ""


def _delay(value: str) -> str:
    """``VALU_DEP_1``: the result of the VALU instruction 1 back; ``SALU_CYCLE_1``, ``TRANS32_DEP_1``."""
    m = re.match(r"^(VALU|TRANS32|SALU)_(DEP|CYCLE)_(\d+)$", value)
    if not m:
        return value
    unit = {"VALU": "vector ALU", "TRANS32": "transcendental", "SALU": "scalar ALU"}[m[1]]
    if m[2] == "CYCLE":
        return f"{m[3]} cycle(s) after the {unit} instruction before"
    return f"the result of the {unit} instruction {m[3]} back"


def _operand(op: str, opcode: str) -> str:
    negate = op.startswith("-") and not INTEGER.match(op) and not FLOAT.match(op)
    bare = op.lstrip("-").strip("|")
    prefix = "minus " if negate else ""
    prefix += "the absolute value of " if op.strip("-").startswith("|") else ""
    m = REGISTER.match(bare)
    if m:
        name, _, per = FILES[m["file"]]
        return f"{prefix}{name} {bare} ({per})"
    m = REGISTERS.match(bare)
    if m:
        _, names, _ = FILES[m["file"]]
        count = int(m["hi"]) - int(m["lo"]) + 1
        bits = f", {4 * count} bytes per lane" if m["file"] in "va" else ""
        return f"{prefix}{count} consecutive {names} {m['file']}{m['lo']}..{m['file']}{m['hi']}{bits}"
    if bare in SPECIAL:
        return prefix + SPECIAL[bare]
    if INTEGER.match(op):
        return _integer(op, opcode)
    if FLOAT.match(op):
        return f"float constant {op}"
    if op.startswith(".L"):
        return f"branch target {op}"
    if SYMBOL.match(op):
        return f"symbol {op}"
    return ""


def _integer(op: str, opcode: str) -> str:
    value = int(op, 0)
    if value.bit_length() > 64:  # no operand is this wide: a damaged listing's, and too long to print
        return "a constant wider than 64 bits"
    if opcode.startswith(WAITS):
        return f"at most {value} outstanding"
    if opcode == "s_nop":
        return f"{value + 1} wait state{'s' if value else ''}"
    if opcode == "s_clause":
        return f"{value + 1} instructions in the clause"
    if opcode == "s_setprio":
        return f"priority {value} (0 lowest, 3 highest)"
    if opcode.startswith("s_barrier") and value == -1:
        return "-1: the workgroup's barrier"
    if opcode.startswith(("s_wait_alu", "s_waitcnt_depctr")):
        return f"encoded dependency counters 0x{value & 0xFFFF:04x}"
    float_op = bool(re.search(r"_(?:f16|f32|f64|bf16)(?:_|$)", opcode))
    return immediate(str(value), 32, float_op and abs(value) >= 1 << 16) or f"constant {value}"


# ------------------------------------------------------------------ directives, labels, metadata


def _directive(kb: Knowledge, code: str, ctx: AmdgcnContext) -> Explanation:
    tokens = code.replace(",", " ").split()
    name = tokens[0]
    meaning = kb.directive(name)
    if meaning is None:
        for prefix, entry in kb.directive_prefixes.items():
            if name.startswith(prefix):
                meaning = Meaning(f"{entry['text']}: {name[len(prefix) :]}", "directive", entry.get("section", ""))
    part = (Part(name, "directive", meaning.text if meaning else "", meaning.section if meaning else ""),)
    if meaning is None:
        return Explanation("directive", f"{name}: directive not in irscope's AMDGCN knowledge base", part, known=False)
    summary = meaning.text
    if name == ".loc" and len(tokens) >= 4:
        where = ctx.files.get(tokens[1], f"file {tokens[1]}")
        summary = f"source position: {where} line {tokens[2]}, column {tokens[3]}"
    elif name == ".file" and len(tokens) >= 3:
        summary = f"source file #{tokens[1]} is {tokens[-1].strip(chr(34))}"
    elif len(tokens) == 2 and (name.startswith(".amdhsa_") or name == ".amdgcn_target"):
        summary = f"{meaning.text} = {tokens[1]}"
    return Explanation("directive", summary, part, meaning.text)


def _label(code: str) -> Explanation:
    name = code.split(":", 1)[0]
    if name.startswith(".LBB"):
        return Explanation("label", "label: a basic block, a branch target")
    if name.startswith((".Ltmp", ".Lfunc_begin", ".Lfunc_end")):
        return Explanation("label", "label (debug bookkeeping: marks a position for the line table)")
    if name.startswith(".L"):
        return Explanation("label", "label in the debug tables")
    return Explanation("label", f"start of the kernel {name}")


METADATA_KEYS = {
    ".vgpr_count": "vector registers per lane",
    ".sgpr_count": "scalar registers",
    ".agpr_count": "accumulation registers (AGPRs) per lane",
    ".vgpr_spill_count": "vector registers spilled to scratch",
    ".sgpr_spill_count": "scalar registers spilled",
    ".group_segment_fixed_size": "static LDS bytes per workgroup",
    ".private_segment_fixed_size": "scratch bytes per lane",
    ".wavefront_size": "lanes per wave",
    ".max_flat_workgroup_size": "the most work-items a workgroup may have",
    ".kernarg_segment_size": "bytes of kernel arguments",
}


def _metadata(line: str) -> Explanation:
    m = re.match(r"^\s*-?\s*([.\w]+):\s*(.*)$", line)
    if m and m.group(1) in METADATA_KEYS:
        summary = f"code object metadata: {METADATA_KEYS[m.group(1)]} = {m.group(2)}"
    else:
        summary = "code object metadata (YAML read by the ROCm loader)"
    return Explanation("other", summary, detail="LLVM AMDGPUUsage: Code Object V3 to V5 Metadata")
