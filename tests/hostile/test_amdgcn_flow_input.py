"""An AMDGCN listing is data: the flow, lane values and bank pattern read from it never fail, hang or allocate
without bound, whatever a stored session's listing holds.

A real listing (a column sum for gfx942, whose LDS accesses conflict) is cut, shuffled, given branches to
labels that are not there, registers ranges of a billion, constants of thousands of digits and loops
that feed themselves; and a variant claims a workgroup of a billion workitems. Each still annotates (a
finding or none), in bounded time.
"""

from __future__ import annotations

import dataclasses
import random
import time

import pytest
from written_kernels import COL_SUM, COL_SUM_SIGNATURE

from irscope.annotating import annotate
from irscope.annotating.amd_lds_banks import lds_bank_patterns
from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.stages import Stage


@pytest.fixture(scope="module")
def variant(tmp_path_factory):
    path = tmp_path_factory.mktemp("amd-flow") / "col_sum.py"
    path.write_text(COL_SUM)
    kernel = resolve_kernel(f"{path}:col_sum", COL_SUM_SIGNATURE)
    found = capture(kernel, {"R": "64", "C": "256", "num_warps": "8"}, "gfx942", compile_timeout=None)
    assert lds_bank_patterns(found)[0], "the undamaged listing has a bank pattern to damage"
    return found


def with_listing(variant, text: str):
    return dataclasses.replace(variant, listings={**variant.listings, Stage.AMDGCN: text})


def annotates_quickly(variant) -> None:
    start = time.perf_counter()
    annotate(variant, Stage.AMDGCN)
    assert time.perf_counter() - start < 30


def test_a_cut_or_shuffled_listing_still_annotates(variant):
    lines = variant.listings[Stage.AMDGCN].splitlines()
    rng = random.Random(33)
    for _ in range(12):
        damaged = list(lines)
        for _ in range(rng.randint(1, 40)):
            i, j = rng.randrange(len(damaged)), rng.randrange(len(damaged))
            damaged[i], damaged[j] = damaged[j], damaged[i]
        del damaged[rng.randrange(len(damaged)) :][: rng.randint(0, 50)]
        annotates_quickly(with_listing(variant, "\n".join(damaged)))


def test_impossible_operands_branches_and_loops_are_no_answer_not_an_error(variant):
    text = variant.listings[Stage.AMDGCN]
    hostile = [
        text.replace("v_lshlrev_b32_e32", "v_lshlrev_b32_e32 v[0:999999999],", 3),
        text.replace("s_endpgm", "s_branch .Lnowhere"),
        text.replace("\tds_write2_b32 v", "\tds_write2_b32 v" + "9" * 5000, 1),
        text.replace(", 4, v0", ", 0x" + "f" * 5000 + ", v0"),
        text.replace("v_lshlrev_b32_e32 v1, 2, v0", "v_add_u32_e32 v1, v1, v1"),
        text.replace("offset1:8", "offset1:" + "9" * 40),
        "\n".join(["k:"] + ["\tv_add_u32_e32 v1, v1, v0", "\ts_cbranch_scc1 k"] * 30000),
    ]
    for damaged in hostile:
        annotates_quickly(with_listing(variant, damaged))


def test_a_workgroup_no_gpu_has_is_not_worked_out(variant):
    info = dataclasses.replace(variant.compile_info, threads_per_block=10**9)
    assert lds_bank_patterns(dataclasses.replace(variant, compile_info=info))[0] == []
    annotates_quickly(dataclasses.replace(variant, compile_info=info))
