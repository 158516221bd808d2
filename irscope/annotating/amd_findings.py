"""What an AMDGCN listing says about its kernel: findings that cite lines of the AMDGCN itself.

The width of each global access per Python line (``buffer_load_dwordx4``: 16 bytes per lane), LDS use
(``ds_`` reads and writes, workgroup barriers), how many waves fit on a SIMD as the VGPRs allow
(amd_occupancy.py, LLVM's rule), spills to scratch (the HSACO's metadata, and the ``scratch_`` or
spill-marked ``buffer_`` lines), and the matrix cores (``v_mfma``/``v_wmma`` with their tile shapes).
"""

from __future__ import annotations

from collections import Counter, defaultdict

from ..arch import wave_size
from ..ir import amdgcn
from ..ir.sourcemap import SourceMap
from ..types import Stage, Variant
from .amd_lds_banks import lds_bank_finding
from .amd_occupancy import SimdOccupancy, simd_occupancy
from .amdgcn_decode import matrix_shape
from .finding import Finding
from .redundancy import redundancy_finding
from .widths import one_value_lines

WIDEST = 16  # bytes per lane of the widest global access (dwordx4, b128)


def amdgcn_findings(variant: Variant, smap: SourceMap) -> list[Finding]:
    text = variant.listings.get(Stage.AMDGCN, "")
    ops = amdgcn.memory_ops(text)
    out: list[Finding] = []
    out += _vectorization(variant, ops, smap)
    out += _lds(variant, ops, amdgcn.barriers(text))
    out += lds_bank_finding(variant)
    out += _occupancy(variant)
    out += _spills(variant, ops, text)
    out += _matrix(amdgcn.instructions(text))
    out += redundancy_finding(variant, smap, Stage.AMDGCN)
    return out


def _per_python_line(variant: Variant, ops: list[amdgcn.MemoryOp], smap: SourceMap) -> list[str]:
    """``line 9 (tl.load(...)): buffer_load_dwordx4 x2 (16 B)``, one row per Python line with accesses."""
    own = smap.own_lines(Stage.AMDGCN)
    by_line: dict[int, Counter] = defaultdict(Counter)
    for op in ops:
        line = own[op.index] if op.index < len(own) else None
        by_line[line or 0][(op.opcode, op.bytes)] += 1
    python = variant.listings.get(Stage.SOURCE, "").splitlines()
    rows = []
    for line in sorted(by_line):
        mix = ", ".join(f"{code} x{n} ({width or '?'} B)" for (code, width), n in by_line[line].most_common())
        where = f"line {line}" if line else "no source line"
        if 0 < line <= len(python):
            where += f" ({python[line - 1].strip()[:50]})"
        rows.append(f"{where}: {mix}")
    return rows


def _vectorization(variant: Variant, ops: list[amdgcn.MemoryOp], smap: SourceMap) -> list[Finding]:
    out = []
    own = smap.own_lines(Stage.AMDGCN)
    scalar_lines = one_value_lines(variant, smap)
    for kind in ("load", "store"):
        every = [op for op in ops if op.space == "global" and op.kind == kind]
        scalars = [op for op in every if op.index < len(own) and own[op.index] in scalar_lines]
        accesses = [op for op in every if op not in scalars]
        aside = ""
        if scalars:
            lines = sorted({line for op in scalars if (line := own[op.index])})
            aside = (
                f" Not counted: {len(scalars)} access{'es' if len(scalars) != 1 else ''} of one value per "
                f"program (a scalar tl.load or tl.store, Python line{'s' if len(lines) != 1 else ''} "
                f"{', '.join(map(str, lines))}): every lane uses the same address, and the width is the value's "
                f"({', '.join(_per_python_line(variant, scalars, smap))})."
            )
        if not accesses:
            if scalars:
                rows = _per_python_line(variant, scalars, smap)
                out.append(
                    Finding(
                        "vectorization",
                        "info",
                        f"global {kind}s move one value per program",
                        aside.strip(),
                        Stage.AMDGCN,
                        tuple(op.index for op in scalars),
                        tuple(rows),
                    )
                )
            continue
        rows = _per_python_line(variant, accesses, smap)
        widths = sorted({op.bytes for op in accesses if op.bytes})
        narrow = [op for op in accesses if (op.bytes or 0) < WIDEST]
        lane = f"a {variant.arch} wave of {wave_size(variant.arch)} lanes"
        if not narrow:
            title, severity, cited = f"global {kind}s are vectorised: {WIDEST} bytes per lane", "info", accesses
            words = f"Each lane moves {WIDEST} contiguous bytes per instruction (dwordx4/b128), the widest there is"
        elif len(narrow) < len(accesses):
            title, severity, cited = (
                f"global {kind}s mix widths: {', '.join(f'{w} B' for w in widths)} per lane",
                "warn",
                narrow,
            )
            words = (
                f"The narrow accesses (lines cited) move fewer than {WIDEST} bytes per lane; they are the ones to widen"
            )
        else:
            title = f"global {kind}s are not vectorised ({widths[-1] if widths else '?'} bytes per lane)"
            severity, cited = "warn", accesses
            words = (
                f"Each lane moves {widths[-1] if widths else '?'} bytes per instruction; {WIDEST} would be the widest"
            )
        detail = f"{words}, for {lane}. Per Python line: " + "; ".join(rows) + "." + aside
        out.append(
            Finding(
                "vectorization", severity, title, detail, Stage.AMDGCN, tuple(op.index for op in cited), tuple(rows)
            )
        )
    return out


