"""Diff two variants: the normalised line diff of one stage, a structural summary
of every stage, and what each Python line became in A and in B.

Normalised means the canonical form of canonical.py: both listings renamed together
after aligning their shapes, so an inserted instruction changes only itself and the
lines that use its names. A block that only moved (a software-pipelined loop body
shifted by its prologue, say) is tagged ``moved`` on both sides, not removed and added."""

from __future__ import annotations

import gc
import re
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter, eq, itemgetter
from typing import Any, NamedTuple

from ..ir.dialects import stage_stats
from ..ir.normalize import NormalizedLine, raw_lines
from ..ir.sourcemap import SourceMap
from ..ir.stats import StageStats
from ..types import HtmlDisplay, Stage, Variant, short_repr
from .algorithm import opcodes
from .summary import summary_lines
from .vendors import AcrossSources, AcrossVendors, across_sources, across_vendors


class Hunk(NamedTuple):
    """One opcode of the line diff: ``tag`` is equal, replace, delete, insert or moved (a delete whose
    lines are inserted elsewhere unchanged, and that insert: both sides say moved). (A NamedTuple: a
    long listing's diff makes tens of thousands, and a frozen dataclass is slow to make.)"""

    tag: str
    a: list[NormalizedLine]
    b: list[NormalizedLine]


@dataclass(frozen=True)
class LineChange:
    """What one Python line became in each variant (instructions of the diffed stage): how many in A and
    in B, and how many of them the diff removed from A and added in B."""

    line: int
    source: str
    a: int
    b: int
    removed: int = 0
    added: int = 0
    # its global memory accesses in A and in B: bytes per thread of each width ("load 16 B x2"), and how
    # many are masked (predicated)
    access_a: tuple[str, ...] = ()
    access_b: tuple[str, ...] = ()
    masked_a: int = 0
    masked_b: int = 0

    @property
    def access_changed(self) -> bool:
        return self.access_a != self.access_b or self.masked_a != self.masked_b


@dataclass
class VariantDiff(HtmlDisplay):
    a: Variant
    b: Variant
    stage: Stage
    raw: bool
    hunks: list[Hunk]
    stats: dict[Stage, tuple[StageStats | None, StageStats | None]] = field(default_factory=dict)
    by_line: list[LineChange] = field(default_factory=list)
    runtimes: tuple[Any, Any] = (None, None)  # filled in by the caller when measurements exist
    # two vendors' builds (sm_90 and gfx942): each one's machine code per Python line (vendors.py)
    across: AcrossVendors | None = None
    # two kernels of different files (a Triton kernel and its CuTe DSL twin): each one's per its own lines
    across_sources: AcrossSources | None = None

    def __repr__(self) -> str:
        removed, added = self.counts()
        return short_repr(
            "VariantDiff",
            self.a.config.label() or "default",
            "vs",
            self.b.config.label() or "default",
            self.stage.value,
            f"-{removed} +{added} lines",
        )

    @property
    def changed(self) -> bool:
        return any(h.tag != "equal" for h in self.hunks)

    def counts(self) -> tuple[int, int]:
        """Lines removed from A and added in B (moved lines are neither)."""
        removed = sum(len(h.a) for h in self.hunks if h.tag not in ("equal", "moved"))
        added = sum(len(h.b) for h in self.hunks if h.tag not in ("equal", "moved"))
        return removed, added

    @property
    def removed(self) -> list[NormalizedLine]:
        """A's lines the diff removes (as normalised; ``.index`` is the line in A's listing); moves are not."""
        return [line for h in self.hunks if h.tag not in ("equal", "moved") for line in h.a]

    @property
    def added(self) -> list[NormalizedLine]:
        """B's lines the diff adds (as normalised; ``.index`` is the line in B's listing); moves are not."""
        return [line for h in self.hunks if h.tag not in ("equal", "moved") for line in h.b]

    def summary(self) -> str:
        """What ``irscope diff`` prints above the listing: both variants, their resources and what changed."""
        return "\n".join(summary_lines(self))

    def changed_instructions(self) -> int:
        """Instructions the diff changes (canonical.changed_instructions: an instruction replaced by one with
        new operands is one change; moves and directives are not counted)."""
        from .canonical import changed_instructions

        return changed_instructions(self.stage, self.hunks)


