"""Findings that hold on library kernels (issue 44, points 1 to 5), on kernels written for the test in the
idioms of Helion's generated matmul, Triton's tutorials 05 and 08, and FLA's chunked cumsum
(tests/findings_kernels/library_idioms.py).

The independent source is the listing's own text read with plain regular expressions (a cp.async's
src-size register and the ``mov``/``selp`` that sets it, LDGSTS's zero-fill predicate, the shuffles'
offsets and registers, the TTIR's mask operands and constant strides, the TTGIR's layout), LLVM's own
AMDGPU metadata (``.sgpr_spill_count``), and the layout worked by hand. Each point is tested present
and absent, and PTX and SASS give the same count wherever both show it.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from irscope.annotating.findings import findings
from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.types import Stage

KERNELS = Path(__file__).parent / "findings_kernels" / "library_idioms.py"
SIGNATURES = {
    "generated_mm": "*fp16:16, *fp16:16, *fp16:16",
    "grouped_mm": "*i64:16, *i64:16, *i64:16, *i32:16, *i32:16, i32",
    "row_norm": "*fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, fp32",
    "column_sums": "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32, i32:16",
    "chunk_cumsum": "*fp32:16, *fp32:16, i32",
    "scalar_weights": "*fp32:16, *fp32:16, *fp32:16, i32",
}
GROUPED = {"PROGRAMS": 84, "BM": 128, "BN": 128, "BK": 32, "HINTS": True}
CACHE: dict = {}


def _variant(name: str, config: dict, arch: str = "sm_90"):
    key = (name, tuple(sorted(config.items())), arch)
    if key not in CACHE:
        variant = capture(resolve_kernel(f"{KERNELS}:{name}", SIGNATURES[name]), config, arch)
        assert variant.ok, variant.error
        CACHE[key] = variant
    return CACHE[key]


def _one(variant, stage, kind, title=""):
    found = [f for f in findings(variant, stage) if f.kind == kind and title in f.title]
    assert len(found) <= 1, found
    return found[0] if found else None


# ---------------------------------------------------------------- independent readers

# cp.async.cg.shared.global [ %r18 + 0 ], [ %rd3 + 0 ], 0x10, %r19;
CP_ASYNC = re.compile(r"cp\.async\.c[ag]\.shared\.global \[[^]]*\], \[[^]]*\], (\w+)(?:, (%r\d+))?;")


def _ptx_zero_filling(ptx: str) -> tuple[int, int]:
    """(copies whose src-size may be less than their size, copies whose src-size is a constant equal to it)."""
    moves = dict(re.findall(r"mov\.b32 \t?(%r\d+), (\d+);", ptx))
    selects = set(re.findall(r"selp\.b32 \t?(%r\d+), 16, 0, %p\d+;", ptx))
    partial = full = 0
    for size, src in CP_ASYNC.findall(ptx):
        if not src:
            full += 1
        elif src in selects:
            partial += 1
        elif moves.get(src) == str(int(size, 0)):
            full += 1
    return partial, full


def _sass_zero_filling(sass: str) -> int:
    return len(re.findall(r"\bLDGSTS\b[^;]*, !?P\d ;", sass))


def _ttir_masked_accesses(ttir: str) -> int:
    loads = re.findall(r"= tt\.load %[\w.]+, %", ttir)
    stores = re.findall(r"tt\.store %[\w.]+, %[\w.]+, %", ttir)
    return len(loads) + len(stores)


def _masked_count(finding) -> int:
    if not finding:
        return 0
    m = re.match(r"(\d+) of", finding.title)
    assert m, finding.title
    return int(m[1])


# ---------------------------------------------------------------- 1. masks


def test_a_constant_src_size_is_no_mask_and_the_pipeliners_guards_are_not_blamed_on_mask():
    """Helion's idiom: no mask anywhere (``None``), a loop of 16 trips. The prologue's copies read
    ``mov.b32 %r19, 16`` (all they write), the loop's a ``selp`` on the trip guard."""
    variant = _variant("generated_mm", {"num_warps": 4, "num_stages": 3}, "sm_80")
    ptx = variant.listings[Stage.PTX]
    partial, full = _ptx_zero_filling(ptx)
    assert partial > 0 and full > 0, (partial, full)
    assert _ttir_masked_accesses(variant.listings[Stage.TTIR]) == 0
    masking = _one(variant, Stage.PTX, "masking")
    assert _masked_count(masking) == partial
    assert "software pipeliner" in masking.detail and "from mask=" not in masking.detail
    assert "0 from mask=" in masking.evidence
    # SASS: ptxas unrolled the 16 trips, and no LDGSTS carries a zero-fill predicate
    assert _masked_count(_one(variant, Stage.SASS, "masking")) == _sass_zero_filling(variant.listings[Stage.SASS])