def _lds(variant: Variant, ops: list[amdgcn.MemoryOp], barriers: list[int]) -> list[Finding]:
    lds_bytes = variant.resources.shared if variant.resources else 0
    accesses = [op for op in ops if op.space == "lds"]
    if not lds_bytes and not accesses and not barriers:
        return []
    reads = Counter((op.opcode, op.bytes) for op in accesses if op.kind == "load")
    writes = Counter((op.opcode, op.bytes) for op in accesses if op.kind == "store")

    def mix(counter: Counter) -> str:
        return ", ".join(f"{code} x{n} ({width or '?'} B)" for (code, width), n in counter.most_common()) or "none"

    title = (
        f"uses {lds_bytes or 0} B of LDS per workgroup and {len(barriers)} barrier{'s' if len(barriers) != 1 else ''}"
    )
    detail = (
        f"LDS (the workgroup's shared memory, as Triton requests it at launch plus any static part): "
        f"{lds_bytes or 0} bytes. Reads: {mix(reads)}. Writes: {mix(writes)}. "
        f"{len(barriers)} workgroup barrier{'s' if len(barriers) != 1 else ''} (s_barrier): every wave of the "
        "workgroup waits there for the others. The bank pattern, where the addresses are proven, is its own finding."
    )
    evidence = (
        f"{lds_bytes or 0} B LDS",
        f"{sum(reads.values())} ds_ reads",
        f"{sum(writes.values())} ds_ writes",
        f"{len(barriers)} barriers",
    )
    lines = tuple(sorted([op.index for op in accesses] + barriers))
    return [Finding("shared-memory", "info", title, detail, Stage.AMDGCN, lines, evidence)]


def _occupancy(variant: Variant) -> list[Finding]:
    r, info = variant.resources, variant.compile_info
    if r is None or info is None or not info.threads_per_block:
        return []
    lanes = wave_size(variant.arch)
    occ = simd_occupancy(
        variant.arch,
        lanes,
        info.threads_per_block,
        r.registers or 0,
        r.sgprs or 0,
        r.shared or 0,
        int(info.options.get("waves_per_eu") or 0),
    )
    if occ is None:
        return []
    limits = occ.limits()
    evidence = (
        f"{occ.vgprs} VGPRs",
        f"{occ.sgprs} SGPRs",
        f"{occ.lds} B LDS",
        f"{_count(occ.waves_per_group, 'wave')} per workgroup",
        f"{occ.waves} waves per SIMD",
    )
    detail = " ".join(_occupancy_rules(variant, occ)) + " (LLVM's rules: AMDGPUBaseInfo.cpp, AMDGPUSubtarget.cpp.)"
    if not limits:
        title = f"all {occ.waves} waves per SIMD fit: no resource limits occupancy"
        return [Finding("occupancy", "info", title, detail, Stage.AMDGCN, (), evidence)]
    more = occ.vgprs_for(occ.waves + 1)
    if "VGPRs" in limits:
        detail += f" For {occ.waves + 1} waves: at most {more} VGPRs per lane (smaller tiles, fewer values per lane)."
    if "LDS" in limits:
        room = occ.cu.lds // (occ.lds_groups() + 1)  # LDS binds: its workgroups are the CU's
        place = "CU" if occ.cu.sgpr_table else "WGP"
        detail += f" For one more workgroup per {place}: at most {room} B of LDS each (smaller tiles or fewer stages)."
    severity = "warn" if occ.waves * 4 <= occ.cu.max_waves else "info"
    title = f"{occ.waves} of {occ.cu.max_waves} waves per SIMD, limited by {' and '.join(limits)}"
    return [Finding("occupancy", severity, title, detail, Stage.AMDGCN, (), evidence)]