def diff_lines(a: list[NormalizedLine], b: list[NormalizedLine]) -> list[Hunk]:
    ops = opcodes([x.text for x in a], [x.text for x in b])
    return mark_moves([Hunk(tag, a[i1:i2], b[j1:j2]) for tag, i1, i2, j1, j2 in ops])


def hunks_from(a: list[NormalizedLine], b: list[NormalizedLine], ops) -> list[Hunk]:
    """Hunks from the alignment that paired the names: within an aligned run, a line whose canonical
    text differs from its partner's is a one-line replace (new operands), the rest equal. No second diff."""
    out: list[Hunk] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag != "equal":
            out.append(Hunk(tag, a[i1:i2], b[j1:j2]))
            continue
        same = list(map(eq, map(_TEXT, a[i1:i2]), map(_TEXT, b[j1:j2])))  # compared in C
        start, n = 0, i2 - i1
        while start < n:
            value = same[start]
            try:
                end = same.index(not value, start)
            except ValueError:
                end = n
            out.append(Hunk("equal" if value else "replace", a[i1 + start : i1 + end], b[j1 + start : j1 + end]))
            start = end
    # A run of lines aligned one to one stays its own hunk beside inserts and deletes, so the
    # side-by-side view puts each line across from its partner.
    out = [h if h.tag == "equal" or (h.a and h.b) else Hunk("delete" if h.a else "insert", h.a, h.b) for h in out]
    return mark_moves(out)


def mark_moves(hunks: list[Hunk]) -> list[Hunk]:
    """A deleted run of lines that is inserted elsewhere unchanged: both become ``moved``.

    Within a replace, its deleted part and its inserted part are matched the same way
    (the longest runs first), so a moved line beside a real change is still a move.
    """
    pieces: list[Hunk] = []
    for h in hunks:
        if h.tag == "replace":
            pieces += [Hunk("delete", h.a, []), Hunk("insert", [], h.b)]
        else:
            pieces.append(h)
    inserted: dict[tuple[str, ...], list[int]] = {}
    for n, h in enumerate(pieces):
        if h.tag == "insert":
            inserted.setdefault(tuple(map(_TEXT, h.b)), []).append(n)
    out = list(pieces)
    for n, h in enumerate(pieces):
        if h.tag != "delete":
            continue
        candidates = inserted.get(tuple(map(_TEXT, h.a)))
        if candidates:
            m = candidates.pop(0)
            out[n] = Hunk("moved", h.a, [])
            out[m] = Hunk("moved", [], pieces[m].b)
    # delete and insert side by side again, where they were one replace and neither moved
    merged: list[Hunk] = []
    for h in out:
        if merged and h.tag == "insert" and merged[-1].tag == "delete":
            merged[-1] = Hunk("replace", merged[-1].a, h.b)
        else:
            merged.append(h)
    return merged


# A basic block starts at a label (PTX $L__BB0_3:, SASS .L_x_3:, MLIR ^bb1, LLVM 12:) and ends at a
# branch. Labels as the canonical diff writes them: a name of one side only ($L__BB0_3~a:), a class
# under ignore=registers ($L__BB0_:), LLVM's number under ignore=immediates (#:).
BLOCK_START = re.compile(r"^(?:\$L__BB[\w~]*:|\.L_x_[\w~]*:|\^bb[\w~]*|(?:\d+|#)(?:~[ab])?:)")
BLOCK_END = re.compile(r"\b(?:bra|BRA|BRX|ret|RET|EXIT|br|scf\.yield|cf\.br|cf\.cond_br)\b")


