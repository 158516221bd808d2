"""How small a diff of two listings could be: the floors a diff's size is measured against.

A diff's size is ``changed_instructions``: per hunk, the larger of the instructions it removes and
adds, so that an instruction replaced by one with new operands is one change. Each floor counts in
that unit, over the instruction lines a diff compares (``listing_lines``; directives, labels and
braces left out, as ``is_instruction`` says), as the edit distance of two sequences of keys: the
fewest instructions inserted, deleted or replaced to turn A's keys into B's (Levenshtein, unit
costs; exact.py). A key is what is left of an instruction once something is dropped:

- **opcode+immediates**: its opcode and its numbers, in order; every register, label, SSA value and
  guard dropped (``@%p1 add.s64 %rd5, %rd1, 128;`` is ``add.s64 128``). No renaming of registers
  gets a diff under it, short of calling a block moved.
- **registers kept**: its shape, every name replaced by its class (``add.s64 %rd, %rd, 128;``:
  what ``--ignore registers`` compares). It keeps which kind of register each operand is, and so is
  at least the first.

A diff that ignores immediates is measured against the same floors with the numbers dropped from
every key (``floors(immediates=False)``: opcodes alone; shapes with ``#``).

Edit distance, not the longest common subsequence of lines: a LCS counts a replaced line as one
removed and one added, and would rather shift (A's ``or %r, 64`` against the ``or %r, 64`` that is
B's second element) than replace in place. On a config that moves every element's offset, the diff
that keeps each element's register with its element (so that only the offsets change) changes 2N
lines where that count says N; in instructions both are N. ``Floors.lines`` gives the LCS count
(lines removed plus added by a minimal diff of opcode+immediates), the figure issue 30 quotes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..ir.dialects import dialect_of
from ..ir.normalize import NormalizedLine
from ..types import Stage
from .canonical import IMMEDIATE, NAMES, is_instruction, tokenize
from .exact import edit_distance, lcs_length


def opcode_immediates(stage: Stage, lines: Sequence[NormalizedLine], immediates: bool = True) -> list[str]:
    """Each instruction line as its opcode and its numbers (names dropped), e.g. ``add.s64 128``;
    without ``immediates``, its opcode alone."""
    pattern = NAMES.get(stage)
    out = []
    for line in lines:
        if not is_instruction(stage, line.text):
            continue
        text = pattern.sub(" ", line.text) if pattern is not None else line.text
        out.append(" ".join([_opcode(stage, text), *IMMEDIATE.findall(text)]) if immediates else _opcode(stage, text))
    return out


def _opcode(stage: Stage, text: str) -> str:
    """The opcode of an instruction whose names are dropped: its first word, past a guard's ``@``/``@!``
    in PTX and SASS and past ``... =`` in the SSA forms."""
    words = text.split()
    naming = dialect_of(stage).names
    defines = naming.defines if naming is not None else ""
    if defines in ("guarded", "physical") and words and words[0].startswith("@"):  # `@`, `@!`, SASS `@PT`
        words = words[1:]
    if defines == "ssa" and "=" in words:
        words = words[words.index("=") + 1 :]
    return words[0] if words else ""


def shapes(stage: Stage, lines: Sequence[NormalizedLine], immediates: bool = True) -> list[str]:
    """Each instruction line with every name replaced by its class (``add.s64 %rd, %rd, 128;``); without
    ``immediates``, its numbers read as ``#`` too."""
    out = [x.shape for x in tokenize(stage, lines) if is_instruction(stage, x.text)]
    return out if immediates else [IMMEDIATE.sub("#", x) for x in out]


@dataclass(frozen=True)
class Floors:
    """The floors of one pair of listings, in instructions (see the module's docstring), and the
    LCS count of opcode+immediates in lines."""

    opcode_immediates: int
    registers_kept: int
    lines: int


def floors(stage: Stage, a: Sequence[NormalizedLine], b: Sequence[NormalizedLine], immediates: bool = True) -> Floors:
    """The floors of listings ``a`` and ``b`` (as ``listing_lines`` gives them). Without ``immediates``,
    those of a diff that ignores them: the numbers dropped from every key (opcodes alone, shapes with
    ``#``)."""
    keys_a, keys_b = opcode_immediates(stage, a, immediates), opcode_immediates(stage, b, immediates)
    return Floors(
        edit_distance(keys_a, keys_b),
        edit_distance(shapes(stage, a, immediates), shapes(stage, b, immediates)),
        len(keys_a) + len(keys_b) - 2 * lcs_length(keys_a, keys_b),
    )
