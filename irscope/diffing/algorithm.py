"""Patience diff: line alignment that stays fast when two listings differ a lot.

``difflib.SequenceMatcher`` is quadratic on long listings with many changed lines
(0.3 s for two 9,000-line PTX listings that share half their lines). Patience diff
anchors on lines that occur exactly once on each side, keeps the longest run of
anchors in order, and recurses between them. It is what ``git diff --patience`` does,
and it tends to align code the way a reader would.

A region without anchors is aligned exactly: the fewest lines inserted, deleted or
replaced (exact.py, bit-parallel), the unit a diff's size is counted in. Giving such a
region up as one replace, as this did past 20,000 cells, made a long unrolled
listing (a softmax row of 512 elements per thread, its address offsets repeating in
every shape) all changed.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Hashable, Sequence

from .exact import edit_pairs

Opcode = tuple[str, int, int, int, int]


def opcodes(a: Sequence[Hashable], b: Sequence[Hashable], repeats: int = 1) -> list[Opcode]:
    """``difflib``-style opcodes (equal/replace/delete/insert with ranges) aligning ``a`` to ``b``.

    ``repeats``: a line that occurs as often on both sides, at most this many times, anchors
    too (its k-th occurrences paired): shapes of instructions repeat where whole lines do not.
    """
    out: list[Opcode] = []
    _diff(a, b, 0, len(a), 0, len(b), out, repeats)
    return _merge(out)


def realign(
    a: Sequence, b: Sequence, previous: list[Opcode], repeats: int = 1, changed: tuple[set[int], set[int]] | None = None
) -> list[Opcode]:
    """``opcodes(a, b)`` where ``previous`` aligned earlier versions of the same lines: the lines it
    paired that still match stay paired, and only the stretches between them are aligned again.
    (The canonical diff re-pairs names in rounds; each round changes a few lines, not the listing.)

    ``changed``: the lines of ``a`` and of ``b`` that differ from the earlier versions, if known. A
    stretch with none of them keeps its earlier alignment instead of being aligned again."""
    out: list[Opcode] = []
    gap_a = gap_b = 0  # where the stretch still to align starts
    changed_a, changed_b = changed if changed is not None else (None, None)
    for i, j, n, pending in _still_equal(a, b, previous):
        if i > gap_a or j > gap_b:
            if (
                changed_a is not None
                and changed_b is not None
                and pending
                and _untouched(changed_a, gap_a, i)
                and _untouched(changed_b, gap_b, j)
            ):
                out.extend(pending)
            else:
                _diff(a, b, gap_a, i, gap_b, j, out, repeats)
        if n:
            out.append(("equal", i, i + n, j, j + n))
        gap_a, gap_b = i + n, j + n
    return _merge(out)


def settle(a: Sequence, b: Sequence, previous: list[Opcode], keep: int = 1) -> list[Opcode]:
    """The alignment of ``a`` and ``b`` by the fewest lines inserted, deleted or replaced, where
    ``previous`` aligned earlier versions of them: each run of at least ``keep`` lines that it paired
    and that still match stays paired, and everything between is aligned exactly (exact.py).

    With ``keep=1`` no line that ``previous`` paired and still matches is unpaired, and no stretch
    between changes more lines than it did: an alignment of coarser versions of the same lines
    (a class of names or numbers dropped) changes no more lines, and no more instructions."""
    out: list[Opcode] = []
    gap_a = gap_b = 0
    for i, j, n, _ in _still_equal(a, b, previous):
        if n and n < keep:
            continue
        if i > gap_a or j > gap_b:
            _fewest_edits(a, b, gap_a, i, gap_b, j, out)
        if n:
            out.append(("equal", i, i + n, j, j + n))
        gap_a, gap_b = i + n, j + n
    return _merge(out)


def _still_equal(a: Sequence, b: Sequence, previous: list[Opcode]):
    """The runs of lines that ``previous`` paired and that still match, in order, as ``(i, j, n, pending)``:
    ``n`` lines from ``a[i]`` and ``b[j]``, and the earlier opcodes since the last run (those that pair
    no line now). The last is ``(len(a), len(b), 0, pending)``."""
    pending: list[Opcode] = []
    for op in previous:
        tag, i1, i2, j1, j2 = op
        if tag != "equal":
            pending.append(op)
            continue
        k = 0
        n = i2 - i1
        while k < n:
            if a[i1 + k] != b[j1 + k]:
                k += 1
                pending.append(op)  # a stretch with a line that no longer matches is aligned again
                continue
            start = k
            while k < n and a[i1 + k] == b[j1 + k]:
                k += 1
            yield i1 + start, j1 + start, k - start, list(pending)
            pending.clear()
    yield len(a), len(b), 0, pending


def _untouched(changed: set[int], start: int, end: int) -> bool:
    if end - start < len(changed):
        return changed.isdisjoint(range(start, end))
    return not any(start <= i < end for i in changed)


def _diff(a, b, a0: int, a1: int, b0: int, b1: int, out: list[Opcode], repeats: int = 1) -> None:
    # common prefix and suffix first: cheap, and most of any real diff
    start_a, start_b = a0, b0
    while a0 < a1 and b0 < b1 and a[a0] == b[b0]:
        a0 += 1
        b0 += 1
    if a0 > start_a:
        out.append(("equal", start_a, a0, start_b, b0))
    end_a, end_b = a1, b1
    while a1 > a0 and b1 > b0 and a[a1 - 1] == b[b1 - 1]:
        a1 -= 1
        b1 -= 1
    suffix = ("equal", a1, end_a, b1, end_b) if a1 < end_a else None
    if a0 == a1 or b0 == b1:
        if a0 < a1:
            out.append(("delete", a0, a1, b0, b0))
        elif b0 < b1:
            out.append(("insert", a0, a0, b0, b1))
    elif a1 - a0 == 1 or b1 - b0 == 1:
        _one_line(a, b, a0, a1, b0, b1, out)
    else:
        anchors = _anchors(a, b, a0, a1, b0, b1, repeats)
        if anchors:
            i, j = a0, b0
            for ai, bj in anchors:
                if ai > i or bj > j:
                    _diff(a, b, i, ai, j, bj, out, repeats)
                last = out[-1] if out else None
                if last is not None and last[0] == "equal" and last[2] == ai and last[4] == bj:
                    out[-1] = ("equal", last[1], ai + 1, last[3], bj + 1)  # a run of anchors is one opcode
                else:
                    out.append(("equal", ai, ai + 1, bj, bj + 1))
                i, j = ai + 1, bj + 1
            _diff(a, b, i, a1, j, b1, out, repeats)
        else:
            _exact(a, b, a0, a1, b0, b1, out)
    if suffix:
        out.append(suffix)


def _fewest_edits(a, b, a0: int, a1: int, b0: int, b1: int, out: list[Opcode]) -> None:
    """``a[a0:a1]`` and ``b[b0:b1]`` aligned by the fewest lines inserted, deleted or replaced: their
    common ends kept (always part of such an alignment), what is between aligned exactly."""
    while a0 < a1 and b0 < b1 and a[a0] == b[b0]:
        out.append(("equal", a0, a0 + 1, b0, b0 + 1))
        a0 += 1
        b0 += 1
    end: list[Opcode] = []
    while a1 > a0 and b1 > b0 and a[a1 - 1] == b[b1 - 1]:
        a1 -= 1
        b1 -= 1
        end.append(("equal", a1, a1 + 1, b1, b1 + 1))
    if a0 < a1 or b0 < b1:
        _exact(a, b, a0, a1, b0, b1, out)
    out.extend(reversed(end))


def _exact(a, b, a0: int, a1: int, b0: int, b1: int, out: list[Opcode]) -> None:
    """A region without anchors, aligned by a minimal edit script: the fewest lines inserted, deleted or
    replaced, however long the region (bit-parallel, exact.py)."""
    i, j = a0, b0
    for x, y in edit_pairs(a[a0:a1], b[b0:b1]):
        x += a0
        y += b0
        if x > i or y > j:
            out.append(("replace", i, x, j, y))  # tags are set right by _merge
        out.append(("equal", x, x + 1, y, y + 1))
        i, j = x + 1, y + 1
    if i < a1 or j < b1:
        out.append(("replace", i, a1, j, b1))


def _one_line(a, b, a0: int, a1: int, b0: int, b1: int, out: list[Opcode]) -> None:
    """A region one line long on a side, its ends already apart: that line pairs with its first match on
    the other side, if any. (What the anchors and difflib would find, without their set-up: a third of
    the regions of a long listing's alignment are this small.)"""
    if a1 - a0 == 1:
        try:
            j = b.index(a[a0], b0, b1)
        except ValueError:
            out.append(("replace", a0, a1, b0, b1))
            return
        out += [("insert", a0, a0, b0, j), ("equal", a0, a1, j, j + 1), ("insert", a1, a1, j + 1, b1)]
    else:
        try:
            i = a.index(b[b0], a0, a1)
        except ValueError:
            out.append(("replace", a0, a1, b0, b1))
            return
        out += [("delete", a0, i, b0, b0), ("equal", i, i + 1, b0, b1), ("delete", i + 1, a1, b1, b1)]


def _anchors(a, b, a0: int, a1: int, b0: int, b1: int, repeats: int = 1) -> list[tuple[int, int]]:
    """Lines unique on both sides (or, where there are none and with ``repeats``, as frequent on both
    sides, their k-th occurrences paired), longest increasing run by position (patience sorting)."""
    # Counting slices in C is most of the speed: this runs once per region of the recursion.
    sub_a, sub_b = a[a0:a1], b[b0:b1]
    count_a, count_b = Counter(sub_a), Counter(sub_b)
    common = count_a.keys() & count_b.keys()
    wanted = {x for x in common if count_a[x] == 1 and count_b[x] == 1}
    if not wanted and repeats > 1:
        wanted = {x for x in common if count_a[x] <= repeats and count_b[x] == count_a[x]}
    if not wanted:
        return []
    where_b: dict[str, list[int]] = {}
    for j, x in enumerate(sub_b, b0):
        if x in wanted:
            where_b.setdefault(x, []).append(j)
    seen: dict[str, int] = {}
    pairs = []
    for i, x in enumerate(sub_a, a0):
        if x in wanted:
            k = seen.get(x, 0)
            seen[x] = k + 1
            pairs.append((i, where_b[x][k]))
    if not pairs:
        return []
    # longest increasing subsequence of the b positions, in O(n log n)
    tails: list[int] = []
    tail_index: list[int] = []
    previous: list[int] = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_index.append(n)
        else:
            tails[k] = j
            tail_index[k] = n
        previous[n] = tail_index[k - 1] if k else -1
    chain, n = [], tail_index[-1]
    while n != -1:
        chain.append(pairs[n])
        n = previous[n]
    return chain[::-1]


def _merge(ops: list[Opcode]) -> list[Opcode]:
    """Join neighbouring opcodes of the same kind; turn delete+insert pairs into replace."""
    merged: list[list] = []
    for tag, i1, i2, j1, j2 in ops:
        if i1 == i2 and j1 == j2:
            continue
        if merged:
            last = merged[-1]
            same = last[0] == tag or (last[0] != "equal" and tag != "equal")
            if same and last[2] == i1 and last[4] == j1:
                last[2], last[4] = i2, j2
                if last[0] != tag:
                    last[0] = "replace"
                continue
        merged.append([tag, i1, i2, j1, j2])
    for op in merged:
        if op[0] != "equal":
            op[0] = "replace" if op[1] < op[2] and op[3] < op[4] else ("delete" if op[1] < op[2] else "insert")
    return [tuple(op) for op in merged]