def test_the_grouped_gemm_masks_come_from_the_pipeliner_in_ptx_and_sass_alike():
    """Tutorial 08's idiom: every load unmasked in the TTIR; ptxas sinks a size's load below the while
    loop's guard, a branch on a value every thread shares, which is control flow and no mask."""
    variant = _variant("grouped_mm", GROUPED, "sm_80")
    partial, _ = _ptx_zero_filling(variant.listings[Stage.PTX])
    sass_partial = _sass_zero_filling(variant.listings[Stage.SASS])
    assert partial == sass_partial > 0
    assert _ttir_masked_accesses(variant.listings[Stage.TTIR]) == 0
    for stage in (Stage.PTX, Stage.SASS):
        masking = _one(variant, stage, "masking")
        assert _masked_count(masking) == partial, (stage, masking.title)
        assert "from mask=" not in masking.detail and "software pipeliner" in masking.detail


def test_mask_is_credited_where_the_ttir_has_one_and_scalar_stores_to_the_compiler():
    variant = _variant("row_norm", {"BLOCK": 1024})
    ttir = variant.listings[Stage.TTIR]
    assert _ttir_masked_accesses(ttir) == 3  # two loads and a store with mask=
    counts = {}
    for stage in (Stage.PTX, Stage.SASS):
        masking = _one(variant, stage, "masking")
        counts[stage] = _masked_count(masking)
        assert "pipeliner" not in masking.detail
        assert "2 predicated by the compiler" in masking.detail  # Mean and Rstd: one thread stores each
    ptx = variant.listings[Stage.PTX]
    guarded = len(re.findall(r"@!?%p\d+ (?:ld|st)\.global", ptx))
    assert counts[Stage.PTX] == counts[Stage.SASS] == guarded


def test_no_masking_finding_without_a_mask_or_a_pipeline():
    variant = _variant("generated_mm", {"num_warps": 4, "num_stages": 1}, "sm_80")
    assert _ptx_zero_filling(variant.listings[Stage.PTX])[0] == 0
    for stage in (Stage.PTX, Stage.SASS):
        assert _one(variant, stage, "masking") is None


# ---------------------------------------------------------------- 2. scans are not reductions

PTX_SHFL = re.compile(r"shfl\.sync\.(\w+)\.b32 \t?(%r\d+)(?:\|%p\d+)?, (%r\d+), (\d+),")
SASS_SHFL = re.compile(r"SHFL\.(\w+) PT, (R\d+), (R\d+), (0x[0-9a-f]+),")


