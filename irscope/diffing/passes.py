"""Passes diffed: what one pass changed, and the first pass after which two configs part.

"Beyond the config's own constants": a config reaches the IR as numbers, and those
differ between two configs without the compiler having decided anything. Masked
before comparing (on both sides, each with its own values): integers in constants
(``arith.constant 128``, ``dense<...>``, ``llvm.mlir.constant``), range bounds
(``start``/``end``), tensor and memdesc shapes (``tensor<128xf32``), the numbers in
value names (``%c128_i32``). Not masked elsewhere, even where a number equals a
config value: 128 is BLOCK_SIZE in one line and the thread count in the next. Kept: layout encodings (``#blocked = ...``
lines: sizePerThread, threadsPerWarp, warpsPerCTA, order, shared and MMA layouts),
which are the compiler's decisions, and everything else: operations, their count and
order, element types, attributes, hints.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..ir.dialects import normalize
from ..ir.normalize import NormalizedLine
from ..ir.passes import ir_after_each
from ..types import PassLog, PassStep, Stage
from .canonical import canonical_diff_texts
from .core import Hunk, diff_lines, hunks_from

# #blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
LAYOUT_ALIAS = re.compile(r"^#\w+ = #")
# %c128_i32 = arith.constant 128 : i32 ;  llvm.mlir.constant(127 : i32) : i32 ;  dense<0xFF800000>
CONSTANT_OP = re.compile(r"\b(?:arith\.constant|llvm\.mlir\.constant)\b")
# tensor<128x64xf16, #blocked> ;  !ttg.memdesc<3x128x64xf16, ...>
SHAPE = re.compile(r"\b(tensor|memdesc|vector)<((?:\d+x)+)")
# tt.make_range {end = 128 : i32, start = 0 : i32}
BOUND = re.compile(r"\b(start|end) = \d+")
VALUE_NAME = re.compile(r"%[\w.$]+")
NUMBER = re.compile(r"(?<![\w#.])\d+\b")


def pass_hunks(log: PassLog, index: int, texts: Sequence[str] | None = None) -> list[Hunk]:
    """The normalised diff of pass ``index``: the IR before it against the IR after it."""
    texts = texts or ir_after_each(log)
    step = log.steps[index - 1]
    return ir_hunks(step, texts[index - 1], texts[index])


def _hunks(step: PassStep | None, a: str, b: str) -> tuple[Hunk, ...]:
    """``ir_hunks`` of a pass one side ran (none where that side ran no pass here)."""
    return tuple(ir_hunks(step, a, b)) if step is not None else ()


def ir_hunks(step: PassStep, a: str, b: str) -> list[Hunk]:
    lines_a, lines_b, ops = canonical_diff_texts(step.listing_stage, a, b)
    return hunks_from(lines_a, lines_b, ops)


def masked(step: PassStep, text: str) -> list[NormalizedLine]:
    """``text`` normalised, with the config's own constants (see the module's docstring) read as ``#``."""
    out = []
    for line in normalize(step.listing_stage, text):
        code = line.text
        if not LAYOUT_ALIAS.match(code):
            code = VALUE_NAME.sub(lambda m: re.sub(r"\d+", "#", m[0]), code)
            code = SHAPE.sub(lambda m: f"{m[1]}<" + "#x" * m[2].count("x"), code)
            code = BOUND.sub(lambda m: f"{m[1]} = #", code)
            if CONSTANT_OP.search(code):
                code = NUMBER.sub("#", code)
        out.append(NormalizedLine(line.index, code))
    return out


@dataclass(frozen=True)
class Divergence:
    """The first pass after which two configs' IR differs beyond their own constants.

    ``index``: that pass (1-based; 0 when the IR differs before the first pass, None when it
    never does). ``reason`` says how. ``between``: A's IR against B's after the pass, masked;
    ``own_a``/``own_b``: what the pass itself changed in each.
    """

    index: int | None
    reason: str
    step_a: PassStep | None = None
    step_b: PassStep | None = None
    between: tuple[Hunk, ...] = ()
    own_a: tuple[Hunk, ...] = ()
    own_b: tuple[Hunk, ...] = ()


def first_divergence(log_a: PassLog, log_b: PassLog) -> Divergence:
    """Compare A and B after every pass, in pipeline order; the first difference wins."""
    texts_a, texts_b = ir_after_each(log_a), ir_after_each(log_b)
    for n in range(max(len(log_a.steps), len(log_b.steps)) + 1):
        if n > len(log_a.steps) or n > len(log_b.steps):
            return Divergence(n, f"A runs {len(log_a.steps)} passes, B {len(log_b.steps)}")
        step_a = log_a.steps[n - 1] if n else None
        step_b = log_b.steps[n - 1] if n else None
        if step_a is not None and step_b is not None and (step_a.arg, step_a.scope) != (step_b.arg, step_b.scope):
            return Divergence(n, f"the pipelines part: A runs {step_a.arg}, B runs {step_b.arg}", step_a, step_b)
        probe = step_a or _first(log_a)
        lines_a = masked(probe, texts_a[n])
        lines_b = masked(probe, texts_b[n])
        if [x.text for x in lines_a] != [x.text for x in lines_b]:
            between = tuple(diff_lines(lines_a, lines_b))
            if n == 0:
                return Divergence(0, "the IR differs before the first pass", between=between)
            return Divergence(
                n,
                "the IR after it differs beyond the configs' own constants",
                step_a,
                step_b,
                between,
                _hunks(step_a, texts_a[n - 1], texts_a[n]),
                _hunks(step_b, texts_b[n - 1], texts_b[n]),
            )
    return Divergence(None, "the IR never differs beyond the configs' own constants")


def _first(log: PassLog) -> PassStep:
    return log.steps[0] if log.steps else PassStep(0, "", "", Stage.TTIR)