def reorders_as_moves(a: list[NormalizedLine], b: list[NormalizedLine], hunks: list[Hunk]) -> list[Hunk]:
    """``hunks`` with scheduling order ignored (``--ignore order``): a line removed from A and a line
    with the same text added in B, in the same basic block, are a move (``moved`` on both sides), not
    a change. Only changes become moves, so this never shows more changed lines or instructions: what
    stays of each changed hunk stays one hunk."""
    block_a, block_b = _blocks(a), _blocks(b)
    removed: dict[tuple, list[NormalizedLine]] = {}
    for h in hunks:
        if h.tag not in ("equal", "moved"):
            for x in h.a:
                removed.setdefault((block_a[x.index], x.text), []).append(x)
    moved_a: set[int] = set()
    moved_b: set[int] = set()
    for h in hunks:
        if h.tag not in ("equal", "moved"):
            for y in h.b:
                partners = removed.get((block_b[y.index], y.text))
                if partners:
                    moved_a.add(partners.pop().index)
                    moved_b.add(y.index)
    if not moved_b:
        return hunks
    out: list[Hunk] = []
    for h in hunks:
        if h.tag in ("equal", "moved"):
            out.append(h)
            continue
        kept_a = [x for x in h.a if x.index not in moved_a]
        kept_b = [y for y in h.b if y.index not in moved_b]
        if kept_a or kept_b:
            out.append(Hunk("replace" if kept_a and kept_b else "delete" if kept_a else "insert", kept_a, kept_b))
        if len(kept_a) < len(h.a):
            out.append(Hunk("moved", [x for x in h.a if x.index in moved_a], []))
        if len(kept_b) < len(h.b):
            out.append(Hunk("moved", [], [y for y in h.b if y.index in moved_b]))
    return out


def _blocks(lines: list[NormalizedLine]) -> dict[int, tuple[str, int, int]]:
    """Each line's basic block (by its index in the listing): the label that starts it, which
    occurrence of that label text it is, and how many branches since."""
    seen: Counter = Counter()
    block = ("", 0, 0)
    out = {}
    for x in lines:
        if BLOCK_START.match(x.text):
            seen[x.text] += 1
            block = (x.text, seen[x.text], 0)
        out[x.index] = block
        if BLOCK_END.search(x.text):
            block = (block[0], block[1], block[2] + 1)
    return out


def diff_variants(
    a: Variant,
    b: Variant,
    stage: Stage = Stage.PTX,
    raw: bool = False,
    summary_stages: tuple[Stage, ...] | None = None,
    ignore: tuple[str, ...] = (),
) -> VariantDiff:
    """Diff ``stage`` of ``a`` and ``b`` (raises KeyError, with the reason, if either lacks it).

    ``ignore``: noise classes left out of the comparison (canonical.IGNORABLE).
    """
    with _collector_paused():
        return _diff_variants(a, b, stage, raw, summary_stages, ignore)


@contextmanager
def _collector_paused():
    """A diff of two large listings allocates a few hundred thousand small objects and frees them
    without cycles; the cyclic collector's passes over them (and over the tokens kept for the next
    diff) took a third of its time. Reference counting frees them all the same.

    What survives the diff (the tokens kept for the next one, the result) is moved straight to the
    oldest generation (freeze, then unfreeze): left young, the first collection after the diff
    would walk every one of them at once. They are looked at with the rest at the next full collection.
    (Not where the program froze objects of its own: unfreezing would hand them back to the collector.)"""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _diff_variants(
    a: Variant, b: Variant, stage: Stage, raw: bool, summary_stages: tuple[Stage, ...] | None, ignore: tuple[str, ...]
) -> VariantDiff:
    from .canonical import canonical_diff_texts

    text_a, text_b = a.listing(stage), b.listing(stage)
    if raw:
        hunks = diff_lines(raw_lines(text_a), raw_lines(text_b))
    else:
        lines_a, lines_b, ops = canonical_diff_texts(stage, text_a, text_b, ignore)
        hunks = hunks_from(lines_a, lines_b, ops)
        if "order" in ignore:
            hunks = reorders_as_moves(lines_a, lines_b, hunks)
    stats: dict[Stage, tuple[StageStats | None, StageStats | None]] = {}
    for s in summary_stages if summary_stages is not None else Stage.compiled():
        if not (a.made_for_vendor(s) or b.made_for_vendor(s)):
            continue  # an AMDGCN row in a diff of two NVIDIA variants (or PTX of two AMD ones) says nothing
        positions = s is stage  # only the diffed stage needs line positions (for the by-line counts)
        stats[s] = (
            stage_stats(s, a.listings[s], positions) if s in a.listings else None,
            stage_stats(s, b.listings[s], positions) if s in b.listings else None,
        )
    result = VariantDiff(a, b, stage, raw, hunks, stats)
    same_source = a.kernel.file == b.kernel.file  # lines of different files do not align
    stats_a, stats_b = stats.get(stage, (None, None))
    if same_source and stats_a is not None and stats_b is not None:
        result.by_line = by_python_line(a, b, stage, stats_a, stats_b, hunks)
    if a.vendor is not b.vendor:
        result.across = across_vendors(a, b)
    if not same_source:
        result.across_sources = across_sources(a, b)
    return result


