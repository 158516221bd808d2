"""Patience diff: line alignment that stays fast when two listings differ a lot.

``difflib.SequenceMatcher`` is quadratic on long listings with many changed lines
(0.3 s for two 9,000-line PTX listings that share half their lines). Patience diff
anchors on lines that occur exactly once on each side, keeps the longest run of
anchors in order, and recurses between them; only small regions without anchors
fall back to difflib. It is what ``git diff --patience`` does, and it tends to
align code the way a reader would.
"""

from __future__ import annotations

import bisect
import difflib
from collections import Counter
from collections.abc import Hashable, Sequence

Opcode = tuple[str, int, int, int, int]

SMALL_REGION = 20_000  # len(a) * len(b) below which difflib aligns a region without anchors


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
    pending: list[Opcode] = []  # the earlier opcodes inside that stretch that aligned nothing
    changed_a, changed_b = changed if changed is not None else (None, None)

    def close(i: int, j: int) -> None:
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
        pending.clear()

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
            close(i1 + start, j1 + start)
            out.append(("equal", i1 + start, i1 + k, j1 + start, j1 + k))
            gap_a, gap_b = i1 + k, j1 + k
    close(len(a), len(b))
    return _merge(out)


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
        elif (a1 - a0) * (b1 - b0) <= SMALL_REGION:
            matcher = difflib.SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                out.append((tag, a0 + i1, a0 + i2, b0 + j1, b0 + j2))
        else:
            out.append(("replace", a0, a1, b0, b1))
    if suffix:
        out.append(suffix)


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
