"""What a kernel's PTX or SASS says about it, as a short list of findings, each pointing at lines of that
same stage and naming the evidence it rests on.

The questions a kernel engineer asks first of a listing: are the global loads vectorised (and if not,
why not), which accesses are masked, does it spill, how many warps fit on an SM and what limits them,
does it use shared memory, barriers, asynchronous copies (and on Hopper, TMA), tensor cores,
reductions across a warp, and which Python lines cost the most instructions. Each finding is computed
from the stage's own instructions (facts.py): a SASS finding cites SASS lines.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from ..arch import Vendor, capability_of
from ..ir.dialects import DIALECTS
from ..ir.sourcemap import SourceMap
from ..ir.stats import byte_shares
from ..types import Stage, Variant
from .amd_findings import amdgcn_findings
from .facts import StageFacts, stage_facts
from .finding import Finding
from .occupancy import Occupancy, occupancy
from .reductions import Reductions, reductions


def findings(variant: Variant, stage: Stage = Stage.PTX, smap: SourceMap | None = None) -> list[Finding]:
    """The findings for ``variant`` from its ``stage`` (PTX, SASS or AMDGCN), its resources and its config."""
    if stage == Stage.AMDGCN and stage in variant.listings:
        return amdgcn_findings(variant, smap or SourceMap(variant))
    if stage not in (Stage.PTX, Stage.SASS) or stage not in variant.listings:
        return []
    facts = stage_facts(stage, variant.listings[stage])
    assert facts is not None
    smap = smap or SourceMap(variant)
    out: list[Finding] = []
    out += _vectorization(variant, facts, smap)
    out += _masking(variant, facts)
    out += _spills(variant, facts)
    out += _occupancy(variant, stage)
    out += _shared_memory(variant, facts)
    out += _async_copies(variant, facts)
    out += _tensor_cores(facts)
    out += _reductions(variant, facts, smap)
    out += _hot_lines(variant, facts, smap)
    return out


def _width_rows(accesses) -> tuple[list[str], dict[int, float]]:
    """``["ld.global.v4.b32 x2 (16 B)", ...]`` and each width's share of the bytes moved."""
    per_opcode = Counter((i.opcode, a.bytes) for i, a in accesses)
    rows = [f"{op} x{n} ({width or '?'} B)" for (op, width), n in per_opcode.most_common()]
    return rows, byte_shares(a.bytes for _, a in accesses)


def _vectorization(variant: Variant, facts: StageFacts, smap: SourceMap) -> list[Finding]:
    out = []
    for kind in ("load", "store"):
        accesses = facts.global_accesses(kind)
        if not accesses:
            continue
        rows, shares = _width_rows(accesses)
        widths = sorted({a.bytes for _, a in accesses if a.bytes}, reverse=True)
        mix = ", ".join(rows) + _generic_words(accesses, facts.stage)
        space = _space_of(accesses)
        if widths and widths[-1] >= 16:
            out.append(
                Finding(
                    "vectorization",
                    "info",
                    f"{space} {kind}s are vectorised: {widths[0]} bytes per thread",
                    f"{mix}. Each thread moves {widths[0]} contiguous bytes per instruction, the widest "
                    "global access there is.",
                    facts.stage,
                    tuple(i.index for i, _ in accesses),
                    tuple(rows),
                )
            )
            continue
        narrow = [(i, a) for i, a in accesses if (a.bytes or 0) < 16]
        reasons = _reasons_for(variant, smap, facts.stage, [i.index for i, _ in narrow])
        if widths and widths[0] >= 16:
            share = ", ".join(f"{w} B {100 * s:.0f}%" for w, s in shares.items())
            detail = (
                f"{mix}. Of the bytes each thread moves, {share}: the narrow accesses (lines cited) are the ones "
                "to widen."
            )
            if reasons:
                detail += " " + reasons
            out.append(
                Finding(
                    "vectorization",
                    "warn",
                    f"{space} {kind}s mix widths: {share} of the bytes",
                    detail,
                    facts.stage,
                    tuple(i.index for i, _ in narrow),
                    tuple(rows),
                )
            )
            continue
        widest = widths[0] if widths else None
        detail = f"{mix}. Each thread moves {widest or '?'} bytes per instruction; 16 would be the widest."
        if reasons:
            detail += " " + reasons
        out.append(
            Finding(
                "vectorization",
                "warn",
                f"{space} {kind}s are not vectorised ({widest} bytes per thread)",
                detail,
                facts.stage,
                tuple(i.index for i, _ in accesses),
                tuple(rows),
            )
        )
    return out


