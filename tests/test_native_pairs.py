"""The pairing steps of the canonical diff in C (irscope/diff/_native_pairs.c) give what their Python
versions in canonical.py give, on listings of a kernel written for this test, and refuse bad input
with an exception rather than a crash."""

from __future__ import annotations

import os
import random

import pytest
from written_kernels import MM_UNIT_B, TILE_MM

from irscope.capture import capture
from irscope.diff import canonical, native
from irscope.diff.canonical import listing_lines, tokenize
from irscope.frontends import resolve_kernel
from irscope.types import Stage

needs_native = pytest.mark.skipif(native.pairs is None, reason="the native core was not built here")


def test_the_native_core_is_there_where_the_build_must_make_it():
    """CI sets IRSCOPE_REQUIRE_NATIVE=1: a build that quietly fell back to Python would pass every
    other test while the diff ran at Python's speed."""
    if os.environ.get("IRSCOPE_REQUIRE_NATIVE") != "1":
        pytest.skip("IRSCOPE_REQUIRE_NATIVE is not set")
    assert native.pairs is not None


@pytest.fixture(scope="module")
def tokens(tmp_path_factory):
    folder = tmp_path_factory.mktemp("native_pairs")
    (folder / "mm.py").write_text(TILE_MM)
    ref = resolve_kernel(f"{folder / 'mm.py'}:tile_mm", MM_UNIT_B)
    base = {"BM": 128, "BN": 128, "BK": 64, "num_warps": 8}
    va, vb = capture(ref, {**base, "num_stages": 2}, "sm_90"), capture(ref, {**base, "num_stages": 3}, "sm_90")
    assert va.ok and vb.ok, (va.error, vb.error)
    out = {}
    for stage in (Stage.TTGIR, Stage.PTX, Stage.SASS):
        out[stage] = (tokenize(stage, listing_lines(stage, va.listings[stage])),
                      tokenize(stage, listing_lines(stage, vb.listings[stage])))
    return out


STAGES = [Stage.TTGIR, Stage.PTX, Stage.SASS]


def _mapping(ta, tb):
    """A real pairing of the two listings' names: the first round's, from their shapes' alignment."""
    ops = canonical.opcodes([x.shape for x in ta], [x.shape for x in tb], repeats=8)
    return canonical._Votes(ta, tb).pair(ops)


