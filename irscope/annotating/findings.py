"""What a kernel's PTX or SASS says about it, as a short list of findings, each pointing at lines of that
same stage and naming the evidence it rests on.

The questions a kernel engineer asks first of a listing: are the global loads vectorised (and if not,
why not), which accesses are masked, does it spill, how many warps fit on an SM and what limits them,
does it use shared memory, barriers, asynchronous copies (and on Hopper, TMA), tensor cores,
reductions across a warp, and which Python lines cost the most instructions. Each finding is computed
from the stage's own instructions (facts.py): a SASS finding cites SASS lines.
"""

from __future__ import annotations

from collections import Counter

from ..arch import Vendor, capability_of
from ..ir.dialects import DIALECTS
from ..ir.sourcemap import SourceMap
from ..types import Stage, Variant
from .amd_findings import amdgcn_findings
from .atomics import atomics_finding
from .blackwell import blackwell_findings, block_threads
from .facts import StageFacts, stage_facts
from .finding import Finding
from .gluon_layouts import gluon_layout_finding
from .masks import Origins, mask_origins
from .occupancy import Occupancy, occupancy
from .reductions import Chains, Reductions, reductions
from .redundancy import redundancy_finding
from .smem_banks import bank_finding
from .widths import vectorization


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
    out += vectorization(variant, facts, smap)
    out += _masking(variant, facts, smap)
    out += _spills(variant, facts, smap)
    out += _occupancy(variant, stage)
    out += _shared_memory(variant, facts)
    out += bank_finding(variant, stage, facts.instructions)
    out += gluon_layout_finding(variant, stage)
    out += _async_copies(variant, facts)
    out += _tensor_cores(facts)
    out += _reductions(variant, facts, smap)
    out += atomics_finding(variant, facts, smap)
    out += redundancy_finding(variant, smap, stage)
    if variant.vendor is Vendor.NVIDIA:
        out += blackwell_findings(variant, stage)
    out += _hot_lines(variant, facts, smap)
    return out


def _masking(variant: Variant, facts: StageFacts, smap: SourceMap) -> list[Finding]:
    accesses = facts.global_accesses()
    masked = [(i, a) for i, a in accesses if a.masked]
    if not masked:
        return []
    zero_fill = [i for i, a in masked if a.asynchronous]
    branched = [i for i, _ in masked if i.index in set(facts.branched)]
    ptx = facts.stage == Stage.PTX
    how = (
        "through cp.async's src-size operand: it reads fewer bytes than it writes"
        if ptx
        else "LDGSTS's zero-fill predicate, its last operand"
    )
    guard = "@%p" if ptx else "@P"
    skipped = (
        f"; {len(branched)} unguarded but behind a guarded branch or exit that skips them"
        f" ({'@%p bra / ret' if ptx else '@P BRA / EXIT'}: ptxas turns one form into the other)"
        if branched
        else ""
    )
    origins = mask_origins(variant, smap, facts.stage, [i.index for i, _ in masked]) if _from_triton(variant) else None
    if origins is None:
        detail = (
            f"Predicated accesses ({guard}) come from a condition around them (an if, a bounds check): threads "
            f"whose predicate is false skip the access{skipped}"
        )
    else:
        detail = _origin_words(origins, guard, skipped)
    if zero_fill:
        detail += f"; the {len(zero_fill)} asynchronous copies among them write zeros instead ({how})"
    detail += (
        ". Masks cost a compare per access and, when the bound is not known to be a multiple of the vector "
        "width, keep accesses narrow."
    )
    evidence = [f"{len(masked) - len(zero_fill)} predicated", f"{len(zero_fill)} zero-filling copies"]
    if branched:
        evidence.append(f"{len(branched)} behind a branch or exit")
    if origins is not None:
        evidence += [
            f"{len(origins.from_mask)} from mask=",
            f"{len(origins.pipelined)} from the software pipeliner's loop guard",
            f"{len(origins.added)} added by the compiler otherwise",
        ]
    return [
        Finding(
            "masking",
            "info",
            f"{len(masked)} of {len(accesses)} global accesses are masked",
            detail,
            facts.stage,
            tuple(i.index for i, _ in masked),
            tuple(evidence),
        )
    ]


