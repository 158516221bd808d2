"""What a kernel's PTX says about it, as a short list of findings, each pointing at its lines.

The questions a kernel engineer asks first of a listing: are the global loads
vectorised (and if not, why not), which accesses are masked, does it spill,
how many warps fit on an SM with these registers and this shared memory, does it
use shared memory, barriers, asynchronous copies, tensor cores, and which Python
lines cost the most instructions.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from ..ir import ptx as ptx_ir
from ..ir.sourcemap import SourceMap
from ..ir.stats import stage_stats
from ..types import Stage, Variant


@dataclass(frozen=True)
class Finding:
    kind: str  # vectorization, masking, spills, occupancy, shared-memory, async-copy, tensor-cores, hot-lines
    severity: str  # "info" or "warn"
    title: str
    detail: str
    stage: Stage
    lines: tuple[int, ...] = ()  # 0-based lines of ``stage`` the finding points at


@dataclass(frozen=True)
class SmLimits:
    registers: int = 65536
    max_threads: int = 2048
    max_blocks: int = 32
    shared: int = 233472  # shared memory per SM, bytes
    reserved_shared_per_block: int = 1024


# CUDA C Programming Guide, "Technical Specifications per Compute Capability".
SM_LIMITS = {
    70: SmLimits(max_threads=2048, max_blocks=32, shared=98304, reserved_shared_per_block=0),
    75: SmLimits(max_threads=1024, max_blocks=16, shared=65536, reserved_shared_per_block=0),
    80: SmLimits(max_threads=2048, max_blocks=32, shared=167936),
    86: SmLimits(max_threads=1536, max_blocks=16, shared=102400),
    87: SmLimits(max_threads=2048, max_blocks=32, shared=167936),
    89: SmLimits(max_threads=1536, max_blocks=24, shared=102400),
    90: SmLimits(max_threads=2048, max_blocks=32, shared=233472),
    100: SmLimits(max_threads=2048, max_blocks=32, shared=233472),
    120: SmLimits(max_threads=1536, max_blocks=32, shared=102400),
}


def occupancy(capability: int, registers: int, num_warps: int, shared: int) -> tuple[int, int, str]:
    """``(blocks per SM, warps per SM, limiting resource)`` for one kernel configuration."""
    limits = SM_LIMITS.get(capability, SM_LIMITS[90])
    threads = 32 * num_warps
    regs_per_warp = math.ceil(max(registers, 1) * 32 / 256) * 256  # allocated per warp, in units of 256
    by = {  # on a tie the first limit named wins: threads are the hard ceiling
        "threads": limits.max_threads // threads,
        "blocks": limits.max_blocks,
        "registers": limits.registers // (regs_per_warp * num_warps),
    }
    if shared:
        by["shared memory"] = limits.shared // (shared + limits.reserved_shared_per_block)
    limiter = min(by, key=lambda k: by[k])
    blocks = by[limiter]
    return blocks, blocks * num_warps, limiter


def findings(variant: Variant, smap: SourceMap | None = None) -> list[Finding]:
    """The findings for ``variant`` (from its PTX, resources and config)."""
    if Stage.PTX not in variant.listings:
        return []
    text = variant.listings[Stage.PTX]
    smap = smap or SourceMap(variant)
    instructions = ptx_ir.instructions(text)
    stats = stage_stats(Stage.PTX, text)
    out: list[Finding] = []
    out += _vectorization(variant, stats, smap)
    out += _masking(stats)
    out += _spills(variant, instructions)
    out += _occupancy(variant)
    out += _shared_memory(variant, instructions)
    out += _async_copies(instructions)
    out += _tensor_cores(instructions, variant)
    out += _hot_lines(variant, stats, smap)
    return out


def _vectorization(variant: Variant, stats, smap: SourceMap) -> list[Finding]:
    out = []
    for kind in ("load", "store"):
        accesses = [a for a in stats.global_accesses if a.kind == kind]
        if not accesses:
            continue
        widths = Counter(a.bytes for a in accesses)
        widest = max(b for b in widths if b) if any(widths) else None
        mix = ", ".join(f"{op} x{n}" for op, n in Counter(a.opcode for a in accesses).most_common())
        lines = tuple(a.index for a in accesses)
        if widest is not None and widest >= 16:
            out.append(Finding("vectorization", "info", f"global {kind}s are vectorised: {widest} bytes per thread",
                               f"{mix}. Each thread moves {widest} contiguous bytes per instruction, the widest "
                               "global access there is.", Stage.PTX, lines))
            continue
        element = _element_bytes(accesses)
        reasons = _scalar_reasons(variant)
        detail = f"{mix}. Each thread moves {widest or element} bytes per instruction; 16 would be the widest."
        if reasons:
            detail += " " + reasons
        out.append(Finding("vectorization", "warn", f"global {kind}s are not vectorised ({widest} bytes per thread)",
                           detail, Stage.PTX, lines))
    return out


def _element_bytes(accesses) -> int:
    return min((a.bytes for a in accesses if a.bytes), default=4)


# %row_3 = tt.load %input_ptrs_1, %row_2, %cst : tensor<1024x!tt.ptr<f32>, #blocked>
TTGIR_MEMORY_SHAPE = re.compile(r"\btt\.(?:load|store)\b.*:\s*tensor<(?P<dims>[\dx]+)x!tt\.ptr")


def _scalar_reasons(variant: Variant) -> str:
    """Why accesses are likely scalar, and what to try, from the specialization the compile saw."""
    info = variant.compile_info
    if info is None:
        return ""
    ttgir = variant.listings.get(Stage.TTGIR, "")
    elements = [math.prod(int(d) for d in m.group("dims").split("x")) for m in TTGIR_MEMORY_SHAPE.finditer(ttgir)]
    threads = info.threads_per_block
    if elements and threads and max(elements) <= threads:
        return (f"Each access covers {max(elements)} elements and the block has {threads} threads: one element per "
                "thread. A larger BLOCK_SIZE or fewer warps give each thread several contiguous elements, which can "
                "become one wide access.")
    unknown = [name for name, ty in info.signature.items() if ty != "constexpr" and name not in info.divisible_by_16]
    pointers = [n for n in unknown if info.signature[n].startswith("*")]
    ints = [n for n in unknown if not info.signature[n].startswith("*")]
    parts = []
    if pointers:
        parts.append(f"the compiler cannot prove {', '.join(pointers)} 16-byte aligned")
    if ints:
        parts.append(f"{', '.join(ints)} {'is' if len(ints) == 1 else 'are'} not known to be multiples of 16 "
                     "(addresses offset by them, and masks compared against them, may not form 16-byte runs)")
    if not parts:
        return ""
    return ("Each thread has several elements, but likely " + "; ".join(parts) + ". Try: sizes and strides that are "
            "multiples of 16 (pad rows), 16-byte aligned tensors, or tell the compiler what it cannot see with "
            "tl.multiple_of / tl.max_contiguous.")


def _masking(stats) -> list[Finding]:
    masked = [a for a in stats.global_accesses if a.predicated]
    if not masked:
        return []
    return [Finding("masking", "info", f"{len(masked)} of {len(stats.global_accesses)} global accesses are masked",
                    "Predicated (@%p) loads and stores come from mask= in tl.load/tl.store: threads whose predicate "
                    "is false skip the access. Masks cost a compare per access and, when the bound is not known to "
                    "be a multiple of the vector width, keep accesses narrow.", Stage.PTX,
                    tuple(a.index for a in masked))]


def _spills(variant: Variant, instructions) -> list[Finding]:
    r = variant.resources
    local = [i.index for i in instructions if i.opcode.startswith(("ld.local", "st.local"))]
    spilled = (r.spill_stores or 0) + (r.spill_loads or 0) if r else 0
    if not spilled and not local:
        return []
    detail = (f"ptxas reports {r.spill_stores or 0} bytes of spill stores and {r.spill_loads or 0} bytes of spill "
              f"loads with {r.registers} registers per thread" if r else "")
    if local:
        detail += f"; the PTX itself has {len(local)} local-memory accesses (ld.local/st.local)"
    detail += (". Spilled values live in local memory (DRAM, cached in L1/L2): expect extra memory traffic. "
               "Fewer elements per thread (smaller blocks, more warps) lowers register pressure.")
    return [Finding("spills", "warn", f"registers spill to local memory ({spilled} bytes)", detail, Stage.PTX,
                    tuple(local))]


def _occupancy(variant: Variant) -> list[Finding]:
    r, info = variant.resources, variant.compile_info
    if r is None or info is None or not r.registers or not info.threads_per_block:
        return []
    threads = info.threads_per_block
    capability = int(variant.arch.removeprefix("sm_"))
    limits = SM_LIMITS.get(capability, SM_LIMITS[90])
    blocks, warps, limiter = occupancy(capability, r.registers, threads // 32, r.shared)
    max_warps = limits.max_threads // 32
    pct = 100 * warps / max_warps
    severity = "warn" if pct < 25 else "info"
    if warps == max_warps:
        return [Finding("occupancy", "info", f"full occupancy: {warps} warps per SM",
                        f"{r.registers} registers per thread x {threads} threads per block: {blocks} blocks "
                        f"fill all {max_warps} warp slots of a {variant.arch} SM.", Stage.PTX)]
    detail = (f"{r.registers} registers per thread x {threads} threads"
              + (f", {r.shared} bytes of shared memory" if r.shared else "")
              + f" per block: {blocks} blocks ({warps} of {max_warps} warps) fit on one {variant.arch} SM, "
              f"limited by {limiter}.")
    if limiter == "registers":
        detail += " Fewer registers per thread (smaller tiles, fewer elements per thread) would fit more warps."
    return [Finding("occupancy", severity, f"occupancy {pct:.0f}%: {warps} warps per SM, limited by {limiter}",
                    detail, Stage.PTX)]


def _shared_memory(variant: Variant, instructions) -> list[Finding]:
    shared_ops = [i.index for i in instructions if i.space == "shared" and i.base in ("ld", "st", "ldmatrix", "stmatrix")]
    barriers = [i.index for i in instructions if i.base in ("bar", "barrier") or i.opcode.startswith("mbarrier")]
    shared = variant.resources.shared if variant.resources else 0
    if not shared and not shared_ops and not barriers:
        return []
    detail = (f"{shared} bytes of dynamic shared memory per block; {len(shared_ops)} shared-memory loads/stores and "
              f"{len(barriers)} barriers in the PTX.")
    if barriers:
        detail += " Each bar.sync makes every warp of the block wait for the others."
    return [Finding("shared-memory", "info", f"uses {shared} B of shared memory and {len(barriers)} barriers", detail,
                    Stage.PTX, tuple(sorted(shared_ops + barriers)))]


def _async_copies(instructions) -> list[Finding]:
    cp_async = [i.index for i in instructions if i.opcode.startswith("cp.async") and not i.opcode.startswith("cp.async.bulk")]
    bulk = [i.index for i in instructions if i.opcode.startswith(("cp.async.bulk", "cp.reduce.async.bulk"))]
    out = []
    if cp_async:
        out.append(Finding("async-copy", "info", f"{len(cp_async)} asynchronous copies (cp.async)",
                           "Global-to-shared copies that run while the warp computes (Ampere-style software "
                           "pipelining; num_stages buffers in flight); cp.async.wait_group waits for them.",
                           Stage.PTX, tuple(cp_async)))
    if bulk:
        out.append(Finding("async-copy", "info", f"{len(bulk)} bulk asynchronous copies (TMA)",
                           "cp.async.bulk moves whole tiles with the Tensor Memory Accelerator, tracked by mbarriers.",
                           Stage.PTX, tuple(bulk)))
    return out


SHAPE = re.compile(r"^m\d+n\d+k\d+$")


def _tensor_cores(instructions, variant: Variant) -> list[Finding]:
    mma = [i for i in instructions if i.base in ("mma", "wgmma") and any(SHAPE.match(m) for m in i.modifiers)]
    if not mma:
        return []
    shapes = Counter()
    for i in mma:
        shape = next(m for m in i.modifiers if SHAPE.match(m))
        types = ".".join(m for m in i.modifiers if re.match(r"^(f|bf|s|u|e\d)\d*", m) and not m.startswith("sync"))
        shapes[f"{i.base} {shape} {types}".strip()] += 1
    kinds = "; ".join(f"{k} x{n}" for k, n in shapes.most_common())
    detail = (f"{kinds}. " + ("wgmma is Hopper's warpgroup-wide asynchronous MMA (4 warps, operands from shared memory)."
                              if any(i.base == "wgmma" for i in mma) else
                              "mma.sync is a warp-wide matrix multiply-accumulate on the tensor cores."))
    return [Finding("tensor-cores", "info", f"tensor cores: {len(mma)} MMA instructions", detail, Stage.PTX,
                    tuple(i.index for i in mma))]


def _hot_lines(variant: Variant, stats, smap: SourceMap, top: int = 5) -> list[Finding]:
    own = smap.own_lines(Stage.PTX)
    per_line = Counter(own[i] for i, _ in stats.instructions if i < len(own) and own[i])
    if not per_line:
        return []
    total = sum(per_line.values())
    python = variant.listings.get(Stage.SOURCE, "").splitlines()
    rows = []
    for line, count in per_line.most_common(top):
        source = python[line - 1].strip() if 0 < line <= len(python) else ""
        rows.append(f"line {line} ({count}, {100 * count / total:.0f}%): {source[:60]}")
    hottest = per_line.most_common(1)[0][0]
    lines = tuple(i for i, _ in stats.instructions if i < len(own) and own[i] == hottest)
    return [Finding("hot-lines", "info", f"instruction mix per Python line: line {hottest} costs the most",
                    f"{total} PTX instructions with a source line. " + "; ".join(rows), Stage.PTX, lines)]