@needs_native
@pytest.mark.parametrize("stage", STAGES)
def test_signatures_are_numbered_alike(tokens, stage):
    ta, tb = tokens[stage]
    mapping = _mapping(ta, tb)
    paired = {y: y for y in mapping.values()}
    frames_a, reads_a = [x.frame for x in ta], [x.reads for x in ta]
    frames_b, reads_b = [x.frame for x in tb], [x.reads for x in tb]
    which = sorted(random.Random(1).sample(range(len(ta)), len(ta) // 3))
    results = []
    for number in (canonical._number_python, native.pairs.number):
        table: dict = {}
        got = (number(frames_a, reads_a, mapping, table), number(frames_b, reads_b, paired, table),
               number(frames_a, reads_a, {}, table, which))
        results.append((got, list(table.items())))  # the table's order too: later rounds number through it
    assert results[0] == results[1]
    numbers_a, numbers_b, _ = results[0][0]
    assert len(set(numbers_a) & set(numbers_b)) > 50  # the listings share many lines under the pairing


@needs_native
@pytest.mark.parametrize("stage", STAGES)
def test_lines_touched_by_changed_names_are_the_same(tokens, stage):
    ta, _ = tokens[stage]
    reads = [x.reads for x in ta]
    names = sorted({k for r in reads for k in r})
    rng = random.Random(2)
    for size in (0, 1, 5, len(names) // 4):
        changed = set(rng.sample(names, size))
        found = native.pairs.touching(reads, changed)
        assert found == canonical._touching_python(reads, changed)
        assert (len(found) > 0) == (size > 0)


@needs_native
@pytest.mark.parametrize("stage", STAGES)
def test_lines_are_written_alike(tokens, stage):
    ta, tb = tokens[stage]
    mapping = _mapping(ta, tb)
    shown_b = {k: n for x in tb for k, n in zip(x.keys, x.names)}
    names = {k: shown_b[mapping[k]] if k in mapping else f"{n}~a" for x in ta for k, n in zip(x.keys, x.names)}
    keep = {k for x in ta for k, n in zip(x.keys, x.names) if names[k] == n}
    written = native.pairs.written(ta, names, keep)
    assert written == canonical._written_python(ta, names, keep)
    assert sum(w != x.text for w, x in zip(written, ta)) > 20  # some lines really are rewritten
    # a name of another width (a non-ASCII one) lands where its separator was
    first = next(x for x in ta if x.names)
    other = {k: "\u00e9" + n for k, n in names.items()}
    assert native.pairs.written([first], other, set()) == canonical._written_python([first], other, set())


@needs_native
@pytest.mark.parametrize("stage", STAGES)
def test_names_pair_greedily_alike(tokens, stage):
    ta, tb = tokens[stage]
    votes = canonical._Votes(ta, tb)
    votes.pair(canonical.opcodes([x.shape for x in ta], [x.shape for x in tb], repeats=8))
    assert native.pairs.greedy(votes.votes) == canonical._greedy_python(votes.votes)
    assert len(native.pairs.greedy(votes.votes)) > 20
    # ties break by the counts' order, as most_common breaks them
    tied = canonical.Counter({("b", "y"): 2, ("a", "y"): 2, ("a", "x"): 2, ("c", "z"): -1, ("d", "w"): 0})
    assert native.pairs.greedy(tied) == canonical._greedy_python(tied) == {"b": "y", "a": "x"}


@needs_native
@pytest.mark.parametrize("stage", STAGES)
def test_votes_are_counted_alike(tokens, stage):
    """Votes added for one alignment and taken back for part of it: the same counts in the same order
    (most_common breaks ties by it)."""
    ta, tb = tokens[stage]
    width = len(tb) + 1
    ops = canonical.opcodes([x.shape for x in ta], [x.shape for x in tb], repeats=8)
    aligned = sorted(i * width + j for tag, i1, i2, j1, j2 in ops if tag == "equal"
                     for i, j in zip(range(i1, i2), range(j1, j2)))
    gone = aligned[::3]
    counted = []
    for count in (canonical._count_votes_python, native.pairs.votes):
        counts = canonical.Counter()
        count(ta, tb, aligned, width, canonical.DEF_WEIGHT, counts, 1)
        count(ta, tb, gone, width, canonical.DEF_WEIGHT, counts, -1)
        counted.append(list(counts.items()))
    assert counted[0] == counted[1]
    assert any(n > canonical.DEF_WEIGHT for _, n in counted[0]) and any(n == 0 for _, n in counted[0])


@needs_native
def test_the_whole_pairing_is_the_same_with_the_python_steps(tokens, monkeypatch):
    """The canonical diff of each stage, with the native steps and then with the Python ones."""
    native_out = {stage: canonical._canonical(stage, *tokens[stage], set()) for stage in STAGES}
    for name in ("_number", "_touching", "_written", "_greedy", "_count_votes"):
        monkeypatch.setattr(canonical, name, getattr(canonical, f"{name}_python"))
    for stage in STAGES:
        assert canonical._canonical(stage, *tokens[stage], set()) == native_out[stage]


@needs_native
def test_bad_input_is_refused_with_an_exception():
    pairs = native.pairs
    with pytest.raises(TypeError):
        pairs.number(["f"], ["not a list"], {}, {})
    with pytest.raises(ValueError):
        pairs.number(["f", "g"], [[]], {}, {})
    with pytest.raises(IndexError):
        pairs.number(["f"], [[]], {}, {}, [3])
    with pytest.raises(TypeError):
        pairs.touching([["a"]], ["not a set"])
    with pytest.raises(TypeError):
        pairs.written([("not", "a", "line")], {}, set())
    line = canonical.Line(0, "mov %r1;", "mov \0\0;", "", ["%r1"], "mov %r;", ["%r1", "%r2"], -1, [])
    with pytest.raises(KeyError):
        pairs.written([line], {"%r1": "%r9"}, set())
    short = line._replace(frame="mov ;")
    with pytest.raises(ValueError):
        pairs.written([short], {"%r1": "%r9", "%r2": "%r8"}, set())
    with pytest.raises(TypeError):
        pairs.greedy({"x": 1})
    with pytest.raises(TypeError):
        pairs.greedy([(("a", "b"), 1)])
    with pytest.raises(IndexError):
        pairs.votes([line], [line], [5], 2, 4, {}, 1)
    with pytest.raises(TypeError):
        pairs.votes([("short",)], [line], [0], 2, 4, {}, 1)
    assert pairs.greedy({("a", "b"): 2, ("a", "c"): 1, ("d", "b"): 1, ("e", "f"): 0}) == {"a": "b"}