def _space_of(accesses) -> str:
    spaces = {a.space for _, a in accesses}
    return "global" if spaces == {"global"} else "generic" if spaces == {"generic"} else "global and generic"


def _generic_words(accesses, stage: Stage) -> str:
    generic = sum(1 for _, a in accesses if a.space == "generic")
    if not generic:
        return ""
    names = "ld/st without .global" if stage == Stage.PTX else "LD/ST"
    return (
        f" ({generic} generic: {names}, no state space named; the hardware resolves each address at run "
        "time, and the compiler could not prove the pointer global)"
    )


def _reasons_for(variant: Variant, smap: SourceMap, stage: Stage, lines: list[int]) -> str:
    """Why the accesses at ``lines`` are narrow: one element per thread, or what the compiler could not
    assume about the arguments their addresses come from (reasons.py), for the tl.load/tl.store on the
    same Python lines."""
    info = variant.compile_info
    ttir = variant.listings.get(Stage.TTIR, "")
    if info is None or not ttir:
        return ""
    from .reasons import access_reasons, combined

    elements = _elements_per_access(variant)
    threads = info.threads_per_block
    if elements and threads and max(elements) <= threads:
        return (
            f"Each access covers {max(elements)} elements and the block has {threads} threads: one element per "
            "thread. A larger BLOCK_SIZE or fewer warps give each thread several contiguous elements, which can "
            "become one wide access."
        )
    own = smap.own_lines(stage)
    python_lines = {own[i] for i in lines if i < len(own) and own[i]}
    found = access_reasons(ttir)
    chosen = [r for r in found if not python_lines or smap.source_line(Stage.TTIR, r.line) in python_lines]
    words = combined(chosen or found).words() if (chosen or found) else ""
    return f"Each thread has several elements, but {words}." if words else ""


# %row_3 = tt.load %input_ptrs_1, %row_2, %cst : tensor<1024x!tt.ptr<f32>, #blocked>
TTGIR_MEMORY_SHAPE = re.compile(r"\btt\.(?:load|store)\b.*:\s*tensor<(?P<dims>[\dx]+)x!tt\.ptr")


def _elements_per_access(variant: Variant) -> list[int]:
    ttgir = variant.listings.get(Stage.TTGIR, "")
    return [math.prod(int(d) for d in m.group("dims").split("x")) for m in TTGIR_MEMORY_SHAPE.finditer(ttgir)]


def _masking(variant: Variant, facts: StageFacts) -> list[Finding]:
    accesses = facts.global_accesses()
    masked = [(i, a) for i, a in accesses if a.masked]
    if not masked:
        return []
    zero_fill = [i for i, a in masked if a.asynchronous]
    how = (
        "through cp.async's src-size operand: it reads fewer bytes than it writes"
        if facts.stage == Stage.PTX
        else "LDGSTS's zero-fill predicate, its last operand"
    )
    guard = "@%p" if facts.stage == Stage.PTX else "@P"
    detail = (
        f"Masked accesses come from mask= in tl.load/tl.store: threads whose mask is false skip the access "
        f"(predicated, {guard})"
        if _from_triton(variant)
        else f"Predicated accesses ({guard}) come from a condition around them (an if, a bounds check): threads "
        "whose predicate is false skip the access"
    )
    if zero_fill:
        detail += f" or, for the {len(zero_fill)} asynchronous copies among them, write zeros instead ({how})"
    detail += (
        ". Masks cost a compare per access and, when the bound is not known to be a multiple of the vector "
        "width, keep accesses narrow."
    )
    evidence = (f"{len(masked) - len(zero_fill)} predicated", f"{len(zero_fill)} zero-filling copies")
    return [
        Finding(
            "masking",
            "info",
            f"{len(masked)} of {len(accesses)} global accesses are masked",
            detail,
            facts.stage,
            tuple(i.index for i, _ in masked),
            evidence,
        )
    ]


def _spills(variant: Variant, facts: StageFacts) -> list[Finding]:
    r = variant.resources
    spilled = (r.spill_stores or 0) + (r.spill_loads or 0) if r else 0
    if not spilled and not facts.local:
        return []
    detail = (
        f"ptxas reports {r.spill_stores or 0} bytes of spill stores and {r.spill_loads or 0} bytes of spill "
        f"loads with {r.registers} registers per thread"
        if r
        else ""
    )
    if facts.local:
        names = "ld.local/st.local" if facts.stage == Stage.PTX else "LDL/STL"
        detail += f"; the {facts.stage.value.upper()} has {len(facts.local)} local-memory accesses ({names})"
    detail += (
        ". Spilled values live in local memory (DRAM, cached in L1/L2): expect extra memory traffic. "
        "Fewer elements per thread (smaller blocks, more warps) lowers register pressure."
    )
    return [
        Finding(
            "spills",
            "warn",
            f"registers spill to local memory ({spilled} bytes)",
            detail,
            facts.stage,
            tuple(facts.local),
            (f"{spilled} bytes spilled", f"{len(facts.local)} local accesses"),
        )
    ]


