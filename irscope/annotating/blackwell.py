"""Blackwell's new resources, as the PTX and the TTGIR show them: tensor memory, two-CTA MMAs, cluster
launches, warp-specialised partitions, and the global scratch a device-side TMA descriptor needs.

- **Tensor memory** (PTX ISA 9.7.16.2): ``tcgen05.alloc.cta_group::N ... [addr], COLUMNS`` allocates
  COLUMNS 32-bit columns of the SM's 512 in each of its 128 lanes; ``tcgen05.dealloc`` frees them. Two
  blocks whose allocations together pass 512 columns cannot hold tensor memory at the same time.
- **Two-CTA MMA**: ``tcgen05.mma.cta_group::2`` is one MMA issued for a pair of CTAs of a cluster, each
  holding half the operands and accumulator (``cta_group::1``: one CTA's own).
- **Cluster launch**: ``.reqnctapercluster N`` (and ``.explicitcluster``) in the PTX: the kernel must be
  launched in clusters of N CTAs, scheduled together on one GPC (Triton's ``num_ctas``).
- **Warp specialisation**: the TTGIR's ``ttg.warp_specialize`` with its ``partitionK(...) num_warps(W)``
  regions beside the default partition, and the registers each asks for (``requestedRegisters``, the
  PTX's ``setmaxnreg``); the block then has ``.reqntid`` threads, more than ``num_warps`` x 32.
- **Global scratch**: a ``tl.make_tensor_descriptor`` built in the kernel writes its 128-byte TMA descriptor
  to global memory: the TTGIR's ``ttg.global_scratch_alloc {nbytes = 128}``, summed over a program, is the
  scratch Triton asks the launcher for (``metadata.global_scratch_size``) through the allocator
  ``triton.set_allocator`` installs; without one the launch fails.
"""

from __future__ import annotations

import re

from ..ir import ptx as ptx_ir
from ..types import Stage, Variant
from .finding import Finding

TMEM_COLUMNS = 512
# @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r10], 128;
ALLOC = re.compile(r"^tcgen05\.alloc\.cta_group::(\d)")
REQNTID = re.compile(r"^\s*\.reqntid\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?", re.M)
# partition0(%b_26: ...) num_warps(1) {
PARTITION = re.compile(r"^\s*partition(\d+)\(.*\)\s+num_warps\((\d+)\)\s*\{", re.M)
REQUESTED = re.compile(r"ttg\.warp_specialize\(.*requestedRegisters = array<i32: ([\d, ]+)>")
NUM_WARPS = re.compile(r'"ttg\.num-warps" = (\d+)')
SCRATCH = re.compile(r"ttg\.global_scratch_alloc \{alignment = (\d+) : i32, nbytes = (\d+) : i32\}")
SETMAXNREG = re.compile(r"setmaxnreg\.(inc|dec)\.sync\.aligned\.u32\s+(\d+)")


def block_threads(ptx: str) -> int | None:
    """The threads a block must have, where the PTX says exactly (``.reqntid``)."""
    m = REQNTID.search(ptx)
    if not m:
        return None
    return int(m[1]) * int(m[2] or 1) * int(m[3] or 1)


def blackwell_findings(variant: Variant, stage: Stage) -> list[Finding]:
    """Findings from the PTX (and TTGIR) of an NVIDIA variant; the SASS shows the same resources, so a SASS
    annotation reports them too, citing no SASS lines."""
    ptx = variant.listings.get(Stage.PTX, "")
    if not ptx:
        return []
    cite = stage == Stage.PTX
    out = []
    out += _tensor_memory(ptx, stage, cite, variant.listings.get(Stage.SASS, "") if stage == Stage.SASS else None)
    out += _cluster(ptx, stage, cite)
    out += _partitions(variant, ptx, stage)
    out += _scratch(variant, stage)
    return out


# UTCHMMA.2CTA gdesc[UR8], gdesc[UR10], tmem[UR7], ...   UTCQMMA gdesc[...], ...
SASS_MMA = re.compile(r"\bUTC\w*MMA((?:\.\w+)*)")


