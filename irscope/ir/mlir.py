"""TTIR/TTGIR ops and layouts, and LLVM IR instructions, parsed for counting.

Counting needs only each line's operation name; the layouts (``#blocked``,
``#mma`` ...) are what num_warps and BLOCK_SIZE change in TTGIR, so their
parameters are kept whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# %row_3 = tt.load %input_ptrs_1, %row_2, %cst : tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc26)
# %0 = "tt.reduce"(%row) <{axis = 0 : i32}> ({
# tt.store %output_ptrs_5, %square_output, %row_2 : tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc13)
MLIR_OP = re.compile(r'^\s*(?:%[\w#:,\s%]+?\s=\s)?"?(?P<op>[a-z_][a-z0-9_]*\.[a-z0-9_.]+)"?[\s(<{]')
# #blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
MLIR_ATTRIBUTE_ALIAS = re.compile(
    r"^(?P<name>#[a-zA-Z_]\w*)\s*=\s*#(?:ttg|triton_gpu|ttng)\.(?P<kind>\w+)(?P<params><.*>)?\s*$"
)
LAYOUT_PARAM = re.compile(r"(\w+)\s*=\s*(\[[^\]]*\]|#?[\w.]+)")

# %9 = mul i32 %2, %8, !dbg !8      ;  store i32 %x, ptr %p      ;  %r = tail call float @llvm.maxnum.f32(...)
LLVM_INSTRUCTION = re.compile(
    r"^\s+(?:%[\w.]+\s=\s)?(?:(?:tail|musttail|notail)\s+)?(?P<op>[a-z][a-z0-9_.]*)\b(?P<rest>.*)$"
)
LLVM_CALLEE = re.compile(r"(@[\w.$]+)\(")


@dataclass(frozen=True)
class Layout:
    name: str  # "#blocked1"
    kind: str  # "blocked", "nvidia_mma", "nvmma_shared", "dot_op", "slice", "linear" ...
    params: dict[str, str]

    def describe(self) -> str:
        keys: list[str] = [
            k
            for k in (
                "sizePerThread",
                "threadsPerWarp",
                "warpsPerCTA",
                "order",
                "versionMajor",
                "instrShape",
                "swizzlingByteWidth",
                "elementBitWidth",
                "opIdx",
                "kWidth",
                "dim",
                "parent",
            )
            if k in self.params
        ]
        keys += [k for k in self.params if k not in keys and k != "CTAsPerCGA"][:3]
        return f"{self.kind} " + " ".join(f"{k}={self.params[k]}" for k in keys)


def mlir_ops(text: str) -> list[tuple[int, str]]:
    """``(line index, op name)`` for every operation in a TTIR/TTGIR listing."""
    out = []
    for i, line in enumerate(text.splitlines()):
        if not line.startswith(" "):
            continue  # #loc tables, attribute aliases, module braces
        m = MLIR_OP.match(line)
        if m and not m.group("op").startswith("loc"):
            out.append((i, m.group("op")))
    return out


def layouts(text: str) -> list[Layout]:
    out = []
    for line in text.splitlines():
        if not line.startswith("#") or line.startswith("#loc"):
            continue
        m = MLIR_ATTRIBUTE_ALIAS.match(line)
        if m:
            params = dict(LAYOUT_PARAM.findall(m.group("params") or ""))
            out.append(Layout(m.group("name"), m.group("kind"), params))
    return out


def llvm_instructions(text: str) -> list[tuple[int, str]]:
    """``(line index, opcode)`` for each LLVM instruction; calls are named by their callee."""
    out = []
    inside = False
    for i, line in enumerate(text.splitlines()):
        if line.startswith("define "):
            inside = True
            continue
        if line.startswith("}"):
            inside = False
            continue
        if not inside or not line.startswith("  ") or line.lstrip().startswith(";"):
            continue
        m = LLVM_INSTRUCTION.match(line)
        if not m:
            continue
        op = m.group("op")
        if op == "call":
            if " asm " in m.group("rest"):
                op = "call asm"
            else:
                callee = LLVM_CALLEE.search(m.group("rest"))
                op = f"call {callee.group(1)}" if callee else op
        out.append((i, op))
    return out
