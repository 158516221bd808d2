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
order, element types, attributes, hints. TileLang's TIR (TVMScript) has none of these
markers: every integer in it is masked (a block size reaches it as loop extents, buffer
shapes, thread counts and index arithmetic alike); its names, calls, their order and dtypes are kept.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..ir.dialects import dialect_of, normalize
from ..ir.normalize import NormalizedLine
from ..ir.passes import ir_after_each, ir_around, ir_before
from ..types import PassLog, PassStep, Stage
from .canonical import canonical_diff_texts
from .core import Hunk, diff_lines, hunks_from

# #blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
LAYOUT_ALIAS = re.compile(r"^#\w+ = #")
# %c128_i32 = arith.constant 128 : i32 ;  llvm.mlir.constant(127 : i32) : i32 ;  dense<0xFF800000>
CONSTANT_OP = re.compile(r"\b(?:arith\.constant|llvm\.mlir\.constant)\b")
# tensor<128x64xf16, #blocked> ;  !ttg.memdesc<3x128x64xf16, ...>
SHAPE = re.compile(r"\b(tensor|memdesc|vector)<((?:\d+x)+)")
# ttg.async_copy_global_to_local %p, %buf : tensor<...> -> <128x32xf16, #shared, #smem, mutable>
ARROW_SHAPE = re.compile(r"(-> )<((?:\d+x)+)")
# tt.make_range {end = 128 : i32, start = 0 : i32};  {allocation.offset = 24576 : i32};  ttg.shared = 36864 : i32
BOUND = re.compile(r"\b(start|end|allocation\.offset|ttg\.shared) = \d+")
VALUE_NAME = re.compile(r"%[\w.$]+")
NUMBER = re.compile(r"(?<![\w#.])\d+\b")


def pass_hunks(log: PassLog, index: int, texts: Sequence[str] | None = None) -> list[Hunk]:
    """The normalised diff of pass ``index``: the IR before it against the IR after it. ``texts``:
    ``ir_after_each(log)`` where the caller holds it (the TUI); else the passes up to ``index`` alone are rebuilt."""
    step = log.steps[index - 1]
    if texts is None:
        return ir_hunks(step, *ir_around(log, index))
    return ir_hunks(step, ir_before(log, index, texts), texts[index])


def _hunks(step: PassStep | None, a: str, b: str) -> tuple[Hunk, ...]:
    """``ir_hunks`` of a pass one side ran (none where that side ran no pass here)."""
    return tuple(ir_hunks(step, a, b)) if step is not None else ()


def ir_hunks(step: PassStep, a: str, b: str) -> list[Hunk]:
    lines_a, lines_b, ops = canonical_diff_texts(step.listing_stage, a, b)
    return hunks_from(lines_a, lines_b, ops)


def masked(step: PassStep, text: str) -> list[NormalizedLine]:
    """``text`` normalised, with the config's own constants (see the module's docstring) read as ``#``, and
    pure operations that are then alike merged into one (``merged``)."""
    return [NormalizedLine(x.index, _names_masked(x.text)) for x in _masked_named(step, text)]


def _names_masked(code: str) -> str:
    return code if LAYOUT_ALIAS.match(code) else VALUE_NAME.sub(_digits, code)


def _masked_named(step: PassStep, text: str) -> list[NormalizedLine]:
    """``masked`` but for the numbers in value names: each name still names one value."""
    out = []
    tir = dialect_of(step.listing_stage).key == "tir"
    for line in normalize(step.listing_stage, text):
        code = line.text
        if tir:  # TileLang's TIR: a config's values are its extents, shapes, strides and indices
            code = NUMBER.sub("#", code)
        elif not LAYOUT_ALIAS.match(code):
            code = SHAPE.sub(lambda m: f"{m[1]}<" + "#x" * m[2].count("x"), code)
            code = ARROW_SHAPE.sub(lambda m: f"{m[1]}<" + "#x" * m[2].count("x"), code)
            code = BOUND.sub(lambda m: f"{m[1]} = #", code)
            if CONSTANT_OP.search(code):
                code = _outside_names(code)
        out.append(NormalizedLine(line.index, code))
    if _mlir(step):
        out = merged(out)
    return out