def _tensor_memory(ptx: str, stage: Stage, cite: bool, sass: str | None = None) -> list[Finding]:
    if "tcgen05" not in ptx:
        return []
    instructions = ptx_ir.instructions(ptx)
    constants = ptx_ir.constant_registers(instructions)
    allocs: list[tuple[int, int, int | None]] = []
    mmas: dict[str, list[int]] = {"1": [], "2": []}
    for ins in instructions:
        if ins.base != "tcgen05":
            continue
        m = ALLOC.match(ins.opcode)
        if m and len(ins.operands) >= 2:
            columns = ptx_ir._int(ins.operands[1]) or constants.get(ins.operands[1].strip())
            allocs.append((ins.index, int(m[1]), columns))
        elif ins.opcode.startswith("tcgen05.mma"):
            group = re.search(r"cta_group::(\d)", ins.opcode)
            mmas[group[1] if group else "1"].append(ins.index)
    if not allocs and not mmas["1"] and not mmas["2"]:
        return []
    out = []
    if allocs:
        known = [c for _, _, c in allocs if c]
        total = sum(known)
        groups = sorted({g for _, g, _ in allocs})
        per_block = total if len(known) == len(allocs) else None
        fit = f"; {TMEM_COLUMNS // per_block} such blocks can hold tensor memory on one SM at once" if per_block else ""
        title = (
            f"tensor memory: {total if per_block else '?'} of {TMEM_COLUMNS} columns allocated "
            f"({len(allocs)} tcgen05.alloc, cta_group::{'/'.join(map(str, groups))})"
        )
        detail = (
            f"tcgen05.alloc asks for {', '.join(str(c or '?') for _, _, c in allocs)} columns: each column is 32 "
            f"bits in each of the SM's 128 lanes, {TMEM_COLUMNS} columns in all{fit}. The accumulator of a tcgen05 "
            "MMA lives there, not in registers."
        )
        lines = tuple(i for i, _, _ in allocs) if cite else ()
        out.append(
            Finding("tensor-memory", "info", title, detail, stage, lines, tuple(f"{c} columns" for _, _, c in allocs))
        )
    if sass is not None:  # the SASS's own MMAs: UTCHMMA.2CTA for a pair of CTAs
        mmas = {"1": [], "2": []}
        for n, line in enumerate(sass.split("\n")):
            m = SASS_MMA.search(line)
            if m and "/*" in line:
                mmas["2" if ".2CTA" in m[1] else "1"].append(n)
        cite = True
    if mmas["2"]:
        lines = tuple(mmas["2"]) if cite else ()
        out.append(
            Finding(
                "tensor-memory",
                "info",
                f"two-CTA MMA: {len(mmas['2'])} "
                + ("UTC*MMA.2CTA" if sass is not None else "tcgen05.mma.cta_group::2"),
                f"{len(mmas['2'])} MMAs issued for a pair of CTAs of a cluster: each CTA holds half of A, of the "
                f"accumulator in its tensor memory, and shares B ({len(mmas['1'])} single-CTA MMAs beside them). "
                "The kernel must be launched in clusters of (a multiple of) 2.",
                stage,
                lines,
                (f"{len(mmas['2'])} cta_group::2", f"{len(mmas['1'])} cta_group::1"),
            )
        )
    return out


def _cluster(ptx: str, stage: Stage, cite: bool) -> list[Finding]:
    found = ptx_ir.cluster_directive(ptx)
    if found is None:
        return []
    m, dims = found
    ctas = dims[0] * dims[1] * dims[2]
    explicit = ".explicitcluster" in ptx
    line = ptx[: m.start(1)].count("\n")
    return [
        Finding(
            "cluster",
            "info",
            f"cluster launch: {ctas} CTAs per cluster ({' x '.join(map(str, dims))})",
            f"The PTX requires clusters of {' x '.join(map(str, dims))} CTAs (.reqnctapercluster"
            + (", .explicitcluster" if explicit else "")
            + "): the CTAs of a cluster run at once on one GPC and may read each other's shared memory "
            "(distributed shared memory, TMA multicast). A launch without that cluster shape fails.",
            stage,
            (line,) if cite else (),
            (f".reqnctapercluster {', '.join(map(str, dims))}",),
        )
    ]


def _partitions(variant: Variant, ptx: str, stage: Stage) -> list[Finding]:
    ttgir = variant.listings.get(Stage.TTGIR, "")
    parts = PARTITION.findall(ttgir)
    if not parts:
        return []
    default = NUM_WARPS.search(ttgir)
    default_warps = int(default[1]) if default else None
    requested = REQUESTED.search(ttgir)
    registers = [int(x) for x in requested[1].split(",")] if requested else []
    threads = block_threads(ptx)
    rows = [f"default: {default_warps} warps"] if default_warps else []
    for k, (index, warps) in enumerate(parts):
        row = f"partition {index}: {warps} warp{'s' if warps != '1' else ''}"
        if k < len(registers):
            row += f", {registers[k]} registers a thread"
        rows.append(row)
    moves = sorted({f"{d} {n}" for d, n in SETMAXNREG.findall(ptx)})
    detail = (
        f"The TTGIR splits the loop into {len(parts) + 1} partitions (ttg.warp_specialize): {'; '.join(rows)}. "
        "Each partition's warps run their own part (loads, MMAs, the epilogue), handing tiles on through mbarriers."
    )
    if threads:
        detail += (
            f" The block runs {threads} threads (the PTX's .reqntid), not num_warps x 32"
            + (f" = {default_warps * 32}" if default_warps else "")
            + ": occupancy counts them all."
        )
    if moves:
        detail += f" setmaxnreg moves registers between them: {', '.join(moves)}."
    return [
        Finding(
            "warp-specialization",
            "info",
            f"warp-specialised: {len(parts) + 1} partitions" + (f", {threads} threads a block" if threads else ""),
            detail,
            stage,
            (),
            tuple(rows),
        )
    ]


def _scratch(variant: Variant, stage: Stage) -> list[Finding]:
    allocs = SCRATCH.findall(variant.listings.get(Stage.TTGIR, ""))
    if not allocs:
        return []
    total = sum(int(n) for _, n in allocs)
    return [
        Finding(
            "global-scratch",
            "info",
            f"device-side TMA descriptors: {total} B of global scratch a program",
            f"{len(allocs)} tensor descriptor{'s' if len(allocs) != 1 else ''} built in the kernel "
            f"(tl.make_tensor_descriptor): each writes its TMA descriptor ({', '.join(n + ' B' for _, n in allocs)}, "
            f"aligned to {max(int(a) for a, _ in allocs)} B) to global memory (ttg.global_scratch_alloc). Triton "
            f"asks the launcher for {total} B a program (its metadata's global_scratch_size) from the allocator "
            "set with triton.set_allocator; launching without one fails. A descriptor made on the host "
            "(TensorDescriptor) needs none.",
            stage,
            (),
            (f"{total} B global scratch", f"{len(allocs)} ttg.global_scratch_alloc"),
        )
    ]