def by_python_line(
    a: Variant, b: Variant, stage: Stage, stats_a: StageStats, stats_b: StageStats, hunks: list[Hunk] | None = None
) -> list[LineChange]:
    """For each Python line of the kernel: its instruction count in A and in B, and the instructions
    of it the diff removed from A and added in B."""
    # Per line of the listing, its Python line: counted with C-level maps, listings run to 20k lines.
    counts: list[Counter] = []
    owns: list[list[int | None]] = []
    instruction_lines: list[set[int]] = []
    for variant, stats in ((a, stats_a), (b, stats_b)):
        own = SourceMap(variant).own_lines(stage)
        owns.append(own)
        indices = list(filter(len(own).__gt__, map(_FIRST, stats.instructions)))
        instruction_lines.append(set(indices))
        counts.append(Counter(map(own.__getitem__, indices)))
    changed: list[Counter] = []
    changed_hunks = [h for h in hunks or [] if h.tag not in ("equal", "moved")]
    for side, lines_of in enumerate((_A, _B)):
        changed_lines = map(_INDEX, chain.from_iterable(map(lines_of, changed_hunks)))
        changed.append(
            Counter(map(owns[side].__getitem__, filter(instruction_lines[side].__contains__, changed_lines)))
        )
    for c in (*counts, *changed):
        c.pop(None, None)  # lines no Python line owns
        c.pop(0, None)
    accesses = [_accesses_by_line(stats, own) for stats, own in ((stats_a, owns[0]), (stats_b, owns[1]))]
    source = (a.listings.get(Stage.SOURCE) or b.listings.get(Stage.SOURCE) or "").splitlines()
    lines: list[int] = sorted(set(counts[0]) | set(counts[1]))
    none: tuple[tuple[str, ...], int] = ((), 0)
    return [
        LineChange(
            n,
            source[n - 1].strip() if 0 < n <= len(source) else "",
            counts[0].get(n, 0),
            counts[1].get(n, 0),
            changed[0].get(n, 0),
            changed[1].get(n, 0),
            *(accesses[0].get(n, none)[0], accesses[1].get(n, none)[0]),
            accesses[0].get(n, none)[1],
            accesses[1].get(n, none)[1],
        )
        for n in lines
    ]


_FIRST = itemgetter(0)
_A, _B = attrgetter("a"), attrgetter("b")
_INDEX, _TEXT = attrgetter("index"), attrgetter("text")


def _accesses_by_line(stats: StageStats, own: list[int | None]) -> dict[int, tuple[tuple[str, ...], int]]:
    """Per Python line: its global accesses as ``load 16 B x4`` (kind, bytes per thread, count), and how
    many of them are masked."""
    kinds: dict[int, Counter] = {}
    masked: dict[int, int] = {}
    for access in stats.global_accesses:
        line = own[access.index] if 0 <= access.index < len(own) else None
        if not line:
            continue
        width = f"{access.bytes} B" if access.bytes else "? B"
        kinds.setdefault(line, Counter())[f"{access.kind} {width}"] += 1
        masked[line] = masked.get(line, 0) + access.predicated
    return {line: (tuple(f"{k} x{n}" for k, n in sorted(c.items())), masked[line]) for line, c in kinds.items()}
