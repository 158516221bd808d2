"""A canonical form for two listings at once: align by shape first, then name registers by their roles.

Renaming each listing on its own by first appearance (ir/normalize.py) cascades:
once a prologue grows by one register, every later name shifts, and an unchanged
loop body diffs as removed and added again. Here the two sides are renamed
together:

1. Each line's *shape* is its text with every name (register, SSA value, label,
   layout alias) replaced by its class: ``add.s32 %r, %r, 1``. Shapes are aligned
   (patience diff, repeated shapes paired in order where both sides have as many).
2. Aligned lines vote: the k-th name of a line in A and the k-th name of its
   partner in B are the same value. Names are paired greedily by votes, one to
   one, within a class; a name defined and used by aligned instructions gets all
   its votes from them.
3. Both sides are written with one vocabulary: a paired name takes B's name on
   both sides, a name only A has becomes ``%r12~a``. The line diff of those texts
   changes an inserted instruction and the lines that touch its new names, and
   nothing else.

``ignore`` drops a noise class the user chooses: ``registers`` (names compare by
class only), ``immediates`` (numbers compare as ``#``), ``order`` (the lines of a
basic block compare as a sorted block: scheduling order within it is ignored).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable, Sequence

from ..ir.normalize import NormalizedLine
from ..types import Stage
from .algorithm import opcodes

IGNORABLE = ("registers", "immediates", "order")

# Names per stage, as one capturing group (re.split puts them at the odd places): registers, SSA values,
# labels, layout aliases.
_MLIR = r"(%[A-Za-z_$.][\w$.]*|%\d+|\^bb\d+|#[A-Za-z_][A-Za-z_]*\d*(?![\w.<]))"
NAMES = {
    Stage.PTX: re.compile(r"(%[a-z]+\d+\b|\$L\d+\b|\$L__BB\d+_\d+)"),
    Stage.SASS: re.compile(r"(\b(?:UR|UP|R|P|B)\d+\b|\.L_x_\d+)"),
    Stage.TTIR: re.compile(_MLIR),
    Stage.TTGIR: re.compile(_MLIR),
    Stage.LLIR: re.compile(r"(%[\w.$-]+|^\d+(?=:))"),
}
IMMEDIATE = re.compile(r"(?<![\w%$#.])(?:0[xX][0-9a-fA-F]+|0[dDfF][0-9a-fA-F]{8,16}|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\b")
TRAILING_DIGITS = re.compile(r"\d+$")
# A basic block starts at a label (PTX $L__BB0_3:, SASS .L_x_3:, MLIR ^bb1, LLVM 12:) and ends at a branch.
BLOCK_START = re.compile(r"^(?:\$L__BB\d+_\d+:|\.L_x_\d+:|\^bb\d+|\d+:)")
BLOCK_END = re.compile(r"\b(?:bra|BRA|BRX|ret|RET|EXIT|br|scf\.yield|cf\.br|cf\.cond_br)\b")
# SASS opcodes that write no register: for every other instruction its first register operand is written.
SASS_NO_DEST = re.compile(r"^(?:ST|RED|BAR|BRA|BRX|EXIT|RET|CALL|NOP|MEMBAR|DEPBAR|WARPSYNC|BSYNC|YIELD|ERRBAR|"
                          r"CCTL|FENCE|JMP|JMX|KILL|BPT|SYNCS\.ARRIVE|UTMASTG|UTMACCTL|UBLKCP|ARRIVES)")
SASS_OPCODE = re.compile(r"^(?:@!?U?P[T\d]+ )?(\S+)")


class Line:
    """One line of a listing, split at its names."""

    __slots__ = ("index", "parts", "shape", "keys", "defines")

    def __init__(self, index: int, parts: list[str], shape: str, keys: list[str], defines: bool = False) -> None:
        self.index = index  # in the original listing
        self.parts = parts  # text between names at the even places, the names at the odd ones
        self.shape = shape  # names replaced by their classes
        self.keys = keys  # what each name pairs by: the name, or for SASS the name and its version (R4.3)
        self.defines = defines  # the line writes its first name (its destination operand)


def _class(name: str) -> str:
    """``%rd12`` -> ``%rd``; ``R7`` -> ``R``; ``.L_x_3`` -> ``.L_x_``; ``#blocked1`` -> ``#blocked``."""
    if name.startswith("$L__BB"):
        return "$L__BB"
    return TRAILING_DIGITS.sub("", name) or name


def listing_lines(stage: Stage, text: str) -> list[NormalizedLine]:
    """What is compared: PTX and SASS cleaned with their names as they are (they are paired here, not
    renumbered); the other stages as normalise gives them."""
    from ..ir.normalize import clean_ptx, clean_sass, normalize

    if stage == Stage.PTX:
        return clean_ptx(text)
    if stage == Stage.SASS:
        return clean_sass(text)
    return normalize(stage, text)


