"""The diff's size against its floors (issue 30, point 7), on real compiles of kernels written for the test.

- exact.py (edit distance, a minimal edit script, LCS) against the textbook dynamic programme.
- The floors as floor.py defines them, on lines worked by hand.
- A long unrolled listing (a row softmax, 512 elements per thread: BLOCK 16384 on one warp against
  32768 on two) stays within 1.5x of the opcode+immediates floor, as short ones do.
- Ignoring a class never shows more changed lines, nor more changed instructions, than not ignoring
  it: every pair of ignore sets, one inside the other, on every pair of variants of four kernels.
"""

from __future__ import annotations

import random
from itertools import chain, combinations

import pytest
from written_kernels import (
    MM_UNIT_B,
    ROW_LAYERNORM,
    ROW_LAYERNORM_SIGNATURE,
    ROW_SOFTMAX,
    ROW_SOFTMAX_SIGNATURE,
    TILE_MM,
    TILE_TRANSPOSE,
    TILE_TRANSPOSE_SIGNATURE,
)

from irscope.capturing import capture
from irscope.diffing import diff_variants, exact
from irscope.diffing.canonical import IGNORABLE, listing_lines
from irscope.diffing.floor import floors, opcode_immediates, shapes
from irscope.frontends import resolve_kernel
from irscope.ir.normalize import NormalizedLine
from irscope.types import Stage

# ---------------------------------------------------------------- exact.py against the textbook


def _table_distance(a, b) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row = row, [i]
        for j, y in enumerate(b, 1):
            row.append(min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (x != y)))
    return row[-1]


def _table_lcs(a, b) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        previous, row = row, [0]
        for j, y in enumerate(b):
            row.append(previous[j] + 1 if x == y else max(previous[j + 1], row[j]))
    return row[-1]


def _script_cost(a, b, pairs) -> int:
    """Edits of the script that keeps ``pairs``: between two kept pairs, the larger side's lines."""
    cost, i, j = 0, 0, 0
    for x, y in [*pairs, (len(a), len(b))]:
        assert x >= i and y >= j
        cost += max(x - i, y - j)
        i, j = x + 1, y + 1
    return cost


@pytest.mark.parametrize("whole_table", [exact.WHOLE_TABLE, 0])
def test_exact_alignment_agrees_with_the_textbook_table_on_random_sequences(monkeypatch, whole_table):
    """With the whole table kept and with columns worked out again between kept ones."""
    monkeypatch.setattr(exact, "WHOLE_TABLE", whole_table)
    rng = random.Random(30)
    for _ in range(1500):
        alphabet = rng.choice([1, 2, 3, 5, 30])
        a = [rng.randrange(alphabet) for _ in range(rng.randrange(0, 45))]
        b = [rng.randrange(alphabet) for _ in range(rng.randrange(0, 45))]
        distance = _table_distance(a, b)
        assert exact.edit_distance(a, b) == distance
        assert exact.lcs_length(a, b) == _table_lcs(a, b)
        pairs = exact.edit_pairs(a, b)
        assert all(a[i] == b[j] for i, j in pairs)
        assert _script_cost(a, b, pairs) == distance


# ---------------------------------------------------------------- the floors, by hand

A = [
    ".reg .b32 %r<9>;",
    "mov.u32 %r1, %tid.x;",
    "or.b32 %r2, %r1, 32;",
    "@%p1 ld.global.b32 %r3, [ %rd1 + 0 ];",
    "$L__BB0_2:",
    "add.s64 %rd5, %rd1, 128;",
]
B = [
    ".reg .b32 %r<9>;",
    "mov.u32 %r7, %tid.x;",
    "or.b32 %r8, %r7, 64;",
    "@%p4 ld.global.b32 %r2, [ %rd6 + 0 ];",
    "$L__BB0_5:",
    "add.s32 %r5, %r1, 128;",
]


def _lines(texts):
    return [NormalizedLine(i, t) for i, t in enumerate(texts)]


def test_the_floors_read_each_instruction_as_its_opcode_and_numbers_or_its_shape():
    assert opcode_immediates(Stage.PTX, _lines(A)) == ["mov.u32", "or.b32 32", "ld.global.b32 0", "add.s64 128"]
    assert opcode_immediates(Stage.PTX, _lines(A), immediates=False) == [
        "mov.u32",
        "or.b32",
        "ld.global.b32",
        "add.s64",
    ]
    assert shapes(Stage.PTX, _lines(B))[2:] == ["@%p ld.global.b32 %r, [ %rd + 0 ];", "add.s32 %r, %r, 128;"]
    f = floors(Stage.PTX, _lines(A), _lines(B))
    # the new offset and the new opcode; the register classes of the add too; directives and labels are
    # not instructions; a minimal line diff removes and adds each of the two
    assert (f.opcode_immediates, f.registers_kept, f.lines) == (2, 2, 4)
    assert floors(Stage.PTX, _lines(A), _lines(B), immediates=False).opcode_immediates == 1