def _origin_words(origins: Origins, guard: str, skipped: str) -> str:
    """Where a Triton kernel's masks come from, each part only as far as the TTIR and TTGIR show it."""
    parts = []
    if origins.from_mask:
        where = ", ".join(map(str, origins.mask_lines))
        parts.append(
            f"{len(origins.from_mask)} from mask= in tl.load/tl.store (Python line{'s' if len(origins.mask_lines) > 1 else ''} "
            f"{where}): threads whose mask is false skip the access (predicated, {guard}{skipped})"
        )
    if origins.pipelined:
        where = ", ".join(map(str, origins.pipelined_lines))
        parts.append(
            f"{len(origins.pipelined)} from the software pipeliner, not from a mask=: the tl.load on line{'s' if len(origins.pipelined_lines) > 1 else ''} "
            f"{where} has none in the TTIR, and in the TTGIR its copies carry a mask that compares the loop's "
            "induction variable or bound (the guard that the iteration they load ahead exists)"
        )
    if origins.added:
        parts.append(
            f"{len(origins.added)} predicated by the compiler: the TTIR's access on {'their' if len(origins.added) > 1 else 'its'} Python line has "
            "no mask= (a scalar is stored by one thread, for one)"
        )
    if origins.unplaced:
        parts.append(f"{len(origins.unplaced)} with no Python access to credit")
    return "Of the masked accesses, " + "; ".join(parts)


def _spills(variant: Variant, facts: StageFacts, smap: SourceMap) -> list[Finding]:
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
    rows: list[str] = []
    if facts.local:
        names = "ld.local/st.local" if facts.stage == Stage.PTX else "LDL/STL"
        detail += f"; the {facts.stage.value.upper()} has {len(facts.local)} local-memory accesses ({names})"
        rows = _local_by_line(variant, facts, smap)
        if rows:
            detail += f", by {_language(variant)} line: " + "; ".join(rows)
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
            (f"{spilled} bytes spilled", f"{len(facts.local)} local accesses", *rows),
        )
    ]


def _local_by_line(variant: Variant, facts: StageFacts, smap: SourceMap, top: int = 6) -> list[str]:
    """``line 12 (x = tl.load(...)): 40 stores, 38 loads``: the local accesses of the listing by the source line
    its line information gives them, most first."""
    own = smap.own_lines(facts.stage)
    kinds = {i.index: a.kind for i, a in facts.accesses if a.space == "local"}
    per_line: dict[int | None, Counter[str]] = {}
    for index in facts.local:
        line = own[index] if index < len(own) else None
        per_line.setdefault(line, Counter())[kinds.get(index, "load")] += 1
    source = variant.listings.get(Stage.SOURCE, "").splitlines()
    rows = []
    for line, counts in sorted(per_line.items(), key=lambda kv: -sum(kv[1].values()))[:top]:
        where = f"line {line}" if line else "no source line"
        if line and 0 < line <= len(source):
            where += f" ({source[line - 1].strip()[:40]})"
        rows.append(f"{where}: {counts['store']} stores, {counts['load']} loads")
    if len(per_line) > top:
        rows.append(f"{len(per_line) - top} more lines")
    return rows


