"""LDS bank pattern on AMD targets, where the AMDGCN proves each lane's address: present where the addresses
force a conflict, absent where they do not, on kernels written for the tests.

- COL_SUM sums a tile over its rows, which Triton spreads over 8 warps: the warps' partial sums meet
  in LDS at word ``column * 8 + warp``. A lane holds 4 neighbouring columns, so every lane of a wave
  writes into the same two banks: a conflict the addresses force (16x on gfx942).
- TILE_MM's tl.dot stages its A tile in a swizzled shared layout (``#ttg.swizzled_shared``, vec 4,
  maxPhase 8) and reads B by halves of words: no LDS instruction asks a bank for more words than it
  has clocks.

The addresses are checked against LLVM's own arithmetic: the kernel's LLIR compiled again by Triton's
LLVM with the workitem id a constant, for each lane of a wave, folds every address to a number;
irscope's words for that lane, read from the original listing, must be the words the folded one
writes at the same source location (and hold every word it still reads: LLVM drops the reads whose
values that one workitem never uses).
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from amd_reference import compile_llir, with_workitem
from written_kernels import COL_SUM, COL_SUM_SIGNATURE, MM_UNIT_B, SCALED_ADD, TILE_MM

from irscope.annotating import annotate
from irscope.annotating.amd_lds_banks import proven_addresses
from irscope.arch import wave_size
from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.ir import amdgcn
from irscope.ir.amdgcn_flow import Flow
from irscope.stages import Stage

KERNELS = {
    "col_sum": (COL_SUM, COL_SUM_SIGNATURE, {"R": "64", "C": "256", "num_warps": "8"}),
    "tile_mm": (TILE_MM, MM_UNIT_B, {"BM": "64", "BN": "64", "BK": "32"}),
    "scaled_add": (SCALED_ADD, "*fp32:16, *fp32:16, *fp32:16, i32:16, fp32", {"BLOCK": "1024"}),
}
ARCHS = ("gfx942", "gfx1100", "gfx950")


@pytest.fixture(scope="module")
def variants(tmp_path_factory):
    folder = tmp_path_factory.mktemp("amd-banks")
    out = {}
    for name, (source, signature, config) in KERNELS.items():
        (folder / f"{name}.py").write_text(source)
        kernel = resolve_kernel(f"{folder / name}.py:{name}", signature)
        for arch in ARCHS:
            variant = capture(kernel, config, arch, compile_timeout=None)
            assert variant.ok, variant.error
            out[name, arch] = variant
    return out


def banks_finding(variant):
    return [f for f in annotate(variant, Stage.AMDGCN).findings if f.kind == "lds-banks"]


def lds_lines(variant) -> set[int]:
    return {op.index for op in amdgcn.memory_ops(variant.listings[Stage.AMDGCN]) if op.space == "lds"}


@pytest.mark.parametrize("arch", ARCHS)
def test_a_column_sum_across_warps_forces_bank_conflicts_and_says_which_lines(variants, arch):
    variant = variants["col_sum", arch]
    (finding,) = banks_finding(variant)
    assert finding.severity == "warn" and finding.title.startswith("LDS bank conflicts: ")
    lines = variant.listings[Stage.AMDGCN].splitlines()
    assert finding.lines and set(finding.lines) <= lds_lines(variant)
    for row, index in zip(finding.evidence, finding.lines):
        assert row.startswith(f"AMDGCN line {index + 1} {lines[index].split()[0]}: bank ")
    # the partial sums' first write: lane l's columns 4l..4l+3 of warp w at words (4l + j) * 8 + w, two of them
    # a ds_write2 (offset1:8): one bank takes every lane's word of one column
    first = next(r for r in finding.evidence if r.split()[3].rstrip(":") in ("ds_write2_b32", "ds_store_2addr_b32"))
    said = {
        "gfx942": "serves 64 of the wave's 128 words, at least 64 clocks where 128 bytes a clock take 4 (16x)",
        "gfx950": "serves 32 of the wave's 128 words, at least 32 clocks where 128 bytes a clock take 4 (8x)",
        "gfx1100": "serves 16 of the wave's 64 words, at least 16 clocks where 128 bytes a clock take 2 (8x)",
    }
    assert said[arch] in first
    assert f"{arch} has {64 if arch == 'gfx950' else 32} banks" in finding.detail


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_a_swizzled_dot_operand_layout_forces_no_conflict(variants, arch):
    variant = variants["tile_mm", arch]
    assert re.search(
        r"#ttg\.swizzled_shared<\{vec = \d+, perPhase = \d+, maxPhase = [2-9]", variant.listings[Stage.TTGIR]
    )
    (finding,) = banks_finding(variant)
    assert finding.severity == "info" and finding.title.startswith("LDS accesses force no bank conflict (")
    proven = int(re.search(r"\((\d+) of (\d+) ds_", finding.title).group(1))
    assert proven == len(finding.lines) > 10 and set(finding.lines) <= lds_lines(variant)
    assert all("within the" in row for row in finding.evidence)
    if arch == "gfx942":  # every LDS access of it, the pipeline's stage offsets included
        assert proven == len(lds_lines(variant))


def test_no_lds_no_bank_finding_and_gfx950s_undocumented_rate_is_not_guessed(variants):
    assert not banks_finding(variants["scaled_add", "gfx942"]) and not lds_lines(variants["scaled_add", "gfx942"])
    # gfx950's 64 banks: a claim of no conflict needs every bank within the fewest clocks 64 banks allow
    mi355 = banks_finding(variants["tile_mm", "gfx950"])
    assert all(f.severity == "info" for f in mi355)


def words_by_source(text: str, threads: int, lanes: int, tids) -> tuple[dict, set]:
    """(``.loc``, read or write) -> tid -> words, for the proven LDS accesses without a wave-uniform unknown,
    and the keys every LDS access of which is among them."""
    where, loc = {}, None
    for i, line in enumerate(text.splitlines()):
        m = re.match(r"^\s+\.loc\s+(\d+ \d+ \d+)", line)
        loc = m.group(1) if m else loc
        where[i] = loc
    words: dict = defaultdict(lambda: defaultdict(set))
    proven = {i: p for i, p in proven_addresses(text, threads, lanes).items() if p.align == 32}
    for i, p in proven.items():
        key = (where[i], p.opcode.startswith(("ds_read", "ds_load")))
        for tid in tids:
            words[key][tid].update(p.spans[tid](0))
    every: defaultdict[tuple[object, bool], int] = defaultdict(int)
    for op in amdgcn.memory_ops(text):
        if op.space == "lds":
            every[where[op.index], op.kind == "load"] += 1
    complete = {
        k
        for k in words
        if every[k] == sum((where[i], p.opcode.startswith(("ds_read", "ds_load"))) == k for i, p in proven.items())
    }
    return words, complete


@pytest.mark.parametrize(
    "name,arch,tids",
    [
        ("col_sum", "gfx942", range(64)),
        ("col_sum", "gfx1100", range(0, 256, 4)),
        ("tile_mm", "gfx942", range(0, 256, 37)),
    ],
)
def test_every_proven_address_is_the_one_llvm_folds_for_that_workitem(variants, name, arch, tids):
    variant = variants[name, arch]
    lanes, threads = wave_size(arch), variant.compile_info.threads_per_block
    ours, complete = words_by_source(variant.listings[Stage.AMDGCN], threads, lanes, tids)
    assert ours
    writes = reads = 0
    for tid in tids:
        folded = compile_llir(with_workitem(variant.listings[Stage.LLIR], tid), arch)
        theirs, _ = words_by_source(folded, 1, lanes, [0])
        for (where, read), per_tid in ours.items():
            got, mine = theirs[where, read][0], per_tid[tid]
            if not read:  # a write is never dropped: ours are among LLVM's, all of them where all are proven
                assert mine == got if (where, read) in complete else mine <= got, (tid, where)
                writes += 1
            elif (where, read) in complete:  # LLVM drops a read whose value the workitem never uses
                assert got <= mine, (tid, where)
                reads += got == mine
    assert writes >= len(tids)
    if name == "col_sum":  # the conflicting writes and reads are among those compared word for word
        assert complete and reads > 0


def test_exec_is_followed_through_if_else_and_a_mask_kept_in_sgprs():
    """LLVM's structured control flow (if: s_and_saveexec; else: s_xor, s_andn2_saveexec; end: s_or): the lanes
    are all back after the end, and only there."""
    text = "\n".join(
        [
            "k:",
            "\tv_cmp_gt_u32_e32 vcc, 4, v0",
            "\ts_and_saveexec_b64 s[0:1], vcc",
            "\ts_xor_b64 s[0:1], exec, s[0:1]",
            "\tds_write_b32 v0, v1",
            ".LBB0_2:",
            "\ts_andn2_saveexec_b64 s[0:1], s[0:1]",
            "\tds_write_b32 v0, v2",
            "\ts_or_b64 exec, exec, s[0:1]",
            "\tds_write_b32 v0, v3",
            "\ts_endpgm",
        ]
    )
    flow = Flow(text, 64)
    assert [flow.full_exec(i) for i in (4, 7, 9)] == [False, False, True]
    assert not Flow(text.replace("s_xor_b64 s[0:1]", "s_xor_b64 s[2:3]"), 64).full_exec(9)


def test_a_vgpr_written_under_a_partial_exec_is_not_taken_for_every_lanes_value():
    """After the if, v1 holds 5 only in the lanes that ran it, its old value in the others: unproven, not 5."""
    from irscope.annotating.amd_lanes import LaneValues

    lines = [
        "k:",
        "\tv_lshlrev_b32_e32 v1, 2, v0",
        "\tv_cmp_gt_u32_e32 vcc, 4, v0",
        "\ts_and_saveexec_b64 s[0:1], vcc",
        "\tv_mov_b32_e32 v1, 5",
        "\ts_or_b64 exec, exec, s[0:1]",
        "\tds_write_b32 v1, v2",
        "\ts_endpgm",
    ]
    values = LaneValues(Flow("\n".join(lines), 64), 64, 64)
    assert values.at(6, "v1") is None
    whole = LaneValues(Flow("\n".join(lines[:3] + lines[4:5] + lines[6:]), 64), 64, 64)
    assert whole.at(5, "v1").lanes == (5,) * 64  # the same write with every lane running it