def kernel_occupancy(variant: Variant) -> Occupancy | None:
    r, info = variant.resources, variant.compile_info
    if r is None or info is None or not r.registers or not info.threads_per_block:
        return None
    if variant.vendor is not Vendor.NVIDIA:  # an SM's limits: an AMD SIMD's (VGPRs per wave size) differ
        return None
    return occupancy(capability_of(variant.arch) or 90, r.registers, info.threads_per_block, r.shared or 0)


def _occupancy(variant: Variant, stage: Stage) -> list[Finding]:
    occ = kernel_occupancy(variant)
    if occ is None:
        return []
    evidence = (
        f"{occ.registers} registers per thread",
        f"{occ.threads} threads per block",
        f"{occ.shared} bytes of shared memory per block",
        *(f"{name}: {n} blocks" for name, n in occ.by.items()),
    )
    if occ.blocks == 0:
        why = ", ".join(name for name, n in occ.by.items() if n == 0)
        return [
            Finding(
                "occupancy",
                "warn",
                f"no block fits on one {variant.arch} SM ({why})",
                f"{occ.registers} registers x {occ.threads} threads, {occ.shared} bytes of shared memory per "
                f"block: more than one {variant.arch} SM has.",
                stage,
                (),
                evidence,
            )
        ]
    pct = 100 * occ.warps / occ.max_warps
    shape = (
        f"{occ.registers} registers per thread x {occ.threads} threads"
        + (f", {occ.shared} bytes of shared memory" if occ.shared else "")
        + " per block"
    )
    allowed = ", ".join(f"{name} {n}" for name, n in occ.by.items())
    if occ.warps == occ.max_warps:
        return [
            Finding(
                "occupancy",
                "info",
                f"full occupancy: {occ.warps} warps per SM",
                f"{shape}: {occ.blocks} blocks fill all {occ.max_warps} warp slots of a {variant.arch} SM "
                f"(blocks each limit allows: {allowed}).",
                stage,
                (),
                evidence,
            )
        ]
    binding = occ.binding
    detail = (
        f"{shape}: {occ.blocks} blocks ({occ.warps} of {occ.max_warps} warps) fit on one {variant.arch} SM. "
        f"Blocks each limit allows: {allowed}."
    )
    if len(binding) > 1:
        detail += f" {' and '.join(binding).capitalize()} bind equally: easing only one of them gains nothing."
    detail += " " + _to_fit_one_more(occ)
    severity = "warn" if pct < 25 else "info"
    return [
        Finding(
            "occupancy",
            severity,
            f"occupancy {pct:.0f}%: {occ.warps} warps per SM, limited by {' and '.join(binding)}",
            detail.strip(),
            stage,
            (),
            evidence,
        )
    ]


def _to_fit_one_more(occ: Occupancy) -> str:
    """What would let one more block fit: each binding limit eased to the point where it allows it."""
    more = occ.blocks + 1
    steps = []
    for name in occ.binding:
        if name == "registers":
            regs = occ.registers_for(more)
            if regs:
                steps.append(
                    f"at most {regs} registers per thread (now {occ.registers}: smaller tiles, fewer "
                    "elements per thread, or a register cap)"
                )
        elif name == "shared memory":
            steps.append(
                f"at most {occ.shared_for(more)} bytes of shared memory per block (now {occ.shared}: "
                "smaller tiles or fewer pipeline stages)"
            )
        elif name == "threads":
            steps.append(f"at most {occ.limits.max_threads // more // 32} warps per block (now {occ.warps_per_block})")
        elif name == "blocks":
            steps.append(f"larger blocks: the SM holds at most {occ.limits.max_blocks} blocks")
    return ("For " + str(more) + " blocks per SM: " + "; and ".join(steps) + ".") if steps else ""