def tokenize(stage: Stage, lines: Sequence[NormalizedLine], ignore: Iterable[str] = ()) -> list[Line]:
    pattern = NAMES.get(stage)
    drop_numbers = "immediates" in ignore
    fast_class = stage in (Stage.PTX, Stage.SASS)  # their names are a class and a number
    out = []
    for line in lines:
        text = IMMEDIATE.sub("#", line.text) if drop_numbers else line.text
        parts = pattern.split(text) if pattern is not None else [text]
        if len(parts) == 1:
            out.append(Line(line.index, parts, text, []))
            continue
        names = parts[1::2]
        shape = list(parts)
        shape[1::2] = [n.rstrip("0123456789") for n in names] if fast_class else [_class(n) for n in names]
        out.append(Line(line.index, parts, "".join(shape), names))
    if stage == Stage.SASS and pattern is not None:
        _versioned(out)
    elif stage != Stage.SASS:
        for x in out:
            x.defines = _defines(stage, x)
    return out


def _versioned(lines: list[Line]) -> None:
    """SASS registers are physical and reused: each write starts a new value (key ``R4.3``), so that
    names pair by value, as virtual registers do in PTX. Sets each line's keys and ``defines``."""
    version: dict[str, int] = {}
    for line in lines:
        parts = line.parts
        if len(parts) == 1:
            continue
        m = SASS_OPCODE.match(parts[0])
        names = line.keys
        first = names[0]
        writes = m is not None and not SASS_NO_DEST.match(m[1]) and first[0] != "."
        start = 0
        if writes:
            n = version[first] = version.get(first, 0) + 1
            start = 1
        keys = [name if name[0] == "." else f"{name}.{version.get(name, 0)}" for name in names[start:]]
        line.keys = [f"{first}.{n}"] + keys if writes else keys
        line.defines = writes


PTX_NO_DEST = re.compile(r"^(?:@!?%p\w* )?(?:st\.|red\.|bar\.|bra|ret|cp\.async|membar|fence|barrier|"
                         r"mbarrier\.(?:init|arrive|expect)|wgmma\.(?:fence|commit|wait)|exit|trap|call)")
DEF_WEIGHT = 4  # a value is what defines it: a pairing of two definitions outweighs a few uses


def _defines(stage: Stage, line: Line) -> bool:
    """Does ``line`` write its first name (the destination operand)? (SASS: set by _versioned.)"""
    if not line.keys:
        return False
    if stage == Stage.PTX:
        return not PTX_NO_DEST.match(line.parts[0]) and line.parts[0][:1] not in ".$" and "[" not in line.parts[0]
    # SSA forms (TTIR, TTGIR, LLVM IR): `%x = op ...` (`%x:2 = ...` for several results); `tt.store %p, %v` reads
    return line.parts[0].strip() == "" and line.parts[2].lstrip(" :0123456789").startswith("=")


def pair_names(a: list[Line], b: list[Line], ops) -> dict[str, str]:
    """A's name -> B's name, from the names at the same places of aligned lines (most votes first);
    a definition paired with a definition weighs DEF_WEIGHT uses."""
    votes: Counter = Counter()
    for tag, i1, i2, j1, j2 in ops:
        if tag != "equal":
            continue
        for k in range(i2 - i1):
            x, y = a[i1 + k], b[j1 + k]
            pairs = zip(x.keys, y.keys)
            if x.defines and y.defines:
                first = next(pairs, None)
                if first is not None:
                    votes[first] += DEF_WEIGHT
            for pair in pairs:
                votes[pair] += 1
    mapping: dict[str, str] = {}
    taken: set[str] = set()
    for (x, y), _ in sorted(votes.items(), key=lambda kv: -kv[1]):
        if x not in mapping and y not in taken:
            mapping[x] = y
            taken.add(y)
    return mapping


REFINE = 3  # rounds of re-pairing by operands (see _refine)


def _refine(stage: Stage, ta: list[Line], tb: list[Line], mapping: dict[str, str]):
    """Pair names again, aligning lines by what they read: each line with its operands in the current
    pairing and its destination left out. A run of alike instructions (four ``mad.wide`` in A, five in B)
    then aligns by the values each one reads, not by its place in the run, and their destinations pair
    accordingly. Returns the new pairing and that alignment."""
    paired = set(mapping.values())

    def signature(line: Line, side_a: bool) -> str:
        if not line.keys:
            return line.shape
        parts = list(line.parts)
        keys = line.keys
        if side_a:
            names = [mapping.get(k, "?") for k in keys]
        else:
            names = [k if k in paired else "?" for k in keys]
        if line.defines:
            names[0] = "="
        parts[1::2] = names
        return "".join(parts)

    ops = opcodes([signature(x, True) for x in ta], [signature(x, False) for x in tb], repeats=8)
    return pair_names(ta, tb, ops), ops


