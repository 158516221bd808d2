"""The patience diff: its opcodes always rebuild B from A; regions without anchors are aligned by the fewest edits."""

from __future__ import annotations

import random

from irscope.diffing.algorithm import opcodes


def _apply(a, b, ops):
    out = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
            out.extend(a[i1:i2])
        else:
            out.extend(b[j1:j2])
    return out


def _covers(a, b, ops):
    ia = ib = 0
    for _tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (ia, ib)
        ia, ib = i2, j2
    assert (ia, ib) == (len(a), len(b))


def test_opcodes_rebuild_b_from_a_on_random_edits():
    rng = random.Random(7)
    for _ in range(300):
        a = [f"line {rng.randint(0, 30)}" for _ in range(rng.randint(0, 60))]
        b = list(a)
        for _ in range(rng.randint(0, 10)):
            op = rng.choice("ids")
            pos = rng.randint(0, len(b))
            if op == "i":
                b.insert(pos, f"new {rng.randint(0, 99)}")
            elif b and pos < len(b):
                if op == "d":
                    del b[pos]
                else:
                    b[pos] = f"sub {rng.randint(0, 99)}"
        ops = opcodes(a, b)
        _covers(a, b, ops)
        assert _apply(a, b, ops) == b


def test_identical_inputs_are_one_equal_block_and_edits_are_local():
    a = [f"instr {i}" for i in range(1000)]
    assert opcodes(a, a) == [("equal", 0, 1000, 0, 1000)]
    b = a[:500] + ["inserted"] + a[500:]
    assert opcodes(a, b) == [("equal", 0, 500, 0, 500), ("insert", 500, 500, 500, 501), ("equal", 500, 1000, 501, 1001)]


def test_a_region_one_line_long_aligns_as_difflib_aligns_it():
    """A region with one line on a side (its ends already apart) is aligned without anchors or difflib:
    its line pairs with its first match on the other side. It gives what difflib gives."""
    import difflib

    from irscope.diffing.algorithm import _merge, _one_line

    rng = random.Random(11)
    for _ in range(500):
        many = [f"x{rng.randint(0, 6)}" for _ in range(rng.randint(1, 12))]
        one = [f"x{rng.randint(0, 6)}"]
        for a, b in ((one, many), (many, one)):
            out: list = []
            _one_line(a, b, 0, len(a), 0, len(b), out)
            expected = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
            assert _merge(out) == _merge(expected), (a, b)


# ---------------------------------------------------------------- opcodes that cover both listings


from irscope.diffing import algorithm  # noqa: E402


def _edited(rng: random.Random, a: list[int], alphabet: int) -> list[int]:
    """``a`` with inserted, deleted, substituted and moved runs."""
    b = list(a)
    for _ in range(rng.randint(0, 12)):
        pos = rng.randint(0, len(b))
        op = rng.choice("idsm")
        if op == "i":
            b[pos:pos] = [rng.randrange(alphabet + 5) for _ in range(rng.randint(1, 6))]
        elif op == "d":
            del b[pos : pos + rng.randint(1, 6)]
        elif op == "s" and pos < len(b):
            b[pos] = rng.randrange(alphabet + 5)
        elif op == "m" and len(b) > 10:
            run = b[pos : pos + rng.randint(1, 5)]
            del b[pos : pos + len(run)]
            at = rng.randint(0, len(b))
            b[at:at] = run
    return b


def _check_cover(ops, a, b) -> None:
    """Opcodes in order, each range following the last, ``equal`` only over equal lines, both listings covered."""
    i = j = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j) and i2 >= i1 and j2 >= j1, ops
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(a), len(b))


def test_opcodes_and_a_realign_round_cover_both_listings_on_random_edits():
    """Opcodes, and a realign round after some lines changed (with and without the changed sets), on
    small and large alphabets (many repeats: anchors by k-th occurrence, difflib's regions, regions
    too large for it), repeats 1 and 8."""
    rng = random.Random(5)
    for _ in range(1500):
        alphabet = rng.choice([2, 3, 5, 10, 30, 200])
        a = [rng.randrange(alphabet) for _ in range(rng.choice([0, 1, 2, 3, 5, 10, 40, 150, 400]))]
        b = (
            _edited(rng, a, alphabet)
            if rng.random() < 0.8
            else [rng.randrange(alphabet) for _ in range(rng.choice([0, 1, 5, 150, 300]))]
        )
        repeats = rng.choice([1, 8])
        first = algorithm.opcodes(a, b, repeats)
        _check_cover(first, a, b)
        a2 = [x if rng.random() < 0.9 else rng.randrange(alphabet + 3) for x in a]
        b2 = [x if rng.random() < 0.9 else rng.randrange(alphabet + 3) for x in b]
        changed = (
            {i for i, (x, y) in enumerate(zip(a, a2)) if x != y},
            {j for j, (x, y) in enumerate(zip(b, b2)) if x != y},
        )
        for known in (None, changed):
            _check_cover(algorithm.realign(a2, b2, first, repeats, known), a2, b2)