# ---------------------------------------------------------------- long and short listings


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The kernels written for these tests, as irscope resolves them."""
    folder = tmp_path_factory.mktemp("floor")
    kernels = {}
    for name, source, signature in (
        ("row_softmax", ROW_SOFTMAX, ROW_SOFTMAX_SIGNATURE),
        ("row_layernorm", ROW_LAYERNORM, ROW_LAYERNORM_SIGNATURE),
        ("tile_transpose", TILE_TRANSPOSE, TILE_TRANSPOSE_SIGNATURE),
        ("tile_mm", TILE_MM, MM_UNIT_B),
    ):
        (folder / f"{name}.py").write_text(source)
        kernels[name] = resolve_kernel(f"{folder / name}.py:{name}", signature)
    return kernels


def _captured(kernel, config):
    v = capture(kernel, config, "sm_90")
    assert v.ok, v.error
    return v


def _sizes(va, vb, stage, ignore=()):
    d = diff_variants(va, vb, stage, summary_stages=(), ignore=ignore)
    return sum(d.counts()), d.changed_instructions()


@pytest.mark.parametrize(
    "a,b",
    [
        ({"BLOCK": 16384, "num_warps": 1}, {"BLOCK": 32768, "num_warps": 2}),  # ~6,700 PTX lines a side
        ({"BLOCK": 1024, "num_warps": 4}, {"BLOCK": 1024, "num_warps": 8}),
        ({"BLOCK": 1024, "num_warps": 4}, {"BLOCK": 2048, "num_warps": 4}),
    ],
)
def test_a_long_unrolled_listing_stays_within_the_floor_as_short_ones_do(written, a, b):
    """Each element's offset moves (a thread's elements 32 apart on one warp, 64 on two): the offsets
    change and nothing else does. Renaming by first appearance, or pairing registers by their offsets,
    changed every line that used one (7,285 lines where the floor is ~1,600)."""
    va, vb = _captured(written["row_softmax"], a), _captured(written["row_softmax"], b)
    lines_a, lines_b = (listing_lines(Stage.PTX, v.listings[Stage.PTX]) for v in (va, vb))
    floor = floors(Stage.PTX, lines_a, lines_b)
    _, changed = _sizes(va, vb, Stage.PTX)
    assert 0 < floor.opcode_immediates and changed <= 1.5 * floor.opcode_immediates, (changed, floor)
    if a["BLOCK"] == 16384:
        assert len(lines_a) > 5000 and floor.opcode_immediates > 1000  # long, and much changed


# ---------------------------------------------------------------- ignoring a class never shows more

VARIANTS = {
    "row_softmax": [{"BLOCK": 1024, "num_warps": 4}, {"BLOCK": 1024, "num_warps": 8}, {"BLOCK": 4096, "num_warps": 4}],
    "row_layernorm": [{"BLOCK": 512, "num_warps": 2}, {"BLOCK": 2048, "num_warps": 2}, {"BLOCK": 2048, "num_warps": 8}],
    "tile_transpose": [{"BM": 32, "BN": 32}, {"BM": 64, "BN": 64}, {"BM": 64, "BN": 64, "num_warps": 8}],
    "tile_mm": [
        {"BM": 64, "BN": 128, "BK": 64, "num_warps": 4, "num_stages": 3},
        {"BM": 128, "BN": 128, "BK": 64, "num_warps": 4, "num_stages": 3},
        {"BM": 128, "BN": 128, "BK": 64, "num_warps": 8, "num_stages": 2},
    ],
}
IGNORE_SETS = list(chain.from_iterable(combinations(IGNORABLE, n) for n in range(len(IGNORABLE) + 1)))


@pytest.mark.parametrize("kernel", list(VARIANTS))
def test_ignoring_a_class_never_shows_more_changed_lines_or_instructions(written, kernel):
    """Every pair of a kernel's variants (block shapes, num_warps, num_stages), in TTGIR, PTX and SASS:
    for each ignore set and each set inside it, the larger shows no more."""
    variants = [_captured(written[kernel], config) for config in VARIANTS[kernel]]
    checked = 0
    for va, vb in combinations(variants, 2):
        for stage in (Stage.TTGIR, Stage.PTX, Stage.SASS):
            sizes = {ignore: _sizes(va, vb, stage, ignore) for ignore in IGNORE_SETS}
            assert sizes[()][0] > 0
            for small in IGNORE_SETS:
                for large in IGNORE_SETS:
                    if set(small) < set(large):
                        assert sizes[large][0] <= sizes[small][0], (stage, small, large, sizes)
                        assert sizes[large][1] <= sizes[small][1], (stage, small, large, sizes)
                        checked += 1
    assert checked == 3 * 3 * 19  # 3 pairs, 3 stages, 19 nested pairs of ignore sets