def _mlir(step: PassStep) -> bool:
    """The step's listing is MLIR (TTIR, TTGIR: the dialect registry says), whose pure operations are merged
    and numbered by value; LLVM IR's are left as they are."""
    return dialect_of(step.listing_stage).key == "mlir"


def _outside_names(code: str) -> str:
    """NUMBER masked in ``code`` but inside value names (``%5`` stays the value it names)."""
    parts = VALUE_NAME.split(code)
    names = VALUE_NAME.findall(code)
    out = [NUMBER.sub("#", parts[0])]
    for name, part in zip(names, parts[1:]):
        out += [name, NUMBER.sub("#", part)]
    return "".join(out)


def _digits(m: re.Match) -> str:
    return re.sub(r"\d+", "#", m[0])


# %rm = arith.muli %pid_m, %c64_i32 : i32        (a single result: `%x:2 = ...` is not merged)
DEFINITION = re.compile(r"^(%[\w$.-]+) = ([\w.]+)\b(.*)$")
# operations without side effects or regions, which canonicalize's CSE merges when they are alike
PURE = (
    "arith.",
    "math.",
    "tt.splat",
    "tt.broadcast",
    "tt.expand_dims",
    "tt.make_range",
    "tt.addptr",
    "tt.get_program_id",
    "tt.get_num_programs",
    "tt.reshape",
    "tt.trans",
    "ttg.convert_layout",
)


def compared(step: PassStep, text: str) -> list[str]:
    """What two configs' IR is compared by: ``masked``'s lines, where each pure value of TTIR/TTGIR is named
    by what it computes (a hash of its operation over its operands' names, so the same wherever it is
    defined) and its definition left out; where a pure operation is defined, and which Python name it got,
    is the canonicalizer's and CSE's business, not a decision the configs made."""
    lines = _masked_named(step, text)
    if not _mlir(step):
        return [_names_masked(x.text) for x in lines]
    names: dict[str, str] = {}
    out = []
    for line in lines:
        code = VALUE_NAME.sub(lambda m: names.get(m[0], m[0]), line.text) if names else line.text
        m = DEFINITION.match(code)
        if m and m[2].startswith(PURE):
            names[m[1]] = "%=" + hashlib.blake2b((m[2] + m[3]).encode(), digest_size=6).hexdigest()
            continue
        out.append(_names_masked(code))
    return out


def merged(lines: list[NormalizedLine]) -> list[NormalizedLine]:
    """Pure operations alike once the config's constants are masked, merged into the first of them, their
    uses renamed to it (value numbering). Two configs whose values coincide (BM = BN = 64) give the compiler
    one constant, one ``tt.make_range`` where the other config has two; merging both sides alike keeps that
    coincidence from reading as a divergence."""
    canonical: dict[str, str] = {}
    first: dict[str, str] = {}
    out = []
    for line in lines:
        code = VALUE_NAME.sub(lambda m: canonical.get(m[0], m[0]), line.text) if canonical else line.text
        m = DEFINITION.match(code)
        if m and m[2].startswith(PURE):
            key = m[2] + m[3]
            if key in first:
                canonical[m[1]] = first[key]
                continue
            first[key] = m[1]
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
        if compared(probe, texts_a[n]) != compared(probe, texts_b[n]):
            lines_a = masked(probe, texts_a[n])
            lines_b = masked(probe, texts_b[n])
            between = tuple(diff_lines(lines_a, lines_b))
            if n == 0:
                return Divergence(0, "the IR differs before the first pass", between=between)
            return Divergence(
                n,
                "the IR after it differs beyond the configs' own constants",
                step_a,
                step_b,
                between,
                _hunks(step_a, ir_before(log_a, n, texts_a), texts_a[n]),
                _hunks(step_b, ir_before(log_b, n, texts_b), texts_b[n]),
            )
    return Divergence(None, "the IR never differs beyond the configs' own constants")


def _first(log: PassLog) -> PassStep:
    return log.steps[0] if log.steps else PassStep(0, "", "", Stage.TTIR)