@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_is_one_scan_in_ptx_and_sass_not_a_reduction(reverse):
    variant = _variant("chunk_cumsum", {"H": 4, "BT": 64, "REVERSE": reverse, "num_warps": 4})
    sass = variant.listings[Stage.SASS]
    shuffles = SASS_SHFL.findall(sass)
    ups = [int(o, 0) for mode, _, _, o in shuffles if mode == "UP"]
    assert ups == [1, 2, 4, 8, 16]  # one Kogge-Stone scan over the warp
    bfly = [(d, s) for mode, d, s, _ in shuffles if mode == "BFLY"]
    if reverse:
        # the lane reversal before and after the scan: each shuffle shuffles out the last one's result,
        # combining nothing (a permutation of lanes, lane ^ 31)
        assert len(bfly) == 10
        assert all(bfly[k][1] == bfly[k - 1][0] for k in (1, 2, 3, 4, 6, 7, 8, 9))
    else:
        assert bfly == []
    titles = set()
    for stage in (Stage.PTX, Stage.SASS):
        found = _one(variant, stage, "reduction")
        assert found.title.startswith("1 warp scan by shuffle: 1 over 32 lanes (5 steps)"), found.title
        assert "reduction" not in found.title
        titles.add(found.title)
        if reverse:
            assert "10 shuffles combine nothing (bfly x10)" in found.detail
    assert len(titles) == 1
    ptx = variant.listings[Stage.PTX]
    ptx_ups = [(d, s, int(o)) for mode, d, s, o in PTX_SHFL.findall(ptx) if mode == "up"]
    unread = [d for d, _, _ in ptx_ups if len(re.findall(rf"{re.escape(d)}\b", ptx)) == 1]
    if unread:  # a shuffle PTX keeps and ptxas drops: its result is never read
        assert f"{len(unread)} PTX shuffle" in _one(variant, Stage.PTX, "reduction").detail


def test_a_row_reduction_is_no_scan():
    variant = _variant("row_norm", {"BLOCK": 1024})
    for stage in (Stage.PTX, Stage.SASS):
        found = _one(variant, stage, "reduction")
        assert "scan" not in found.title.split(",")[0] and found.title.startswith(
            "4 warp reductions by shuffle: 2 over 32 lanes"
        )


# ---------------------------------------------------------------- 3. shuffle chains over partial warps


def test_column_sums_reduce_pairs_of_lanes_16_apart_then_groups_of_four():
    """Worked from the layout: a [32, 128] fp16 tile, sizePerThread [1, 8], threadsPerWarp [2, 16],
    warpsPerCTA [4, 1]. Summing axis 0 inside a warp combines the 2 lanes that differ in lane bit 4
    (offset 16): one shuffle for each of a thread's 8 columns, for dw and db, 16 in all. The 4 warps'
    partials then meet in shared memory, and each thread sums 4 of them over 4 adjacent lanes (offsets 2,
    then 1): 4 per tensor, 8 in all."""
    variant = _variant("column_sums", {"BM": 32, "BN": 128})
    ttgir = variant.listings[Stage.TTGIR]
    assert "sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]" in ttgir
    offsets = Counter(int(o, 0) for _, _, _, o in SASS_SHFL.findall(variant.listings[Stage.SASS]))
    assert offsets == Counter({16: 16, 2: 8, 1: 8})
    titles = set()
    for stage in (Stage.PTX, Stage.SASS):
        found = _one(variant, stage, "reduction")
        assert "24 warp reductions" in found.title
        assert "16 over groups of 2 lanes 16 apart (1 step)" in found.title
        assert "8 over groups of 4 lanes (2 steps)" in found.title
        assert "form no chain" not in found.detail and "chain into no" not in found.detail
        titles.add(found.title)
    assert len(titles) == 1


# ---------------------------------------------------------------- 4. AMD: SGPRs spilled into VGPR lanes, the headline