def _shared_memory(variant: Variant, facts: StageFacts) -> list[Finding]:
    shared = variant.resources.shared if variant.resources else 0
    if not shared and not facts.shared and not facts.barriers and not facts.mbarriers:
        return []
    stage = facts.stage.value.upper()
    barriers = f"{len(facts.barriers)} block barrier{'s' if len(facts.barriers) != 1 else ''}"
    detail = (
        f"{shared} bytes of shared memory per block; {len(facts.shared)} shared-memory loads/stores and "
        f"{barriers} in the {stage}."
    )
    if facts.barriers:
        detail += " A block-wide barrier makes every warp of the block wait for the others."
    if facts.mbarriers:
        name = "mbarrier" if facts.stage == Stage.PTX else "SYNCS/ARRIVES"
        detail += (
            f" {len(facts.mbarriers)} {name} operations track asynchronous copies and MMAs: the threads that wait "
            "on one wait for its phase, not for every warp, so they are not counted as block barriers."
        )
    evidence = [f"{shared} B shared", f"{len(facts.shared)} shared accesses", barriers]
    if facts.mbarriers:
        evidence.append(f"{len(facts.mbarriers)} mbarrier operations")
    return [
        Finding(
            "shared-memory",
            "info",
            f"uses {shared} B of shared memory and {barriers}",
            detail,
            facts.stage,
            tuple(sorted(facts.shared + facts.barriers)),
            tuple(evidence),
        )
    ]


def _async_copies(variant: Variant, facts: StageFacts) -> list[Finding]:
    copies = facts.async_copies()
    out = []
    ptx = facts.stage == Stage.PTX
    if copies:
        name = "cp.async" if ptx else "LDGSTS"
        groups = "cp.async.commit_group / wait_group" if ptx else "LDGDEPBAR / DEPBAR"
        out.append(
            Finding(
                "async-copy",
                "info",
                f"{len(copies)} asynchronous copies ({name}), {len(facts.copy_groups)} commit/wait points",
                f"Global-to-shared copies that run while the warp computes (Ampere-style software "
                f"pipelining, num_stages buffers in flight); {groups} mark and wait for groups of them "
                "and are not copies themselves.",
                facts.stage,
                tuple(i.index for i, _ in copies),
                (f"{len(copies)} copies", f"{len(facts.copy_groups)} commit/wait"),
            )
        )
        if (capability_of(variant.arch) or 0) >= 90 and not facts.bulk and _tiles_without_gathers(variant):
            out.append(
                Finding(
                    "tma",
                    "warn",
                    f"Ampere-style copies on {variant.arch}: no TMA",
                    f"Each thread issues its own {name} here. Hopper and later move whole tiles with one "
                    "instruction through the Tensor Memory Accelerator (cp.async.bulk.tensor / UTMALDG), "
                    "freeing registers and issue slots. In Triton: describe the tensor with "
                    "tl.make_tensor_descriptor (or a host-side TensorDescriptor) and load tiles with "
                    "desc.load([...]); the compiler then emits TMA.",
                    facts.stage,
                    tuple(i.index for i, _ in copies),
                    (f"{len(copies)} {name}", "0 TMA copies"),
                )
            )
    if facts.bulk:
        out.append(
            Finding(
                "tma",
                "info",
                f"{len(facts.bulk)} bulk asynchronous copies (TMA)",
                "Whole tiles moved by the Tensor Memory Accelerator, tracked by mbarriers.",
                facts.stage,
                tuple(facts.bulk),
                (f"{len(facts.bulk)} TMA",),
            )
        )
    return out


def _from_triton(variant: Variant) -> bool:
    return variant.frontend == "triton"


def _language(variant: Variant) -> str:
    """What the kernel's source lines are written in (its source dialect's name: C++ for nvcc's kernels, Python
    for Triton's and Numba's); Python where the variant does not say."""
    dialect = DIALECTS.get(variant.source_language)
    return dialect.label if dialect is not None else "Python"


def _tiles_without_gathers(variant: Variant) -> bool:
    """Whether a tensor descriptor could describe the kernel's loads: Triton's (the advice is Triton's),
    tiles of rank 2 or more, none whose addresses depend on data read from memory."""
    ttir = variant.listings.get(Stage.TTIR, "")
    if not _from_triton(variant) or not ttir:
        return False
    from .reasons import tile_loads

    tiles, gathers = tile_loads(ttir)
    return tiles > 0 and gathers == 0


def _tensor_cores(facts: StageFacts) -> list[Finding]:
    if not facts.mma:
        return []
    shapes = Counter(label for _, label in facts.mma)
    kinds = "; ".join(f"{k} x{n}" for k, n in shapes.most_common())
    labels = " ".join(shapes)
    if "wgmma" in labels or "GMMA" in labels:
        what = "Hopper's warpgroup-wide asynchronous MMA (4 warps, operands from shared memory)."
    elif "tcgen05" in labels or "UTC" in labels:
        what = "Blackwell's tcgen05 MMA, issued by one thread, accumulating in Tensor Memory."
    else:
        what = "a warp-wide matrix multiply-accumulate on the tensor cores (mma.sync)."
    return [
        Finding(
            "tensor-cores",
            "info",
            f"tensor cores: {len(facts.mma)} MMA instructions",
            f"{kinds}. {what}",
            facts.stage,
            tuple(i for i, _ in facts.mma),
            tuple(f"{k} x{n}" for k, n in shapes.most_common()),
        )
    ]


