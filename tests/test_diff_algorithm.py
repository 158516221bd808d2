"""The patience diff: its opcodes always rebuild B from A, and it finds what difflib finds on small inputs."""

from __future__ import annotations

import random

from irscope.diff.algorithm import opcodes


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
    for tag, i1, i2, j1, j2 in ops:
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

    from irscope.diff.algorithm import _merge, _one_line

    rng = random.Random(11)
    for _ in range(500):
        many = [f"x{rng.randint(0, 6)}" for _ in range(rng.randint(1, 12))]
        one = [f"x{rng.randint(0, 6)}"]
        for a, b in ((one, many), (many, one)):
            out: list = []
            _one_line(a, b, 0, len(a), 0, len(b), out)
            expected = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
            assert _merge(out) == _merge(expected), (a, b)