def kernel_occupancy(variant: Variant) -> Occupancy | None:
    r, info = variant.resources, variant.compile_info
    if r is None or info is None or not r.registers or not info.threads_per_block:
        return None
    if variant.vendor is not Vendor.NVIDIA:  # an SM's limits: an AMD SIMD's (VGPRs per wave size) differ
        return None
    # a warp-specialised kernel runs more warps than num_warps: the PTX's .reqntid says how many
    threads = max(info.threads_per_block, block_threads(variant.listings.get(Stage.PTX, "")) or 0)
    return occupancy(capability_of(variant.arch) or 90, r.registers, threads, r.shared or 0)


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
    cliffs = " " + _cliffs(occ)
    if occ.warps == occ.max_warps:
        return [
            Finding(
                "occupancy",
                "info",
                f"full occupancy: {occ.warps} warps per SM",
                f"{shape}: {occ.blocks} blocks fill all {occ.max_warps} warp slots of a {variant.arch} SM "
                f"(blocks each limit allows: {allowed}).{cliffs}",
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
    detail += " " + _to_fit_one_more(occ) + cliffs
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


def _cliffs(occ: Occupancy) -> str:
    """How far each resource is from the next occupancy step, up and down: the most it may grow to before a
    block no longer fits, and what it must shrink to for one more block where it alone decides that."""
    blocks = occ.blocks
    parts = []
    keep = occ.registers_for(blocks)
    if keep is not None and keep >= occ.registers:
        head = f"registers: up to {keep} a thread keep {blocks} blocks ({keep - occ.registers} more than now" + (
            ", the most a thread may have)" if keep >= occ.limits.max_registers_per_thread else ")"
        )
        fewer = occ.registers_for(blocks + 1)
        if fewer is not None and fewer < occ.registers and occ.binding == ("registers",):
            head += f", {fewer} or fewer fit {blocks + 1} ({occ.registers - fewer} fewer)"
        parts.append(head)
    if occ.shared:
        keep_shared = occ.shared_for(blocks)
        head = f"shared memory: up to {keep_shared} B a block keep {blocks} ({keep_shared - occ.shared} B more)"
        if occ.binding == ("shared memory",):
            more = occ.shared_for(blocks + 1)
            head += f", {more} B or less fit {blocks + 1} ({occ.shared - more} B less)"
        parts.append(head)
    return ("Steps: " + "; ".join(parts) + ".") if parts else ""


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
    """Warp reductions and scans, chained by data flow and shaped by their shuffles' lane offsets, per
    source line (reductions.py), and a crossing of warps through shared memory only where the data flow
    shows one."""
    found = _reductions_of(facts, smap)
    if not found.shuffles:
        return []  # moves alone (a warp id broadcast by shfl.idx) reduce nothing

    def shapes(kind: str) -> str:
        merged: Counter[tuple[int, tuple[int, ...]]] = Counter()
        for c in found.chains:
            if c.kind == kind:
                merged[(c.lanes, c.offsets)] += c.count
        ordered = sorted(merged.items(), key=lambda kv: (-kv[0][0], [-o for o in kv[0][1]]))
        return ", ".join(Chains(None, lanes, len(offsets), n, kind, offsets).shape() for (lanes, offsets), n in ordered)

    reduced, scanned = shapes("reduction"), shapes("scan")
    per_line = "; ".join(
        f"line {c.line}: {c.words()}{' (scan)' if c.kind == 'scan' else ''}" for c in found.chains if c.line
    )
    parts = []
    if found.count:
        parts.append(f"{found.count} reduction{'s' if found.count != 1 else ''}, {reduced}")
    if found.scans:
        parts.append(f"{found.scans} scan{'s' if found.scans != 1 else ''} (prefix sums), {scanned}")
    detail = f"{len(found.shuffles)} combining warp shuffles"
    detail += (": " + "; ".join(parts)) if parts else ""
    detail += f" ({per_line})" if per_line else ""
    detail += (
        ". A shuffle combines when the next instruction to read its result also reads the value the lane "
        "shuffled out; the next step of a chain shuffles out what the last one combined. k steps with distinct "
        "lane offsets reduce (bfly, down) or scan (up) 2^k lanes: offsets 2^(k-1) .. 1 a group of adjacent "
        "lanes, offset 16 alone two lanes 16 apart; none uses shared memory."
    )
    if found.irregular:
        offsets = ", ".join(f"{o} x{n}" for o, n in sorted(Counter(s.offset for s in found.irregular).items()))
        detail += f" {len(found.irregular)} more combining shuffles chain into no reduction or scan ({offsets})."
    if found.unknown:
        detail += f" {len(found.unknown)} shuffles take their lane offset from a register the listing does not set "
        detail += "to a constant: not counted as reductions."
    if found.moves:
        modes = ", ".join(f"{m or '?'} x{n}" for m, n in sorted(Counter(s.mode for s in found.moves).items()))
        detail += (
            f" {len(found.moves)} shuffles combine nothing ({modes}): each lane takes another lane's value "
            "(a permutation or a broadcast), which is no reduction step."
        )
    if found.unused:
        detail += (
            f" {len(found.unused)} PTX shuffle{'s' if len(found.unused) > 1 else ''} whose result nothing reads "
            "(ptxas drops it): not counted."
        )
    if found.crossings:
        first = found.crossings[0]
        detail += (
            f" {len(found.crossings)} result{'s' if len(found.crossings) > 1 else ''} then cross warps "
            f"through shared memory: stored (line {first.store + 1}), a block barrier (line {first.barrier + 1}), "
            f"loaded back (line {first.load + 1})."
        )
    heads = []
    if found.count:
        heads.append(f"{found.count} warp reduction{'s' if found.count != 1 else ''} by shuffle: {reduced}")
    if found.scans:
        heads.append(f"{found.scans} warp scan{'s' if found.scans != 1 else ''} by shuffle: {scanned}")
    title = "; ".join(heads) if heads else f"{len(found.shuffles)} warp shuffles combine lanes"
    if found.crossings:
        title += ", combined across warps in shared memory"
    lines = {s.index for s in (*found.shuffles, *found.moves)}
    lines |= {x for c in found.crossings for x in (c.store, c.barrier, c.load)}
    evidence = (
        f"{len(found.shuffles)} combining shuffles",
        *(f"line {c.line}: {c.words()}" for c in found.chains),
        *((f"{len(found.moves)} moving shuffles",) if found.moves else ()),
    )
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