def canonical_pair(stage: Stage, a: Sequence[NormalizedLine], b: Sequence[NormalizedLine],
                   ignore: Iterable[str] = ()) -> tuple[list[NormalizedLine], list[NormalizedLine]]:
    """Both listings in one vocabulary (see the module's docstring); each line keeps its original index.

    ``a`` and ``b`` as ``listing_lines`` gives them."""
    out_a, out_b, _ = canonical_diff(stage, a, b, ignore)
    return out_a, out_b


def canonical_diff(stage: Stage, a: Sequence[NormalizedLine], b: Sequence[NormalizedLine],
                   ignore: Iterable[str] = ()):
    """``canonical_pair``'s two listings and the alignment that paired their names (difflib-style
    opcodes over them; None where the lines were reordered, ``ignore=order``, and must be diffed again)."""
    ignore = set(ignore)
    ta, tb = tokenize(stage, a, ignore), tokenize(stage, b, ignore)
    ops = None
    if "registers" in ignore or NAMES.get(stage) is None:
        out_a = [NormalizedLine(x.index, x.shape) for x in ta]
        out_b = [NormalizedLine(x.index, x.shape) for x in tb]
    else:
        ops = opcodes([x.shape for x in ta], [x.shape for x in tb], repeats=8)
        mapping = pair_names(ta, tb, ops)
        for _ in range(REFINE):
            before = mapping
            mapping, ops = _refine(stage, ta, tb, mapping)
            if mapping == before:
                break
        shown_b = {k: n for x in tb for k, n in zip(x.keys, x.parts[1::2])}  # a pairing key -> B's name
        paired_b = set(mapping.values())
        out_a = [NormalizedLine(x.index, _rewrite(x, [shown_b[mapping[k]] if k in mapping else f"{n}~a"
                                                      for k, n in zip(x.keys, x.parts[1::2])])) for x in ta]
        out_b = [NormalizedLine(x.index, _rewrite(x, [n if k in paired_b else f"{n}~b"
                                                      for k, n in zip(x.keys, x.parts[1::2])])) for x in tb]
    if "order" in ignore:
        out_a, out_b, ops = _sorted_blocks(out_a), _sorted_blocks(out_b), None
    return out_a, out_b, ops


def _rewrite(line: Line, names: list[str]) -> str:
    if len(line.parts) == 1:
        return line.parts[0]
    parts = list(line.parts)
    parts[1::2] = names
    return "".join(parts)


def _sorted_blocks(lines: list[NormalizedLine]) -> list[NormalizedLine]:
    """Within each basic block (label to branch), the instructions in sorted order: schedules compare equal."""
    out: list[NormalizedLine] = []
    block: list[NormalizedLine] = []

    def flush() -> None:
        out.extend(sorted(block, key=lambda x: x.text))
        block.clear()

    for line in lines:
        if BLOCK_START.match(line.text):
            flush()
            out.append(line)
        elif BLOCK_END.search(line.text):
            block.append(line)
            flush()
        else:
            block.append(line)
    flush()
    return out


def is_instruction(stage: Stage, text: str) -> bool:
    """An instruction line, not a directive (``.reg``, ``.reqntid``), a label or a brace."""
    if stage == Stage.PTX:
        return bool(text) and text[0] not in ".${}()" and not text.endswith(":")
    if stage == Stage.SASS:
        return not text.endswith(":")
    return True


def changed_instructions(stage: Stage, hunks) -> int:
    """Instructions a diff changes: per hunk the larger of its removed and added instruction lines (an
    instruction with new operands is one change); moves are not changes."""
    total = 0
    for h in hunks:
        if h.tag in ("equal", "moved"):
            continue
        total += max(sum(is_instruction(stage, x.text) for x in h.a), sum(is_instruction(stage, x.text) for x in h.b))
    return total


def opcode_floor(stage: Stage, a: Sequence[NormalizedLine], b: Sequence[NormalizedLine]) -> int:
    """Instructions changed by a diff of opcodes alone (operands dropped, difflib's alignment): the floor
    no renaming can get under, counted as ``changed_instructions`` counts."""
    import difflib

    oa = [_opcode(stage, x.text) for x in a if is_instruction(stage, x.text)]
    ob = [_opcode(stage, x.text) for x in b if is_instruction(stage, x.text)]
    matcher = difflib.SequenceMatcher(None, oa, ob, autojunk=False)
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")


def _opcode(stage: Stage, text: str) -> str:
    words = text.split()
    if not words:
        return ""
    if stage in (Stage.PTX, Stage.SASS) and words[0].startswith("@") and len(words) > 1:
        return words[1]  # a guarded instruction: its opcode, not its guard
    if stage in (Stage.TTIR, Stage.TTGIR, Stage.LLIR) and len(words) > 2 and words[1] == "=":
        return words[2]
    return words[0]


__all__ = ["IGNORABLE", "canonical_diff", "canonical_pair", "changed_instructions", "is_instruction", "listing_lines", "opcode_floor",
           "tokenize"]