@pytest.mark.parametrize("taps,spills", [(48, True), (8, False)])
def test_sgprs_spilled_into_vgpr_lanes_are_no_scratch_traffic(taps, spills):
    variant = _variant("scalar_weights", {"TAPS": taps, "BLOCK": 256, "num_warps": 4}, "gfx942")
    text = variant.listings[Stage.AMDGCN]
    count = int(re.search(r"\.sgpr_spill_count:\s+(\d+)", text)[1])  # LLVM's own metadata
    writes = len(re.findall(r"^\s+v_writelane_b32 v\d+, s\d+, \d+", text, re.M))
    assert re.search(r"\.private_segment_fixed_size:\s+0\b", text)
    found = _one(variant, Stage.AMDGCN, "spills")
    if not spills:
        assert count == writes == 0 and found is None
        return
    assert count == writes > 0
    assert found.title == f"{count} SGPRs spill into VGPR lanes: no scratch, no memory traffic"
    assert found.severity == "info" and "memory round trip" not in found.detail
    assert f"{writes} SGPR values into lanes" in found.detail


def test_amd_headline_is_the_tiles_width_not_a_scalar_load_of_three_strides():
    variant = _variant("grouped_mm", {**GROUPED, "BM": 64, "BN": 64, "HINTS": False}, "gfx942")
    text = variant.listings[Stage.AMDGCN]
    assert re.search(r"global_load_dwordx3\b", text)  # three strides read at once, one value per program
    tiles = re.findall(r"global_load_ushort\b", text)
    assert tiles
    loads = _one(variant, Stage.AMDGCN, "vectorization", "loads")
    assert loads.title == "global loads are not vectorised (2 bytes per lane)"
    assert "Not counted" in loads.detail and "dwordx3" in loads.detail.split("Not counted", 1)[1]
    lines = text.splitlines()
    assert all("global_load_ushort" in lines[i] for i in loads.lines)


# ---------------------------------------------------------------- 5. width advice names a proven cause


def test_one_value_per_program_accesses_are_not_the_ones_to_widen():
    variant = _variant("grouped_mm", GROUPED, "sm_80")
    for stage in (Stage.PTX, Stage.SASS):
        loads = _one(variant, stage, "vectorization", "loads")
        assert "to widen" not in loads.detail and "Not counted here: 9 accesses of one value" in loads.detail
        lines = variant.listings[stage].splitlines()
        assert all(re.search(r"cp\.async|LDGSTS", lines[i]) for i in loads.lines)
        stores = _one(variant, stage, "vectorization", "stores")
        assert "read from memory by a tl.load" in stores.detail  # c's base and ldc: the listing's own loads
    norm = _variant("row_norm", {"BLOCK": 1024})
    stores = _one(norm, Stage.PTX, "vectorization", "stores")
    assert "Not counted here: 2 accesses of one value per program" in stores.detail


@pytest.mark.parametrize("h,bt", [(4, 256), (1, 256)])
def test_a_constant_stride_is_named_and_no_bound_is_blamed_for_it(h, bt):
    variant = _variant("chunk_cumsum", {"H": h, "BT": bt, "REVERSE": False, "num_warps": 4})
    ttir = variant.listings[Stage.TTIR]
    strided = re.search(rf"arith\.constant dense<{h}> : tensor<{bt}xi32>", ttir) is not None
    assert strided == (h != 1)
    for stage in (Stage.PTX, Stage.SASS):
        loads = _one(variant, stage, "vectorization", "loads")
        if strided:
            assert f"multiplied by the constant {h}" in loads.detail
            assert "T is not known" not in loads.detail
        else:
            assert "multiplied by the constant" not in loads.detail
            assert "T is not known to be a multiple of 16" in loads.detail  # bos = i_b * T, and the mask


def test_one_element_per_thread_names_the_kernels_own_block_constexpr():
    variant = _variant("chunk_cumsum", {"H": 1, "BT": 64, "REVERSE": False, "num_warps": 4})
    loads = _one(variant, Stage.PTX, "vectorization", "loads")
    assert "64 elements and the block has 128 threads" in loads.detail
    assert "A larger BT" in loads.detail and "BLOCK_SIZE" not in loads.detail
    generated = _variant("generated_mm", {"num_warps": 4, "num_stages": 3}, "sm_80")
    assert not any("BLOCK_SIZE" in f.detail for f in findings(generated, Stage.PTX))
