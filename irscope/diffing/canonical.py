"""A canonical form for two listings at once: align by shape first, then name registers by their roles.

Renaming each listing on its own by first appearance (ir/normalize.py) cascades:
once a prologue grows by one register, every later name shifts, and an unchanged
loop body diffs as removed and added again. Here the two sides are renamed
together:

1. Each line's *shape* is its text with every name (register, SSA value, label,
   layout alias) replaced by its class and its numbers read as ``#``:
   ``add.s32 %r, %r, #``. Lines equal as written are aligned first, the stretches
   between by shape (patience diff, repeated shapes paired in order where both
   sides have as many). A line whose numbers changed is aligned by its shape
   like any other: a changed immediate changes its own instruction, not a name.
2. Aligned lines vote: the k-th name of a line in A and the k-th name of its
   partner in B are the same value (more so where the two lines are written alike
   but for their names, and most for two definitions). Names are paired greedily
   by votes, one to one; rounds of re-pairing align the lines again by the names
   they read in the pairing so far.
3. Both sides are written with one vocabulary: a paired name takes B's name on
   both sides, a name only A has becomes ``%r12~a``. The final alignment keeps the
   pairing's where it holds over runs of equal lines, and elsewhere is made again
   by the fewest lines inserted, deleted or replaced (exact.py): an inserted
   instruction changes itself and the lines that touch its new names, and
   nothing else.

``ignore`` drops a noise class the user chooses: ``registers`` (names compare by
class only), ``immediates`` (numbers compare as ``#``), ``order`` (a line that only
moved within its basic block is a move, not a change: core.reorders_as_moves).
Each coarsens the texts of the diff without the class and keeps its alignment
where lines still match, so ignoring a class never shows more changed lines.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from itertools import accumulate, chain, compress, repeat
from operator import add, attrgetter, eq, floordiv, itemgetter, methodcaller, mod, sub
from typing import NamedTuple

from ..ir.dialects import Names, dialect_of, normalize
from ..ir.normalize import NormalizedLine, normalized_lines
from ..types import Stage
from .algorithm import opcodes, realign, settle

IGNORABLE = ("registers", "immediates", "order")


class _NamesByStage(Mapping):
    """Each stage's names as one capturing group (re.split puts them at the odd places): registers, SSA
    values, labels, layout aliases. Derived from the stages' dialects (ir/dialects.py: ``Names``), so a
    stage registered later has its dialect's names here too; a stage whose dialect pairs none is absent."""

    def __getitem__(self, stage: Stage) -> re.Pattern[str]:
        names = dialect_of(stage).names
        if names is None:
            raise KeyError(stage)
        return names.pattern

    def __iter__(self) -> Iterator[Stage]:
        return (s for s in Stage.all() if dialect_of(s).names is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


NAMES = _NamesByStage()
_NUMBER = r"(?:0[xX][0-9a-fA-F]+|0[dDfF][0-9a-fA-F]{8,16}|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\b"
# (the lookahead first: most places of a listing fail it at once, before the lookbehind is tried)
IMMEDIATE = re.compile(r"(?=[-\d])(?<![\w%$#.])" + _NUMBER)
# A number in a frame (the text between names, a name's place a NUL): as IMMEDIATE finds it in the line,
# the NUL standing for the last character of a name (a word character).
FRAME_IMMEDIATE = re.compile(r"(?=[-\d])(?<![\w%$#.\0])" + _NUMBER)
TRAILING_DIGITS = re.compile(r"\d+$")
DIGITS = re.compile(r"\d+")


class Line(NamedTuple):
    """One line of a listing, split at its names. (A NamedTuple: tokenize makes tens of thousands at
    once, in C.)"""

    index: int  # type: ignore[assignment]  # in the original listing (shadows tuple.index)
    text: str  # as compared (numbers dropped under ``ignore=immediates``)
    frame: str  # the text between its names, joined by SEPARATOR
    template: str  # the frame as a str.format template: {} for each name
    names: list[str]  # as written
    shape: str  # names replaced by their classes
    keys: list[str]  # what each name pairs by: the name, or for SASS the name and its version (R4.3)
    dest: int  # which of its names the line writes (its destination operand), -1 for none
    reads: list[str]  # its keys but its destination's (the frame says where that stands)

    @property
    def parts(self) -> list[str]:
        """The text between names at the even places, the names at the odd ones (as ``re.split`` gives)."""
        parts: list[str] = [""] * (2 * len(self.names) + 1)
        parts[::2] = self.frame.split(SEPARATOR)
        parts[1::2] = self.names
        return parts

    def written(self, names: Iterable[str]) -> str:
        """The line with ``names`` in place of its own."""
        return self.template.format(*names) if self.names else self.text


SEPARATOR = "\0"  # stands for a name in a frame; a NUL in a listing is read as U+FFFD


def _class(name: str) -> str:
    """``%rd12`` -> ``%rd``; ``R7`` -> ``R``; ``.L_x_3`` -> ``.L_x_``; ``#blocked1`` -> ``#blocked``;
    an AMDGCN register range ``v[4:7]`` -> ``v[:]``."""
    if name.startswith("$L__BB"):
        return "$L__BB"
    if name.endswith("]"):
        return DIGITS.sub("", name)
    return TRAILING_DIGITS.sub("", name) or name


def listing_lines(stage: Stage, text: str) -> list[NormalizedLine]:
    """What is compared: the lines its dialect's ``Names.listing`` gives, names as written (PTX and SASS:
    they are paired here, not renumbered); the other stages as normalise gives them."""
    names = dialect_of(stage).names
    if names is not None and names.listing is not None:
        return names.listing(text)
    return normalize(stage, text)


@lru_cache(maxsize=8)
def listing_tokens(stage: Stage, text: str, drop_immediates: bool = False) -> tuple[list[NormalizedLine], list[Line]]:
    """``listing_lines`` and ``tokenize`` of one listing, kept for the next diff that uses it (the TUI
    diffs a variant against each of its neighbours in turn). Shared: not to be changed by callers."""
    lines = listing_lines(stage, text)
    return lines, tokenize(stage, lines, ("immediates",) if drop_immediates else ())


def tokenize(stage: Stage, lines: Sequence[NormalizedLine], ignore: Iterable[str] = ()) -> list[Line]:
    """Each line split at its names, with its frame, shape, pairing keys and destination."""
    texts = list(map(_TEXT, lines))
    if "immediates" in ignore:
        texts = [IMMEDIATE.sub("#", text) for text in texts]
    return _split(stage, lines, texts)


def _split(stage: Stage, lines: Sequence[NormalizedLine], texts: list[str]) -> list[Line]:
    """``tokenize`` of ``lines`` as ``texts`` (immediates already dropped where asked).

    PTX and SASS listings run to tens of thousands of lines: they are split at their names in one call
    over the whole listing, and the lines' frames, names and shapes cut from that by C-level calls, not
    by a Python loop over lines."""
    naming = dialect_of(stage).names
    joined = "\n".join(texts)
    if SEPARATOR in joined:
        texts = [text.replace(SEPARATOR, "\ufffd") for text in texts]
        joined = "\n".join(texts)
    indices = list(map(_INDEX, lines))
    if naming is None:
        return [Line(i, text, text, text, [], text, [], -1, []) for i, text in zip(indices, texts)]
    pattern = naming.pattern
    flat: list[str] = []
    if naming.numbered:  # a name is a class and a number, and never spans lines (PTX, SASS)
        flat = pattern.split(joined)
        frames = SEPARATOR.join(flat[::2]).split("\n")
    if flat and len(frames) == len(texts):
        names_in_order = flat[1::2]
        ends = list(accumulate(map(_COUNT_SEPARATORS, frames)))
        names = list(map(names_in_order.__getitem__, map(slice, chain((0,), ends), ends)))
        flat[1::2] = map(str.rstrip, names_in_order, repeat("0123456789"))
        shapes = "".join(flat).split("\n")
    else:  # MLIR, LLVM and AMDGCN names have their own classes (LLVM's block labels are found by ^)
        parts = list(map(pattern.split, texts))
        names = list(map(_ODD, parts))
        frames = [SEPARATOR.join(p[::2]) for p in parts]
        shapes = [text if len(p) == 1 else "".join(_classed(p)) for text, p in zip(texts, parts)]
    # braces doubled, each name's place a {}: one str.format writes the line with other names
    templates = "\n".join(frames).replace("{", "{{").replace("}", "}}").replace(SEPARATOR, "{}").split("\n")
    if naming.defines == "physical":
        keys, dests = _versioned(frames, names, naming)
    else:
        keys, dests = names, [_dest(naming, frame, n) if n else -1 for frame, n in zip(frames, names)]
    reads = [k if d < 0 else k[:d] + k[d + 1 :] for k, d in zip(keys, dests)]
    return list(
        map(_NEW_TUPLE, repeat(Line), zip(indices, texts, frames, templates, names, shapes, keys, dests, reads))
    )


_NEW_TUPLE = tuple.__new__
_TEXT, _INDEX, _ODD = attrgetter("text"), attrgetter("index"), itemgetter(slice(1, None, 2))
_COUNT_SEPARATORS = methodcaller("count", SEPARATOR)


def _classed(parts: list[str]) -> list[str]:
    shape = list(parts)
    shape[1::2] = [_class(n) for n in parts[1::2]]
    return shape


def _versioned(frames: list[str], names_of_lines: list[list[str]], naming: Names) -> tuple[list[list[str]], list[int]]:
    """SASS and AMDGCN registers are physical and reused: each write starts a new value (key ``R4.3``), so that
    names pair by value, as virtual registers do in PTX. Each line's keys and destination.

    A guarded line (``@!P0 LDG.E R17, ...``) reads its guard, and its write starts a new value but is
    not taken as that value's definition (it may not happen). An instruction that updates a register in
    place (``HGMMA R24, gdesc[UR8], R24``, the accumulator) reads and writes one value, so a chain of
    updates keeps one name whatever came before it."""
    current = _Current()  # a name -> its key now
    version: dict[str, int] = {}
    writes_after: dict[str, bool] = {}  # the text before an instruction's first operand -> whether it writes it
    key_of = current.__getitem__
    keys: list[list[str]] = []
    dests: list[int] = []
    for frame, names in zip(frames, names_of_lines):
        if not names:
            keys.append(names)
            dests.append(-1)
            continue
        head, _, rest = frame.partition(SEPARATOR)  # the text before its first name
        guarded = head in ("@", "@!")
        if guarded:
            head = rest.partition(SEPARATOR)[0]
        writes = writes_after.get(head)
        if writes is None:
            m = naming.opcode.match(head.lstrip()) if naming.opcode is not None else None
            opcode = m[1] if m else ""
            no_dest = naming.no_dest is not None and naming.no_dest.match(opcode)
            writes = writes_after[head] = bool(opcode) and not no_dest and (guarded or head.strip() != "")
        dest = 1 if guarded else 0  # where the first operand is among the names
        if writes and dest < len(names) and names[dest][0] != ".":
            name = names[dest]
            n = version[name] = version.get(name, 0) + 1
            current[name] = f"{name}.{n}"
            dests.append(-1 if guarded else dest)
        else:
            dests.append(-1)
        keys.append(list(map(key_of, names)))
    return keys, dests


class _Current(dict):
    """A physical register's pairing key before any write to it: version 0 (a label is its own key)."""

    def __missing__(self, name: str) -> str:
        key = self[name] = name if name[0] == "." else f"{name}.0"
        return key


_KEYS, _READS, _FRAME, _NAMES = attrgetter("keys"), attrgetter("reads"), attrgetter("frame"), attrgetter("names")
_SHAPE = attrgetter("shape")
DEF_WEIGHT = 4  # a value is what defines it: a pairing of two definitions outweighs a few uses
SAME_FRAME = 4  # a vote from two lines written alike but for their names, against one from lines that are not


def _dest(naming: Names, frame: str, names: list[str]) -> int:
    """Which of a line's ``names`` it writes (its destination operand), -1 for none. (Physical registers:
    _versioned.)"""
    pieces = frame.split(SEPARATOR, 2)  # the text before its first name, between the first two
    if naming.defines == "guarded":
        # `@%p1 ld.global.b32 %r5, [%rd2];` reads its guard and may write %r5: not a definition to pair by
        guarded = pieces[0] in ("@", "@!")
        dest = 1 if guarded else 0
        head = pieces[1] if guarded else pieces[0]
        no_dest = naming.no_dest is not None and naming.no_dest.match(head.lstrip())
        if dest >= len(names) or no_dest or head.lstrip()[:1] in ".$" or "[" in head:
            return -1
        return -1 if guarded else dest
    # SSA forms (TTIR, TTGIR, LLVM IR): `%x = op ...` (`%x:2 = ...` for several results); `tt.store %p, %v` reads
    return 0 if pieces[0].strip() == "" and pieces[1].lstrip(" :0123456789").startswith("=") else -1


class _Votes:
    """Names paired by votes: the k-th name of a line in A and the k-th name of its aligned partner in B
    are one vote for the pair; two definitions paired weigh DEF_WEIGHT votes. Most votes pair first, one
    to one. Each round of pairing re-counts only the lines whose alignment changed."""

    def __init__(self, a: list[Line], b: list[Line]) -> None:
        self.a, self.b = a, b
        self.width = len(b) + 1  # an aligned pair (i, j) is kept as the int i * width + j: cheap to hash
        self.aligned: set[int] = set()
        self.votes: Counter = Counter()

    def pair(self, ops) -> dict[str, str]:
        """A's name -> B's name under the alignment ``ops``."""
        width = self.width
        aligned: set[int] = set()
        for tag, i1, i2, j1, j2 in ops:
            if tag == "equal":
                aligned.update(map(add, range(i1 * width, i2 * width, width), range(j1, j2)))
        gone, new = sorted(self.aligned - aligned), sorted(aligned - self.aligned)
        self.aligned = aligned
        if gone:
            _count_votes(self.a, self.b, gone, width, DEF_WEIGHT, self.votes, -1)
        _count_votes(self.a, self.b, new, width, DEF_WEIGHT, self.votes, 1)
        return _greedy(self.votes)


def _count_votes(
    a: list[Line], b: list[Line], aligned: list[int], width: int, weight: int, counts: Counter, sign: int
) -> None:
    """The votes of the aligned pairs ``i * width + j`` added to ``counts`` (sign 1) or taken from them (-1)."""
    votes = _votes(a, b, aligned, width, weight)
    if sign > 0:
        counts.update(votes)  # counted in C
        return
    # Counter.subtract, by C-level calls: every one of these votes was counted when its pair aligned, so
    # each key is there already and keeps its place (most_common breaks ties by it)
    lost = Counter(votes)
    keys = list(lost)
    dict.update(counts, zip(keys, map(sub, map(counts.__getitem__, keys), map(lost.__getitem__, keys))))


def _votes(a: list[Line], b: list[Line], aligned: list[int], width: int, weight: int) -> list[tuple[str, str]]:
    """Each name of a line in A with the name of its partner in B at the same place: ``SAME_FRAME``
    votes where the two lines are written alike but for their names (their numbers too), one where
    they are not; the pair of their definitions ``weight`` times more where both define at the same
    place of lines written alike.

    Lines aligned by their shapes may differ in a number: pairing their names cannot make them
    equal, while pairing the names of lines written alike can. Where the two disagree (an unrolled
    element's address defined with another offset, loaded by the same instruction) the load decides,
    and the address line alone shows as changed."""
    widths = repeat(width)
    xs = list(map(a.__getitem__, map(floordiv, aligned, widths)))
    ys = list(map(b.__getitem__, map(mod, aligned, widths)))
    out = list(chain.from_iterable(map(zip, map(_KEYS, xs), map(_KEYS, ys))))
    alike = list(map(eq, map(_FRAME, xs), map(_FRAME, ys)))
    xs, ys = list(compress(xs, alike)), list(compress(ys, alike))
    out += list(chain.from_iterable(map(zip, map(_KEYS, xs), map(_KEYS, ys)))) * (SAME_FRAME - 1)
    for x, y in zip(xs, ys):
        if x.dest >= 0 and x.dest == y.dest:
            out += [(x.keys[x.dest], y.keys[y.dest])] * (weight - 1) * SAME_FRAME
    return out


def _greedy(counts: Counter) -> dict[str, str]:
    """A's name -> B's name: most votes first, each name of either side paired once, while votes are positive."""
    mapping: dict[str, str] = {}
    taken: set[str] = set()
    for (x, y), n in counts.most_common():
        if n <= 0:
            break
        if x not in mapping and y not in taken:
            mapping[x] = y
            taken.add(y)
    return mapping


REFINE = 3  # rounds of re-pairing by operands (see _Signatures)
# The lines the pairing aligned stay aligned in the diff where at least this many in a row are equal as
# written; between such runs the lines are aligned again by the fewest edits. A shorter run is often a
# common line (a `bar.sync`, a `ULDC` of the same constant) paired far from its place, and keeping it
# splits one replaced block into two. SASS, changed instructions keeping every run against runs of 8:
# the built-in matmul, num_stages 2 -> 3, 442 -> 391; the built-in softmax, 16384 on one warp -> 32768
# on two, 18677 -> 14022 (its opcode+immediates floor: 9739). Longer runs gain nothing more there.
KEPT_RUN = 8


class _Signatures:
    """Each line as the re-pairing rounds align it: its frame and the names it reads in the current
    pairing (its destination left out, a name not yet paired None). A run of alike instructions (four
    ``mad.wide`` in A, five in B) then aligns by the values each one reads, not by its place in the run,
    and their destinations pair accordingly. After the first round only the lines that read a name
    whose pairing changed are numbered again.

    A signature is a small int: that tuple, numbered by one table for both sides (equal ints, equal
    lines). Ints hash and compare at once where the alignment counts and compares each line many times."""

    def __init__(self, ta: list[Line], tb: list[Line], frames_a: list[str], frames_b: list[str]) -> None:
        self.ta, self.tb = ta, tb
        self.reads_a, self.reads_b = list(map(_READS, ta)), list(map(_READS, tb))
        # the text around the names: a line is its frame and its names (the shape would be too fine:
        # TTIR's %c128_i32 names its value, and is the same value as B's %c1024_i32 when paired)
        self.frames_a, self.frames_b = frames_a, frames_b
        self.mapping: dict[str, str] = {}
        self.paired: dict[str, str] = {}
        self.table: dict = {}
        self.a: list[int] = []
        self.b: list[int] = []

    def update(self, mapping: dict[str, str]) -> tuple[set[int], set[int]]:
        """Number the lines under ``mapping``; the lines of A and of B whose number changed."""
        old_mapping, old_paired = self.mapping, self.paired
        self.mapping, self.paired = mapping, dict(zip(mapping.values(), mapping.values()))
        if not self.a:
            self.a = _number(self.frames_a, self.reads_a, mapping, self.table)
            self.b = _number(self.frames_b, self.reads_b, self.paired, self.table)
            return set(range(len(self.a))), set(range(len(self.b)))
        # the names paired anew, to another name or no more: the keys of the items only one mapping has
        changed_a = set(map(itemgetter(0), mapping.items() ^ old_mapping.items()))
        changed_b = self.paired.keys() ^ old_paired.keys()
        out = []
        for sigs, frames, reads, changed, names in (
            (self.a, self.frames_a, self.reads_a, changed_a, mapping),
            (self.b, self.frames_b, self.reads_b, changed_b, self.paired),
        ):
            which = _touching(reads, changed)
            lines_changed = set()
            for i, n in zip(which, _number(frames, reads, names, self.table, which)):
                if n != sigs[i]:
                    sigs[i] = n
                    lines_changed.add(i)
            out.append(lines_changed)
        return out[0], out[1]


def _number(
    frames: list[str], reads: list[list[str]], names: dict, table: dict, which: list[int] | None = None
) -> list[int]:
    """Each line's (of those at ``which``) frame and the names it reads, as ``names`` has them, numbered
    through ``table``: equal lines, equal numbers."""
    number = table.setdefault
    name = names.get
    if which is None:
        return [number(key, len(table)) for key in [(f, *map(name, r)) for f, r in zip(frames, reads)]]
    return [number((frames[i], *map(name, reads[i])), len(table)) for i in which]


def _touching(reads: list[list[str]], changed: set[str]) -> list[int]:
    """The lines that read one of the names in ``changed``."""
    isdisjoint = changed.isdisjoint
    return [i for i, r in enumerate(reads) if not isdisjoint(r)]


def _written(lines: list[Line], names: dict[str, str], keep: set[str]) -> list[str]:
    """Each line with its keys shown as ``names`` says; a line whose keys are all in ``keep`` keeps its text."""
    name = names.__getitem__
    return [x.text if keep.issuperset(x.keys) else x.written(map(name, x.keys)) for x in lines]


def canonical_pair(
    stage: Stage, a: Sequence[NormalizedLine], b: Sequence[NormalizedLine], ignore: Iterable[str] = ()
) -> tuple[list[NormalizedLine], list[NormalizedLine]]:
    """Both listings in one vocabulary (see the module's docstring); each line keeps its original index.

    ``a`` and ``b`` as ``listing_lines`` gives them."""
    out_a, out_b, _ = canonical_diff(stage, a, b, ignore)
    return out_a, out_b


def canonical_diff(stage: Stage, a: Sequence[NormalizedLine], b: Sequence[NormalizedLine], ignore: Iterable[str] = ()):
    """``canonical_pair``'s two listings and their alignment (difflib-style opcodes over them)."""
    return _canonical(stage, tokenize(stage, a), tokenize(stage, b), set(ignore))


def canonical_diff_texts(stage: Stage, a: str, b: str, ignore: Iterable[str] = ()):
    """``canonical_diff`` of two listings' texts, each tokenized once for every diff it takes part in."""
    return _canonical(stage, listing_tokens(stage, a)[1], listing_tokens(stage, b)[1], set(ignore))


def _canonical(stage: Stage, ta: list[Line], tb: list[Line], ignore: set[str]):
    """Names paired (the same pairing whatever is ignored), both sides
    written in one vocabulary and aligned; then each ignored class dropped from those texts and the
    alignment settled again from the last one (``settle(keep=1)``). Dropping a class only makes lines
    equal that were not, and the alignment keeps every pair it had: ignoring a class never shows more
    changed lines or instructions. (``order`` is left to the hunks: core.reorders_as_moves.)"""
    if dialect_of(stage).names is None:  # no names to pair (the Python source)
        texts_a, texts_b = list(map(_TEXT, ta)), list(map(_TEXT, tb))
        ops = opcodes(texts_a, texts_b)
    else:
        vocabulary, texts_a, texts_b, ops, anchored = _named(ta, tb, written_first=True)
        if ops != [("equal", 0, len(ta), 0, len(tb))] and 2 * anchored < min(len(ta), len(tb)):
            # Fewer than half the lines were equal as written: the ones that anchored the pairing may be
            # coincidences (a listing against a renumbered copy of itself is written alike nowhere but by
            # chance), and pairing by shape alone can do better. Keep whichever changes fewer lines.
            other = _named(ta, tb, written_first=False)
            if _unchanged(other[3]) > _unchanged(ops):
                vocabulary, texts_a, texts_b, ops, _ = other
        if "registers" in ignore:
            texts_a, texts_b = _by_class(stage, ta, tb, vocabulary)
    if "immediates" in ignore:
        texts_a, texts_b = _without_immediates(texts_a), _without_immediates(texts_b)
    if ignore & {"registers", "immediates"}:
        ops = settle(texts_a, texts_b, ops)
    return _as_lines(ta, texts_a), _as_lines(tb, texts_b), ops


def _named(ta: list[Line], tb: list[Line], written_first: bool):
    """The vocabulary of the pairing, both sides written in it, and their alignment."""
    mapping, ops, anchored = _paired(ta, tb, written_first)
    vocabulary = _vocabulary(ta, tb, mapping)
    texts_a, texts_b = _rewritten(ta, tb, vocabulary)
    return vocabulary, texts_a, texts_b, settle(texts_a, texts_b, ops, KEPT_RUN), anchored


def _unchanged(ops) -> int:
    return sum(op[2] - op[1] for op in ops if op[0] == "equal")


def _paired(ta: list[Line], tb: list[Line], written_first: bool = True) -> tuple[dict[str, str], list, int]:
    """A's name -> B's name, the alignment of the lines that paired them, and how many lines were equal as
    written (``written_first``: those anchor the first alignment; otherwise shapes alone do).

    Lines are aligned by their shapes and frames with their numbers read as ``#``. A number is what an
    instruction computes with, not which value it defines: a config that moves every element's offset
    (512 -> 1024 bytes a step) changes those instructions, and aligning by the numbers instead re-paired
    every offset's register with another element's, and so changed every line that used one (issue 30:
    softmax 16384 on one warp against 32768 on two changed 7,285 PTX lines)."""
    shapes_a, frames_a = _skeletons(ta)
    shapes_b, frames_b = _skeletons(tb)
    texts_a, texts_b = list(map(_TEXT, ta)), list(map(_TEXT, tb))
    # Lines equal as written align first: two compiles of one kernel number their registers alike
    # wherever their code runs alike, and that breaks the ties among the hundreds of alike shapes of an
    # unrolled row (which load goes with which address) the way the code does. The stretches between
    # are aligned by shape.
    first = opcodes(texts_a, texts_b, repeats=8) if written_first else []
    anchored = _unchanged(first)
    ops = realign(shapes_a, shapes_b, first, 8) if written_first else opcodes(shapes_a, shapes_b, 8)
    votes = _Votes(ta, tb)
    mapping = votes.pair(ops)
    signatures = _Signatures(ta, tb, frames_a, frames_b)
    for round in range(REFINE):
        changed = signatures.update(mapping)
        # the first round aligns afresh (shapes pair lines that operands tell apart); later rounds
        # keep what the last one aligned, and align again only the stretches where a line changed
        ops = realign(signatures.a, signatures.b, ops, 8, changed) if round else opcodes(signatures.a, signatures.b, 8)
        before, mapping = mapping, votes.pair(ops)
        if mapping == before:
            break
    return mapping, ops, anchored


def _skeletons(lines: list[Line]) -> tuple[list[str], list[str]]:
    """Each line's shape and frame with its numbers read as ``#`` (over the whole listing at once)."""
    shapes = IMMEDIATE.sub("#", "\n".join(map(_SHAPE, lines))).split("\n")
    frames = FRAME_IMMEDIATE.sub("#", "\n".join(map(_FRAME, lines))).split("\n")
    return shapes, frames


def _without_immediates(texts: list[str]) -> list[str]:
    return IMMEDIATE.sub("#", "\n".join(texts)).split("\n")


def _as_lines(lines: list[Line], texts: Iterable[str]) -> list[NormalizedLine]:
    return normalized_lines(map(_INDEX, lines), texts)


class _Vocabulary(NamedTuple):
    """Each key of A and of B -> its name in the one vocabulary of both sides; the keys shown as written."""

    a: dict[str, str]
    b: dict[str, str]
    same_a: set[str]
    same_b: set[str]


def _vocabulary(ta: list[Line], tb: list[Line], mapping: dict[str, str]) -> _Vocabulary:
    """A paired name takes B's name, a name only one side has gets ``~a`` or ``~b``."""
    # each key's name as written (SASS keys are R4.3: the name and its version), and its name in the
    # shared vocabulary, worked out once per key rather than once per use
    shown_a = dict(zip(chain.from_iterable(map(_KEYS, ta)), chain.from_iterable(map(_NAMES, ta))))
    shown_b = dict(zip(chain.from_iterable(map(_KEYS, tb)), chain.from_iterable(map(_NAMES, tb))))
    # (by C-level calls, in the order of shown_a and shown_b: a paired key of A takes B's name, every
    # key of mapping is one of A's, every value one of B's)
    names_a = dict(zip(shown_a.keys(), map(add, shown_a.values(), repeat("~a"))))
    names_a.update(zip(mapping.keys(), map(shown_b.__getitem__, mapping.values())))
    same_a = set(compress(shown_a.keys(), map(eq, names_a.values(), shown_a.values())))  # shown as they are
    paired_b = set(mapping.values())
    names_b = dict(zip(shown_b.keys(), map(add, shown_b.values(), repeat("~b"))))
    names_b.update(zip(paired_b, map(shown_b.__getitem__, paired_b)))
    return _Vocabulary(names_a, names_b, same_a, paired_b)


def _rewritten(ta: list[Line], tb: list[Line], vocabulary: _Vocabulary) -> tuple[list[str], list[str]]:
    """Both sides' lines in one vocabulary. A line whose names all stay as they are keeps its text."""
    return _written(ta, vocabulary.a, vocabulary.same_a), _written(tb, vocabulary.b, vocabulary.same_b)


def _by_class(stage: Stage, ta: list[Line], tb: list[Line], vocabulary: _Vocabulary) -> tuple[list[str], list[str]]:
    """Both sides' lines with each name as its class (``ignore=registers``), the class of its name in the
    vocabulary: two lines equal in the vocabulary are equal here too, whatever classes were paired."""
    if dialect_of(stage).names.numbered:  # type: ignore[union-attr]  # (names were paired)
        classes = [{k: v.partition("~")[0].rstrip("0123456789") for k, v in names.items()} for names in vocabulary[:2]]
    else:
        classes = [{k: _class(v.partition("~")[0]) for k, v in names.items()} for names in vocabulary[:2]]
    return _written(ta, classes[0], set()), _written(tb, classes[1], set())


def is_instruction(stage: Stage, text: str) -> bool:
    """An instruction line, not a directive (``.reg``, ``.reqntid``), a label or a brace, as its dialect
    tells them apart (``Names.instruction``; every line of a dialect that does not)."""
    names = dialect_of(stage).names
    return names is None or names.instruction is None or names.instruction(text)


def changed_instructions(stage: Stage, hunks) -> int:
    """Instructions a diff changes: per hunk the larger of its removed and added instruction lines (an
    instruction with new operands is one change); moves are not changes."""
    total = 0
    for h in hunks:
        if h.tag in ("equal", "moved"):
            continue
        total += max(sum(is_instruction(stage, x.text) for x in h.a), sum(is_instruction(stage, x.text) for x in h.b))
    return total


__all__ = [
    "IGNORABLE",
    "canonical_diff",
    "canonical_diff_texts",
    "canonical_pair",
    "changed_instructions",
    "is_instruction",
    "listing_lines",
    "tokenize",
]
