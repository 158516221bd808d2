"""The instruction knowledge base: what each PTX/SASS opcode, modifier, special
register and directive means, read from JSON data files in the package.

Lookups follow the way instructions are spelled: the longest dotted prefix of an
opcode that has an entry names the instruction (``cp.async`` for
``cp.async.cg.shared.global``), and every remaining part is a modifier, looked up
first as ``<opcode>:<modifier>`` (meanings particular to that instruction), then
on its own. Data types, vector widths and tensor-core shapes follow regular
patterns and are decoded here rather than listed.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

TYPE_NAMES = {"b": "untyped bits", "s": "signed integer", "u": "unsigned integer", "f": "floating point"}
TYPE = re.compile(r"^(?P<kind>[bsuf])(?P<bits>8|16|32|64|128)$")
PACKED_TYPES = {
    "f16x2": "two fp16 values packed in 32 bits",
    "bf16": "bfloat16 (8-bit exponent, 7-bit mantissa)",
    "bf16x2": "two bfloat16 values packed in 32 bits",
    "tf32": "TensorFloat-32 (fp32 range, 10-bit mantissa)",
    "e4m3": "fp8 E4M3",
    "e5m2": "fp8 E5M2",
    "e4m3x2": "two fp8 E4M3 values",
    "e5m2x2": "two fp8 E5M2 values",
    "pred": "predicate (1-bit true/false)",
}
VECTOR = re.compile(r"^v(?P<n>\d+)$")
PTX_SHAPE = re.compile(r"^m(?P<m>\d+)n(?P<n>\d+)(?:k(?P<k>\d+))?$")
SASS_SHAPE = re.compile(r"^(?P<m>\d+)x(?P<n>\d+)x(?P<k>\d+)$")
SASS_MMA_SHAPE = re.compile(r"^(?P<m>\d{2})(?P<n>\d)(?P<k>\d{1,2})$")  # HMMA.16816: m16n8k16
REPEAT = re.compile(r"^x(?P<n>\d+)$")  # tcgen05.ld .x64, LDTM.x64
# LDTM.16dp32bit_t0_t15: 16 lanes ("data paths") of 32 bits, the half of a 16x32bx2 access for threads 0-15
TMEM_SHAPE = re.compile(r"^(?P<lanes>\d+)dp(?P<bits>\d+)bit(?:_t(?P<first>\d+)_t(?P<last>\d+))?$")


@dataclass(frozen=True)
class Meaning:
    text: str
    kind: str = "other"
    section: str = ""


@dataclass(frozen=True)
class OpcodeInfo:
    key: str  # the entry that matched: "cp.async"
    summary: str
    detail: str
    section: str
    category: str


class Knowledge:
    """One ISA's knowledge base (PTX or SASS)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.source = data.get("source", "")
        self.opcodes: dict[str, dict[str, str]] = data.get("opcodes", {})
        self.modifiers: dict[str, dict[str, str]] = data.get("modifiers", {})
        self.special_registers: dict[str, dict[str, str]] = data.get("special_registers", {})
        self.directives: dict[str, dict[str, str]] = data.get("directives", {})
        # directives named by a family prefix (AMDGCN's .amdhsa_* kernel descriptor fields)
        self.directive_prefixes: dict[str, dict[str, str]] = data.get("directive_prefixes", {})
        # how an opcode's parts are joined: cp.async.cg (PTX), v_cmp_lt_u32 (AMDGCN)
        self.separator: str = data.get("separator", ".")

    def opcode(self, opcode: str) -> tuple[OpcodeInfo | None, list[str]]:
        """The entry for the longest known dotted prefix of ``opcode``, and the parts after it."""
        parts = opcode.split(self.separator)
        for n in range(len(parts), 0, -1):
            key = self.separator.join(parts[:n])
            entry = self.opcodes.get(key)
            if entry is not None:
                info = OpcodeInfo(
                    key,
                    entry.get("summary", ""),
                    entry.get("detail", ""),
                    entry.get("section", ""),
                    entry.get("category", ""),
                )
                return info, parts[n:]
        return None, parts[1:]

    def modifier(self, opcode_key: str, modifier: str) -> Meaning | None:
        """What ``modifier`` means on ``opcode_key`` (None: not known)."""
        base = opcode_key.split(".", 1)[0]
        for key in (f"{opcode_key}:{modifier}", f"{base}:{modifier}", modifier):
            entry = self.modifiers.get(key)
            if entry is not None:
                return Meaning(entry.get("text", ""), entry.get("kind", "other"), entry.get("section", ""))
        return generic_modifier(modifier)

    def special_register(self, name: str) -> Meaning | None:
        """``%tid.x`` -> the meaning of %tid, with the component."""
        base, _, component = name.partition(".")
        entry = self.special_registers.get(base) or self.special_registers.get(base.rstrip("0123456789"))
        if entry is None:
            return None
        text = entry.get("text", "")
        if component:
            text += f" ({component} component)"
        return Meaning(text, "special register", entry.get("section", ""))

    def directive(self, name: str) -> Meaning | None:
        entry = self.directives.get(name)
        return None if entry is None else Meaning(entry.get("text", ""), "directive", entry.get("section", ""))


def generic_modifier(modifier: str) -> Meaning | None:
    """Types, vector widths and shapes, which follow patterns instead of being listed."""
    m = TYPE.match(modifier)
    if m:
        return Meaning(f"{m['bits']}-bit {TYPE_NAMES[m['kind']]}", "type", "5.2 Types")
    if modifier in PACKED_TYPES:
        return Meaning(PACKED_TYPES[modifier], "type", "5.2 Types")
    m = VECTOR.match(modifier)
    if m:
        return Meaning(f"vector of {m['n']} elements moved by one instruction", "vector", "5.4.2 Vectors")
    m = PTX_SHAPE.match(modifier) or SASS_SHAPE.match(modifier)
    if m:
        k = f" x K={m['k']}" if m["k"] else ""
        return Meaning(f"matrix shape M={m['m']} x N={m['n']}{k}", "shape", "9.7.14 Matrix multiply-accumulate shapes")
    m = REPEAT.match(modifier)
    if m:
        return Meaning(
            f"the access pattern repeated {m['n']} times along the columns",
            "shape",
            "9.7.16 TensorCore 5th Generation Family Instructions: tcgen05.ld / tcgen05.st",
        )
    m = TMEM_SHAPE.match(modifier)
    if m:
        threads = f", for threads {m['first']}-{m['last']} of the warp" if m["first"] else ""
        return Meaning(
            f"tensor-memory access of {m['lanes']} lanes x {m['bits']} bits{threads}",
            "shape",
            "CUDA Binary Utilities 4.6 Blackwell Instruction Set: LDTM / STTM (modifier not itemised by NVIDIA;"
            " meaning from the tcgen05.ld/st shape that produces it)",
        )
    if modifier.isdigit():
        return Meaning(f"{modifier}-bit access width", "width", "")
    return None


@functools.cache
def load(isa: str) -> Knowledge:
    """``load("ptx")``, ``load("sass")`` or ``load("amdgcn")``: the knowledge base shipped with irscope."""
    path = resources.files("irscope") / "knowledge" / f"{isa}.json"
    try:
        return Knowledge(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return Knowledge({})