def test_a_realign_with_nothing_changed_keeps_the_earlier_alignment():
    rng = random.Random(77)
    for _ in range(300):
        alphabet = rng.choice([1, 2, 3, 5, 10, 40, 1000])
        a = [rng.randrange(alphabet) for _ in range(rng.choice([0, 1, 2, 3, 10, 50, 200]))]
        b = _edited(rng, a, alphabet)
        previous = algorithm.opcodes(a, b, 8)
        assert algorithm.realign(a, b, previous, 8, (set(), set())) == previous


def test_a_long_listing_keeps_its_unedited_stretches_aligned():
    """100k lines with scattered edits and moved blocks: deep regions, and tables of 30k numbers."""
    rng = random.Random(3)
    a = [rng.randrange(30_000) for _ in range(100_000)]
    b = list(a)
    for _ in range(300):
        pos = rng.randrange(len(b))
        kind = rng.randrange(3)
        if kind == 0:
            b[pos:pos] = [rng.randrange(30_000) for _ in range(rng.randint(1, 20))]
        elif kind == 1:
            del b[pos : pos + rng.randint(1, 20)]
        else:
            block = b[pos : pos + 50]
            del b[pos : pos + 50]
            to = rng.randrange(len(b))
            b[to:to] = block
    for repeats in (1, 8):
        ops = algorithm.opcodes(a, b, repeats)
        _check_cover(ops, a, b)
        assert sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal") > 0.9 * len(a)


def test_a_region_with_no_line_in_common_is_one_replace():
    a = [k % 7 for k in range(300)]
    b = [7 + k % 5 for k in range(300)]  # no line in common, 90,000 cells
    assert algorithm.opcodes(a, b, 8) == [("replace", 0, 300, 0, 300)]


def test_a_long_region_without_anchors_is_aligned_by_the_fewest_edits():
    """Every line repeats (no anchor), 4,000 lines a side, far past what difflib was trusted with: the
    alignment is a minimal edit script (edits counted as the diff counts changed lines: per stretch
    between kept lines, the larger side), where difflib's region limit once gave it all up as one replace."""
    from irscope.diffing.exact import edit_distance

    rng = random.Random(9)
    a = [rng.randrange(6) for _ in range(4000)]
    b = _edited(rng, a, 6)
    ops = algorithm.opcodes(a, b)
    _check_cover(ops, a, b)
    cost = sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")
    assert cost == edit_distance(a, b) < len(a) // 10


def test_real_listings_align_by_their_shapes(tmp_path):
    """The shapes of the matmul written for the tests (num_stages 2 against 3) in PTX and SASS, as the
    canonical diff aligns them first."""
    from written_kernels import MM_UNIT_B, TILE_MM

    from irscope.capturing import capture
    from irscope.diffing.canonical import listing_lines, tokenize
    from irscope.frontends import resolve_kernel
    from irscope.types import Stage

    (tmp_path / "mm.py").write_text(TILE_MM)
    ref = resolve_kernel(f"{tmp_path / 'mm.py'}:tile_mm", MM_UNIT_B)
    base = {"BM": 128, "BN": 128, "BK": 64, "num_warps": 8}
    va, vb = capture(ref, {**base, "num_stages": 2}, "sm_90"), capture(ref, {**base, "num_stages": 3}, "sm_90")
    for stage in (Stage.PTX, Stage.SASS):
        sa = [x.shape for x in tokenize(stage, listing_lines(stage, va.listings[stage]))]
        sb = [x.shape for x in tokenize(stage, listing_lines(stage, vb.listings[stage]))]
        ops = algorithm.opcodes(sa, sb, 8)
        _check_cover(ops, sa, sb)
        assert sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal") > len(sa) // 4


def test_lines_of_any_hashable_kind_align():
    assert algorithm.opcodes([10**9, 5], [5], 1) == [("delete", 0, 1, 0, 0), ("equal", 1, 2, 0, 1)]
    assert algorithm.opcodes(["x", "y"], ["y"], 1) == [("delete", 0, 1, 0, 0), ("equal", 1, 2, 0, 1)]
