"""Exact line alignment by bit-parallel dynamic programming, on Python's big integers.

The fewest edits between two sequences (and their longest common subsequence) is a table of
len(a) x len(b) cells. Computed a column at a time with one bit per cell (Myers 1999 in Hyyro's
form for the edit distance; Allison and Dix 1986 for the LCS), a column is a dozen big-integer
operations, done in C: an exact answer for regions that difflib would take seconds over, or that
a heuristic would give up as one replace.

An edit is one line inserted, deleted or replaced by another: the unit a diff's size is counted in
(``changed_instructions``: a hunk changes the larger of its removed and added lines). A minimal
alignment under that count keeps replaced lines across from each other instead of matching a line
far away and removing and adding everything between.

In the edit table, column ``j`` (after ``b[:j]``) is kept as its vertical deltas ``D(i, j) -
D(i - 1, j)`` over ``i`` (+1 bits in ``plus``, -1 bits in ``minus``) and its horizontal deltas
``D(i, j) - D(i, j - 1)`` (``right_plus``, ``right_minus``; bit ``i - 1`` for row ``i``); ``D(0, j) = j``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from math import isqrt

WHOLE_TABLE = 1 << 22  # cells of a table kept whole by edit_pairs (2 MB), not worked out twice


def _masks(a: Sequence[Hashable]) -> dict[Hashable, int]:
    """Each value of ``a`` -> the integer with bit ``i`` set where ``a[i]`` is that value."""
    masks: dict[Hashable, int] = {}
    get = masks.get
    for i, x in enumerate(a):
        masks[x] = get(x, 0) | (1 << i)
    return masks


# A column as a plain tuple (made in C, where the trace back makes thousands for small regions):
# (plus, minus, right_plus, right_minus)
PLUS, MINUS, RIGHT_PLUS = 0, 1, 2
_Column = tuple[int, int, int, int]


def _columns(n: int, masks: dict[Hashable, int], b: Sequence[Hashable], start: _Column, first: int, stop: int):
    """The edit table's columns ``first + 1`` ... ``stop``, from column ``first`` (``start``)."""
    full = (1 << n) - 1
    plus, minus = start[PLUS], start[MINUS]
    get = masks.get
    out = []
    for y in b[first:stop]:
        eq = get(y, 0)
        xv = eq | minus
        xh = (((eq & plus) + plus) ^ plus) | eq
        # (full ^ x is ~x within the table; a carry out of the sum above sets bits past it, which
        # the shift below drops again)
        right_plus = minus | (full ^ (xh | plus))
        right_minus = plus & xh
        # row 0 is 0, 1, 2 ...: a +1 comes in below the first row of every column
        shifted_plus = ((right_plus << 1) | 1) & full
        shifted_minus = (right_minus << 1) & full
        plus = shifted_minus | (full ^ (xv | shifted_plus))
        minus = shifted_plus & xv
        out.append((plus, minus, right_plus, right_minus))
    return out


def edit_distance(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """The fewest single-item insertions, deletions and replacements that turn ``a`` into ``b``
    (Levenshtein's distance with unit costs)."""
    n, m = len(a), len(b)
    if not n or not m:
        return max(n, m)
    last = _columns(n, _masks(a), b, ((1 << n) - 1, 0, 0, 0), 0, m)[-1]
    return m + last[PLUS].bit_count() - last[MINUS].bit_count()


def edit_pairs(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int, int]]:
    """The pairs ``(i, j)`` (``a[i] == b[j]``), in order, that a minimal edit script keeps: between
    two of them, the lines of ``a`` are replaced by those of ``b`` (and the surplus of either side
    inserted or deleted).

    Columns are kept at every ``sqrt(len(b))``-th line of ``b`` only, and those between two of them
    worked out again as the trace back reaches them: memory of two such stretches, not of the whole
    table (a 20,000-line listing's table is 200 MB), for twice the arithmetic."""
    n, m = len(a), len(b)
    if not n or not m:
        return []
    masks = _masks(a)
    # the whole table where it is small (4 bits a cell), else every step-th column
    step = m if n * m <= WHOLE_TABLE else max(1, isqrt(m))
    kept: dict[int, _Column] = {0: ((1 << n) - 1, 0, 0, 0)}
    whole = None
    for j in range(0, m, step):
        stop = min(j + step, m)
        whole = _columns(n, masks, b, kept[j], j, stop)
        kept[stop] = whole[-1]
    if step < m:
        whole = None
    pairs: list[tuple[int, int]] = []
    i, j = n, m
    columns = whole
    while i and j:
        base = (j - 1) // step * step
        if columns is None:
            columns = _columns(n, masks, b, kept[base], base, j)  # columns[k] is column base + k + 1
        while i and j > base:
            if a[i - 1] == b[j - 1]:  # keeping an equal pair is always on some minimal script
                i -= 1
                j -= 1
                pairs.append((i, j))
                continue
            # Where deleting or inserting costs no more than replacing, it is preferred: the script keeps
            # as many equal lines (A's [x, c] against B's [c, y]: c kept, x removed, y added, rather than
            # both replaced), and an instruction added at one end of a run of alike ones is not read as
            # every one of them moved up by one.
            column = columns[j - base - 1]
            if (column[PLUS] >> (i - 1)) & 1:  # D(i, j) = D(i - 1, j) + 1: a[i - 1] deleted
                i -= 1
            elif (column[RIGHT_PLUS] >> (i - 1)) & 1:  # D(i, j) = D(i, j - 1) + 1: b[j - 1] inserted
                j -= 1
            else:  # then D(i, j) = D(i - 1, j - 1) + 1: a[i - 1] replaced by b[j - 1]
                i -= 1
                j -= 1
        columns = None
    pairs.reverse()
    return pairs


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """The length of a longest common subsequence of ``a`` and ``b``. (Bit ``i`` of the row after
    ``b[:j]`` is 0 where ``LCS(a[:i + 1], b[:j])`` exceeds ``LCS(a[:i], b[:j])``.)"""
    if not a or not b:
        return 0
    masks = _masks(a)
    full = (1 << len(a)) - 1
    row = full
    get = masks.get
    for y in b:
        u = row & get(y, 0)
        row = ((row + u) | (row - u)) & full
    return len(a) - row.bit_count()
