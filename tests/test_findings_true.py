"""Findings that state only what the listing proves (issue 30, point 6), on kernels written for the test
(tests/findings_kernels/): an attention-style loop, row reductions, a CUDA block reduction beside a
CUDA transpose that shuffles without crossing warps, gathered and tiled and TMA matmuls, and Numba.

The independent source is the listing's own text, read here with plain regular expressions rather than
irscope's parsers: the lane offset of every shuffle, every block barrier, every generic access. Counts
that PTX and SASS both show (reductions, block barriers) must agree between them.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from irscope.annotating.explain import ptx_explainer
from irscope.annotating.findings import findings
from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.types import Stage

HERE = Path(__file__).parent / "findings_kernels"
ATTN = "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32, fp32, i32:16"
MM = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16"
GATHER = "*fp16:16, *fp16:16, *fp16:16, *i32:16, i32:16, i32:16, i32:16"
BIG_MM = {"BM": 128, "BN": 128, "BK": 64, "num_warps": 8, "num_stages": 3}

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")


def _variant(name, signature, config, arch="sm_90"):
    variant = capture(resolve_kernel(f"{HERE / name}", signature), config, arch)
    assert variant.ok, variant.error
    return variant


def _one(variant, stage, kind):
    found = [f for f in findings(variant, stage) if f.kind == kind]
    assert len(found) <= 1
    return found[0] if found else None


# Independent readers: the lane offset of each combining shuffle, straight from the text.
PTX_SHFL = re.compile(r"shfl\.sync\.(bfly|down|up)\.b32\s+[^,]+,\s*[^,]+,\s*(\w+),")
SASS_SHFL = re.compile(r"SHFL\.(BFLY|DOWN|UP)\s+\w+,\s*R\d+,\s*R\d+,\s*(0x[0-9a-f]+)\s*,")


def _reductions_by_regex(text: str, stage: Stage) -> Counter:
    """{(lanes, steps): count} from the shuffles' immediate offsets: a chain 2^(k-1)..1 per reduction,
    counted as the excess of each offset's uses over the next larger offset's."""
    pattern = PTX_SHFL if stage == Stage.PTX else SASS_SHFL
    uses = Counter(int(m.group(2), 0) for m in pattern.finditer(text) if re.fullmatch(r"0x[0-9a-f]+|\d+", m.group(2)))
    out: Counter = Counter()
    larger = 0
    for offset in (16, 8, 4, 2, 1):
        starting = uses[offset] - larger
        assert starting >= 0, uses
        if starting:
            out[(2 * offset, offset.bit_length())] += starting
        larger = uses[offset]
    return out


def _claimed(finding) -> Counter:
    """{(lanes, steps): count} as the finding's title states it."""
    out: Counter = Counter()
    for n, lanes, steps in re.findall(r"(\d+) over (?:groups of )?(\d+) lanes[^(,;]*\((\d+) steps?\)", finding.title):
        out[(int(lanes), int(steps))] += int(n)
    return out


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_attention_reductions_stay_within_groups_of_four_lanes_and_never_cross_warps(arch):
    variant = _variant(
        "attention.py:attn_fwd",
        ATTN,
        {"BLOCK_M": 128, "BLOCK_N": 64, "HEAD": 64, "num_warps": 4, "num_stages": 2},
        arch,
    )
    for stage in (Stage.PTX, Stage.SASS):
        found = _one(variant, stage, "reduction")
        truth = _reductions_by_regex(variant.listings[stage], stage)
        assert truth and set(truth) == {(4, 2)}, truth  # tl.max and tl.sum over an MMA tile's rows: 4 lanes each
        assert _claimed(found) == truth
        # the kernel has shared memory and barriers (cp.async pipelining), but no reduction result is stored
        assert "across warps" not in found.title
        shared = _one(variant, stage, "shared-memory")
        assert shared is not None and "block barrier" in shared.title


@pytest.mark.parametrize("warps,crosses", [(4, True), (1, False)])
def test_a_row_sum_crosses_warps_only_with_more_than_one_warp(warps, crosses):
    variant = _variant("attention.py:row_sum", "*fp32:16, *fp32:16, i32", {"BLOCK": 1024, "num_warps": warps})
    for stage in (Stage.PTX, Stage.SASS):
        found = _one(variant, stage, "reduction")
        assert _claimed(found) == _reductions_by_regex(variant.listings[stage], stage)
        assert ("across warps" in found.title) is crosses
        if crosses:
            # the cited store, barrier and load are what the finding says they are
            lines = variant.listings[stage].splitlines()
            store, barrier, load = (int(n) - 1 for n in re.findall(r"line (\d+)", found.detail.split("stored")[1])[:3])
            shared_store = r"st\.shared" if stage == Stage.PTX else r"\bSTS\b"
            shared_load = r"ld\.shared" if stage == Stage.PTX else r"\bLDS\b"
            assert re.search(shared_store, lines[store])
            assert re.search(r"bar\.sync|barrier\.sync" if stage == Stage.PTX else r"\bBAR\.SYNC", lines[barrier])
            assert re.search(shared_load, lines[load])
            assert store < barrier < load