def _occupancy_rules(variant: Variant, occ: SimdOccupancy) -> list[str]:
    """One sentence per resource: what it allows, in waves per SIMD."""
    cu, arch, r = occ.cu, variant.arch, variant.resources
    agprs = f" ({r.agprs} of them AGPRs)" if r and r.agprs else ""
    allocated = -(-occ.vgprs // cu.granule) * cu.granule
    place = "CU" if cu.sgpr_table else "WGP"
    rules = [
        f"VGPRs: {occ.vgprs} per lane{agprs}, allocated in units of {cu.granule}: {allocated}; a {arch} SIMD's "
        f"file of {cu.vgprs} holds {occ.vgpr_limit} such waves (at most {cu.max_waves}).",
    ]
    if cu.sgpr_table:
        rules.append(f"SGPRs: {occ.sgprs}, which allow {occ.sgpr_limit} waves.")
    groups = occ.lds_groups()
    if occ.lds:
        rules.append(
            f"LDS: each workgroup of {_count(occ.waves_per_group, 'wave')} asks {occ.lds} B; a {place}'s {cu.lds // 1024} KiB "
            f"holds {groups} of them"
            + (f", {groups * occ.waves_per_group} waves over {cu.simds} SIMDs" if groups else "")
            + f": {occ.lds_limit} per SIMD."
        )
    rules.append(
        f"Workgroup size: {occ.threads} threads, {_count(occ.waves_per_group, 'wave')} of {occ.wave_size}; a {place}'s "
        f"{cu.wave_slots} wave slots and {cu.barriers} barriers allow {occ.size_limit} waves per SIMD."
    )
    if occ.waves_per_eu:
        rules.append(f"waves_per_eu={occ.waves_per_eu}: LLVM holds the kernel to {occ.request_limit} waves per SIMD.")
    return rules


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}{'' if n == 1 else 's'}"


def _spills(variant: Variant, ops: list[amdgcn.MemoryOp], text: str) -> list[Finding]:
    """Spills as the code object's metadata counts them, told apart by where they go: VGPRs (and SGPRs
    with no lane to go to) to scratch, memory; SGPRs into lanes of a VGPR (``v_writelane_b32 v81, s0, 0``,
    read back by ``v_readlane_b32``), which is no memory at all: LLVM's SILowerSGPRSpills."""
    r = variant.resources
    scratch = [op for op in ops if op.space == "scratch"]
    spilled = (r.vgpr_spills or 0) + (r.sgpr_spills or 0) if r else 0
    if not spilled and not scratch and not (r and r.scratch):
        return []
    # v_writelane/v_readlane serve other ends too (a value kept across lanes): spills only where SGPRs spilled
    lanes = amdgcn.lane_spills(text) if r and r.sgpr_spills else amdgcn.LaneSpills(0, 0, (), ())
    stores = sum(1 for op in scratch if op.kind == "store")
    parts = [
        f"The code object's metadata: {r.vgpr_spills if r else '?'} VGPRs and {r.sgpr_spills if r else '?'} SGPRs "
        f"spilled, {r.scratch if r else '?'} bytes of scratch per lane."
    ]
    if lanes.writes:
        parts.append(
            f"The AMDGCN writes {lanes.writes} SGPR values into lanes of {len(lanes.holders)} VGPR"
            f"{'s' if len(lanes.holders) != 1 else ''} ({', '.join(lanes.holders)}: v_writelane_b32) and reads "
            f"{lanes.reads} back (v_readlane_b32): a spill of an SGPR into a VGPR lane costs one instruction "
            "and no memory traffic, and the VGPRs that hold them count against occupancy."
        )
    if scratch or (r and r.scratch):
        parts.append(
            f"{len(scratch)} scratch accesses ({stores} spill stores, {len(scratch) - stores} reloads): scratch "
            "is per-lane memory in HBM, cached, and each spill there costs a memory round trip. Fewer values per "
            "lane (smaller blocks, more warps) or a looser waves_per_eu lowers the pressure."
        )
    memory = bool(scratch or (r and r.scratch))
    if memory:
        title = f"registers spill to scratch ({r.scratch if r else '?'} bytes per lane)"
    else:
        title = f"{r.sgpr_spills if r else lanes.writes} SGPRs spill into VGPR lanes: no scratch, no memory traffic"
    evidence = (
        f"{spilled} registers spilled",
        f"{r.scratch if r else 0} B scratch",
        f"{len(scratch)} scratch accesses",
        f"{lanes.writes} v_writelane_b32, {lanes.reads} v_readlane_b32",
    )
    lines = tuple(sorted({op.index for op in scratch} | set(lanes.lines)))
    return [Finding("spills", "warn" if memory else "info", title, " ".join(parts), Stage.AMDGCN, lines, evidence)]


def _matrix(instructions: list[tuple[int, str]]) -> list[Finding]:
    found = [(i, op, shape) for i, op in instructions if (shape := matrix_shape(op)) is not None]
    if not found:
        return []
    kinds = Counter(op for _, op, _ in found)
    shapes = {op: shape for _, op, shape in found}
    rows = tuple(f"{op} x{n}: {shapes[op].words()}" for op, n in kinds.most_common())
    unit = "MFMA (CDNA matrix cores)" if any(s.kind in ("mfma", "smfmac") for _, _, s in found) else "WMMA (RDNA)"
    macs = sum(s.macs for _, _, s in found)
    detail = (
        f"{'; '.join(rows)}. Each instruction is a whole wave's matrix multiply-accumulate on the {unit}; "
        f"{macs} multiply-adds per pass through these lines."
    )
    title = f"matrix cores: {len(found)} {unit.split()[0]} instructions"
    return [Finding("tensor-cores", "info", title, detail, Stage.AMDGCN, tuple(i for i, _, _ in found), rows)]