def _reductions(variant: Variant, facts: StageFacts, smap: SourceMap) -> list[Finding]:
    """Warp reductions shaped by their shuffles' lane offsets, per source line (reductions.py), and a
    crossing of warps through shared memory only where the data flow shows one."""
    found = _reductions_of(facts, smap)
    if not found.shuffles:
        return []
    shapes: Counter[tuple[int, int]] = Counter()
    for c in found.chains:
        shapes[(c.lanes, c.steps)] += c.count
    shape = ", ".join(
        f"{n} over {'32 lanes' if lanes == 32 else f'groups of {lanes} lanes'} ({steps} step{'s' if steps > 1 else ''})"
        for (lanes, steps), n in sorted(shapes.items(), key=lambda kv: (-kv[0][0], -kv[1]))
    )
    per_line = "; ".join(f"line {c.line}: {c.words()}" for c in found.chains if c.line)
    detail = f"{len(found.shuffles)} combining warp shuffles"
    detail += f": {found.count} reduction{'s' if found.count != 1 else ''}, {shape}" if found.chains else ""
    detail += f" ({per_line})" if per_line else ""
    detail += ". A reduction over 2^k lanes takes k shuffles, lane offsets 2^(k-1) down to 1; each combines values "
    detail += "across lanes without shared memory."
    if found.irregular:
        offsets = ", ".join(f"{o} x{n}" for o, n in sorted(Counter(s.offset for s in found.irregular).items()))
        detail += f" {len(found.irregular)} more shuffles with offsets that form no chain ({offsets})."
    if found.unknown:
        detail += f" {len(found.unknown)} shuffles take their lane offset from a register the listing does not set "
        detail += "to a constant: not counted as reductions."
    if found.crossings:
        first = found.crossings[0]
        detail += (
            f" {len(found.crossings)} reduction result{'s' if len(found.crossings) > 1 else ''} then cross warps "
            f"through shared memory: stored (line {first.store + 1}), a block barrier (line {first.barrier + 1}), "
            f"loaded back (line {first.load + 1})."
        )
    if found.chains:
        title = f"{found.count} warp reduction{'s' if found.count != 1 else ''} by shuffle: {shape}"
    else:
        title = f"{len(found.shuffles)} warp shuffles combine lanes"
    if found.crossings:
        title += ", combined across warps in shared memory"
    lines = {s.index for s in found.shuffles} | {x for c in found.crossings for x in (c.store, c.barrier, c.load)}
    evidence = (f"{len(found.shuffles)} combining shuffles", *(f"line {c.line}: {c.words()}" for c in found.chains))
    return [Finding("reduction", "info", title, detail, facts.stage, tuple(sorted(lines)), evidence)]


def _reductions_of(facts: StageFacts, smap: SourceMap) -> Reductions:
    return reductions(
        facts.stage,
        facts.instructions,
        smap.own_lines(facts.stage),
        facts.shared_lines("store"),
        facts.barriers,
        facts.shared_lines("load"),
    )


def _hot_lines(variant: Variant, facts: StageFacts, smap: SourceMap, top: int = 5) -> list[Finding]:
    own = smap.own_lines(facts.stage)
    indices = [i.index for i in facts.instructions]
    per_line: Counter[int] = Counter(line for i in indices if i < len(own) and (line := own[i]))
    if not per_line:
        return []
    total = sum(per_line.values())
    python = variant.listings.get(Stage.SOURCE, "").splitlines()
    rows = []
    for line, count in per_line.most_common(top):
        source = python[line - 1].strip() if 0 < line <= len(python) else ""
        rows.append(f"line {line} ({count}, {100 * count / total:.0f}%): {source[:60]}")
    hottest = per_line.most_common(1)[0][0]
    lines = tuple(i for i in indices if i < len(own) and own[i] == hottest)
    return [
        Finding(
            "hot-lines",
            "info",
            f"instruction mix per {_language(variant)} line: line {hottest} costs the most",
            f"{total} {facts.stage.value.upper()} instructions with a source line. " + "; ".join(rows),
            facts.stage,
            lines,
            tuple(rows),
        )
    ]