def test_ptx_and_sass_agree_on_reductions_and_block_barriers():
    cases = [
        ("attention.py:attn_fwd", ATTN, {"BLOCK_M": 64, "BLOCK_N": 32, "HEAD": 32, "num_warps": 4, "num_stages": 2}),
        ("attention.py:row_sum", "*fp32:16, *fp32:16, i32", {"BLOCK": 2048, "num_warps": 8}),
        ("gather_mm.py:tma_mm", MM, BIG_MM),
    ]
    for name, signature, config in cases:
        variant = _variant(name, signature, config)
        ptx, sass = variant.listings[Stage.PTX], variant.listings[Stage.SASS]
        p, s = _one(variant, Stage.PTX, "reduction"), _one(variant, Stage.SASS, "reduction")
        assert (p is None) == (s is None), name
        if p is not None:
            assert _claimed(p) == _claimed(s), name
        p_bar = len(re.findall(r"^\s*(?:@!?%p\d+\s+)?(?:bar\.sync|barrier\.sync)\b", ptx, re.M))
        s_bar = len(re.findall(r"\bBAR\.SYNC\b", sass))
        assert p_bar == s_bar, name
        for stage in (Stage.PTX, Stage.SASS):
            shared = _one(variant, stage, "shared-memory")
            assert f"{p_bar} block barrier" in shared.title, (name, shared.title)


def test_mbarrier_operations_are_not_counted_as_block_barriers():
    variant = _variant("gather_mm.py:tma_mm", MM, BIG_MM)
    ptx = variant.listings[Stage.PTX]
    mbarriers = len(re.findall(r"\bmbarrier\.", ptx))
    assert mbarriers > 0
    bars = len(re.findall(r"\bbar\.sync\b", ptx))
    shared = _one(variant, Stage.PTX, "shared-memory")
    assert f"{bars} block barriers" in shared.title
    assert f"{mbarriers} mbarrier operations" in shared.detail
    sass = _one(variant, Stage.SASS, "shared-memory")
    assert f"{len(re.findall(r'BAR[.]SYNC', variant.listings[Stage.SASS]))} block barriers" in sass.title


def test_tma_advice_only_where_a_descriptor_could_describe_the_tiles():
    tiled = _variant("gather_mm.py:tile_mm", MM, BIG_MM)
    gathered = _variant("gather_mm.py:gather_mm", GATHER, BIG_MM)
    for stage in (Stage.PTX, Stage.SASS):
        assert any(f.kind == "async-copy" for f in findings(gathered, stage))  # both pipeline with cp.async
        assert any(f.kind == "tma" and f.severity == "warn" for f in findings(tiled, stage))
        assert not any(f.kind == "tma" for f in findings(gathered, stage))
    on_ampere = _variant("gather_mm.py:tile_mm", MM, {**BIG_MM, "BM": 64, "BN": 64}, "sm_80")
    assert not any(f.kind == "tma" for f in findings(on_ampere, Stage.PTX))


@needs_nvcc
def test_cuda_block_reduction_same_count_in_ptx_and_sass_and_crosses_warps():
    variant = _variant("block_reduce.cu:block_sum", None, {})
    p, s = _one(variant, Stage.PTX, "reduction"), _one(variant, Stage.SASS, "reduction")
    # two warp_sum calls: five shuffles each (offsets 16..1; in PTX from registers set by mov)
    assert _claimed(p) == _claimed(s) == Counter({(32, 5): 2})
    assert _reductions_by_regex(variant.listings[Stage.SASS], Stage.SASS)[(32, 5)] == 2
    assert "across warps" in p.title and "across warps" in s.title
    # a CUDA kernel's predication is not Triton's mask=, and its lines are C++
    for stage in (Stage.PTX, Stage.SASS):
        assert "per C++ line" in _one(variant, stage, "hot-lines").title
        masking = _one(variant, stage, "masking")
        assert masking is None or "tl.load" not in masking.detail


@needs_nvcc
def test_cuda_shuffle_beside_a_shared_transpose_does_not_cross_warps():
    variant = _variant("transpose_sum.cu:transpose_and_sum", None, {})
    for stage in (Stage.PTX, Stage.SASS):
        found = _one(variant, stage, "reduction")
        assert _claimed(found) == Counter({(32, 5): 1})
        assert "across warps" not in found.title
        assert _one(variant, stage, "shared-memory") is not None  # the tile and its barrier are there


@needs_nvcc
def test_cuda_parameters_are_never_said_to_be_added_by_triton():
    variant = _variant("block_reduce.cu:block_sum", None, {})
    explain = ptx_explainer(variant)
    params = [line for line in variant.listings[Stage.PTX].splitlines() if "ld.param" in line or ".param " in line]
    assert params
    for line in params:
        assert "Triton" not in explain(line).summary, line


def test_numba_generic_accesses_get_a_memory_finding_in_ptx_and_sass():
    pytest.importorskip("numba.cuda")
    variant = _variant("numba_kernels.py:axpy", "float32[:], float32[:], float32[:], float32", {})
    ptx, sass = variant.listings[Stage.PTX], variant.listings[Stage.SASS]
    truth = {
        Stage.PTX: (len(re.findall(r"^\s*ld\.f32\b", ptx, re.M)), len(re.findall(r"^\s*st\.f32\b", ptx, re.M))),
        Stage.SASS: (len(re.findall(r"\bLD\.E\b", sass)), len(re.findall(r"\bST\.E\b", sass))),
    }
    assert truth[Stage.PTX] == truth[Stage.SASS] == (2, 1)
    for stage in (Stage.PTX, Stage.SASS):
        memory = [f for f in findings(variant, stage) if f.kind == "vectorization"]
        loads = next(f for f in memory if "loads" in f.title)
        stores = next(f for f in memory if "stores" in f.title)
        assert loads.title.startswith("generic loads") and "4 bytes per thread" in loads.title
        assert f"{truth[stage][0]} generic" in loads.detail and f"{truth[stage][1]} generic" in stores.detail
        lines = variant.listings[stage].splitlines()
        assert all(re.search(r"\bld\.f32|\bLD\.E", lines[i]) for i in loads.lines)
    explain = ptx_explainer(variant)
    assert not any("Triton" in explain(line).summary for line in ptx.splitlines() if "ld.param" in line)
