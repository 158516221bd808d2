"""MLIR's pass dumps read back: which pass ran, in which stage, and what it changed.

With ``MLIR_ENABLE_DUMP`` Triton's pass managers print the IR *before* every pass,
never after, so the IR after pass N is the dump before pass N+1, and after a stage's
last pass it is the module as the stage hands it on (the compiler's own listing).
A sweep keeps every variant's passes, so only the passes that changed the IR keep
anything: their line operations against the IR before them (``delta``), from which
the IR after any pass is rebuilt.

Passes (issue 17): ``frontends/triton/passes.py`` records every MLIR pass of one compile
(``Kernel.compile_passes``, asked for by ``capture_many(passes=True)``, in a compile worker): around
each MLIR stage it sets ``MLIR_ENABLE_DUMP`` to the kernel's name and sends the process's stderr and
stdout to a file of that stage's own, so the dumps are scoped to the kernel, the compile and the
stage. ``ir/passes.py`` reads them (headers, nested passes, the pipeliner's own dumps left out) into
a ``types.PassLog`` (the IR before the first pass, then each pass's line operations where it changed
the IR; long LLVM struct types aliased) and rebuilds the IR after any pass; ``diffing/passes.py`` diffs
one pass and finds the first pass where two configs part (the configs' own constants masked);
``cli/passes.py`` is the command. A ``Variant`` carries its ``passes`` where they were asked for,
and ``storage/variants.py`` writes them beside its stages as ``passes.json.gz``, so sessions and the capture
cache keep them with no code of their own. Each pass's IR is read through a registered stage
(``PassStep.listing_stage``: TTIR's or TTGIR's MLIR parsers), not a stage of its own.

TileLang's TIR passes (``frontends/tilelang/passes.py``) come from its own pass instrumentation, which sees
the IR before and after each pass: ``chained_log`` builds their PassLog, each step keeping the IR it started
from where that is not the IR the step before left (``PassStep.rebase``: TVM nests passes in passes).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..types import ALIAS_MARK, PASS_ALIAS, PassLog, PassStep, Stage

# A dump's header names the pass (its class) and its argument (the name a pipeline gives it), in one of
# two forms. MLIR before Triton 3.8:
# // -----// IR Dump Before TritonGPUCoalesce (tritongpu-coalesce) ('builtin.module' operation) //----- //
# // -----// IR Dump Before Canonicalizer (canonicalize) ('tt.func' operation: @square_kernel) //----- //
# and from Triton 3.8 on, the argument followed by the pass's options, if it has any:
# // -----// IR Dump Before TritonGPUCoalesce: tritongpu-coalesce ('builtin.module' operation) //----- //
# // -----// IR Dump Before InlinerPass: inline{default-pipeline=canonicalize max-iterations=4 } ('builtin.module' ...
# The argument is the part before the options in either: ``header_pass`` reads the two forms alike.
DUMP_HEADER = re.compile(
    r"^// -----// IR Dump (?:Before|After) "
    r"(?:(?P<name>\S+) \((?P<arg>[^)]*)\)"  # Name (arg)
    r"|(?P<name_38>[^\s:]+): (?P<arg_38>[^\s{]+)(?:\{.*?\})?)"  # Name: arg{options}
    r" \('(?P<op>[^']+)' operation(?:: (?P<symbol>@[^)]+))?\) //----- //$",
    re.M,
)


def header_pass(m: re.Match) -> tuple[str, str]:
    """``(name, arg)`` of a DUMP_HEADER match, whichever form it has: ``("InlinerPass", "inline")``."""
    if m["name"] is not None:
        return m["name"], m["arg"]
    return m["name_38"], m["arg_38"]


# // -----// SoftwarePipeliner internal IR Dump After: LowerLoops
OTHER_OUTPUT = re.compile(r"^// -----//", re.M)
# !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
LONG_TYPE = re.compile(r"!llvm\.struct<\([^()]{64,}\)>")
# A stored line's alias for a long type (ALIAS_MARK): a control character, which MLIR's printer escapes in text.
ALIAS = PASS_ALIAS
# %row_6 = tt.load %input_ptrs_4, %row_5, %cst : tensor<128x!tt.ptr<f32>, #blocked>
# tt.store %output_ptrs_7, %square_output, %row_5 : tensor<128x!tt.ptr<f32>, #blocked>
# %0:2 = "ttg.warp_specialize"() ...
MLIR_OP = re.compile(r'^(?:%[^=]+=\s*)?"?(?P<op>[a-z_][\w]*\.[\w.]+)')


@dataclass(frozen=True)
class PassDump:
    """One dump: the pass about to run, the op it runs on, and the IR before it."""

    name: str
    arg: str
    scope: str  # "" when it runs on the module; "tt.func @k" when nested in another pass
    before: str


def split_dumps(text: str) -> list[PassDump]:
    """The dumps of one pass manager's output, in the order they were printed."""
    heads = list(DUMP_HEADER.finditer(text))
    out = []
    for n, m in enumerate(heads):
        end = heads[n + 1].start() if n + 1 < len(heads) else len(text)
        scope = "" if m["op"] == "builtin.module" else f"{m['op']} {m['symbol'] or ''}".strip()
        body = text[m.end() : end]
        # Anything else printed during the pass (the pipeliner's own "// -----// ... internal IR
        # Dump" sections) follows its dump: the IR before the pass ends there.
        cut = OTHER_OUTPUT.search(body)
        out.append(PassDump(*header_pass(m), scope, tidy(body[: cut.start()] if cut else body)))
    return out


def tidy(ir: str) -> str:
    """One IR text as the compiler's listing has it: the dump's blank lines around it dropped."""
    return ir.strip("\n") + "\n"


def build_pass_log(stages: Sequence[tuple[Stage, str, str]]) -> PassLog:
    """A PassLog from each stage's dump text and the module the stage handed on, in pipeline order.

    ``stages``: ``(stage, dumps, end)``. Across stages the chain goes on: the IR before a
    stage's first pass is the one the stage before handed on.
    """
    chain: list[tuple[PassDump, Stage, str]] = []  # each pass and the IR after it
    initial: str | None = None
    for stage, dumps_text, end in stages:
        dumps = split_dumps(dumps_text)
        if not dumps:
            continue
        if initial is None:
            initial = dumps[0].before
        afters = [d.before for d in dumps[1:]] + [tidy(end)]
        chain += [(dump, stage, after) for dump, after in zip(dumps, afters)]
    if initial is None:
        return PassLog("")
    return chained_log(initial, [(dump, stage, None, after) for dump, stage, after in chain])


def chained_log(initial: str, chain: Sequence[tuple[PassDump, Stage, str | None, str]]) -> PassLog:
    """A PassLog from the IR before the first pass and each pass's ``(dump, stage, before, after)`` in
    pipeline order; ``before``: the IR the pass started from, where the compiler's hook says (TileLang's),
    else None: the IR the pass before left."""
    aliases: dict[str, int] = {}
    previous = first = _aliased(initial, aliases)
    counts = op_counts(previous)
    steps: list[PassStep] = []
    for dump, stage, before, after in chain:
        after = _aliased(after, aliases)
        rebase = None
        if before is not None and (before := _aliased(before, aliases)) != previous:
            rebase = encode_delta(previous.splitlines(), before.splitlines())
            previous, counts = before, op_counts(before)
        step, counts = _step(len(steps) + 1, dump, stage, previous, after, counts)
        steps.append(replace(step, rebase=rebase) if rebase is not None else step)
        previous = after
    return PassLog(first, tuple(steps), tuple(aliases))


def _aliased(text: str, aliases: dict[str, int]) -> str:
    """``text`` with each long type named by its number, numbering those seen first here: after lowering
    to LLVM, every value a thread holds of a tensor is a struct of a field per element, on every line."""

    def alias(m: re.Match) -> str:
        n = aliases.setdefault(m[0], len(aliases))
        return f"{ALIAS_MARK}{n}{ALIAS_MARK}"

    return LONG_TYPE.sub(alias, text)


def unaliased(text: str, aliases: Sequence[str]) -> str:
    """Stored IR with its long types written out again."""
    if not aliases:
        return text
    return ALIAS.sub(lambda m: aliases[int(m[1])], text)


def _step(
    index: int, dump: PassDump, stage: Stage, before: str, after: str, ops_a: Counter
) -> tuple[PassStep, Counter]:
    """The pass and the operation counts of the IR after it (those before it are ``ops_a``)."""
    if before == after:
        return PassStep(index, dump.name, dump.arg, stage, dump.scope), ops_a
    a, b = before.splitlines(), after.splitlines()
    delta = encode_delta(a, b)
    ops_b = op_counts(after)
    return PassStep(
        index,
        dump.name,
        dump.arg,
        stage,
        dump.scope,
        delta=delta,
        lines_removed=sum(-op for op in delta if isinstance(op, int) and op < 0) - _locations_dropped(a, delta),
        lines_added=sum(1 for op in delta if isinstance(op, tuple) for line in op if not line.startswith("#loc")),
        ops_removed=dict(ops_a - ops_b),
        ops_added=dict(ops_b - ops_a),
    ), ops_b


def _locations_dropped(lines: list[str], delta: tuple) -> int:
    """How many of the lines ``delta`` drops are location definitions (``#loc3 = loc(...)``): not code."""
    at = dropped = 0
    for op in delta:
        if isinstance(op, int):
            if op < 0:
                dropped += sum(1 for line in lines[at : at - op] if line.startswith("#loc"))
            at += abs(op)
    return dropped


def op_counts(ir: str) -> Counter:
    """Operations by name (``tt.load``: 2), locations and attribute aliases left out."""
    counts: Counter = Counter()
    for line in ir.splitlines():
        m = MLIR_OP.match(line.strip())
        if m and not line.startswith("#"):
            counts[m["op"]] += 1
    return counts


def encode_delta(a: list[str], b: list[str]) -> tuple:
    """Line operations that turn ``a`` into ``b``: keep n (n > 0), drop n (-n), insert (a tuple of lines)."""
    out: list = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(i2 - i1)
            continue
        if i2 > i1:
            out.append(-(i2 - i1))
        if j2 > j1:
            out.append(tuple(b[j1:j2]))
    return tuple(out)


def apply_delta(lines: list[str], delta: Iterable) -> list[str]:
    out: list[str] = []
    at = 0
    for op in delta:
        if isinstance(op, tuple):
            out.extend(op)
        elif op > 0:
            out.extend(lines[at : at + op])
            at += op
        else:
            at -= op
    if at != len(lines):
        raise ValueError(f"a pass's line operations cover {at} of {len(lines)} lines: damaged pass data")
    return out


def _applied(lines: list[str], step: PassStep) -> list[str]:
    """The stored lines after ``step`` from those after the pass before it."""
    for ops in (step.rebase, step.delta):
        if ops is not None:
            lines = apply_delta(lines, ops)
    return lines


def ir_after_each(log: PassLog) -> list[str]:
    """The IR before the first pass, then after each pass: ``[initial, after 1, after 2, ...]``."""
    lines = log.initial.splitlines()
    texts = [unaliased(log.initial, log.aliases)]
    for step in log.steps:
        if step.delta is not None or step.rebase is not None:
            lines = _applied(lines, step)
            texts.append(unaliased("\n".join(lines) + "\n", log.aliases))
        else:
            texts.append(texts[-1])
    return texts


def ir_after(log: PassLog, index: int) -> str:
    """The IR after pass ``index`` (1-based; 0: before the first pass)."""
    if not 0 <= index <= len(log.steps):
        raise IndexError(f"pass {index} out of range: the pipeline has {len(log.steps)} passes")
    lines = log.initial.splitlines()
    for step in log.steps[:index]:
        lines = _applied(lines, step)
    return unaliased("\n".join(lines) + "\n", log.aliases)


def ir_around(log: PassLog, index: int) -> tuple[str, str]:
    """The IR pass ``index`` (1-based) started from and the IR after it, rebuilt through that pass alone: a
    log's later passes are never rebuilt (``ir_after_each`` rebuilds them all, each a text of its own)."""
    if not 1 <= index <= len(log.steps):
        raise IndexError(f"pass {index} out of range: the pipeline has {len(log.steps)} passes")
    lines = log.initial.splitlines()
    for step in log.steps[: index - 1]:
        lines = _applied(lines, step)
    step = log.steps[index - 1]
    if step.rebase is not None:
        lines = apply_delta(lines, step.rebase)
    before = unaliased("\n".join(lines) + "\n", log.aliases)
    if step.delta is None:
        return before, before
    return before, unaliased("\n".join(apply_delta(lines, step.delta)) + "\n", log.aliases)


def ir_before(log: PassLog, index: int, texts: Sequence[str] | None = None) -> str:
    """The IR pass ``index`` (1-based) started from: the IR after the pass before it, unless it started
    elsewhere (``PassStep.rebase``). ``texts``: ``ir_after_each(log)``, where the caller has it."""
    previous = texts[index - 1] if texts is not None else ir_after(log, index - 1)
    rebase = log.steps[index - 1].rebase
    if rebase is None:
        return previous
    lines = apply_delta(previous.splitlines(), rebase)
    return unaliased("\n".join(lines) + "\n", log.aliases)


def find_pass(log: PassLog, which: str) -> PassStep:
    """A pass by its index (``12``), its name or its argument (the first one, or ``name#2`` for the second)."""
    text = which.strip()
    if text.isdigit():
        n = int(text)
        if not 1 <= n <= len(log.steps):
            raise LookupError(f"no pass {n}: the pipeline has {len(log.steps)} passes (1-{len(log.steps)})")
        return log.steps[n - 1]
    name, _, nth = text.partition("#")
    matches = [s for s in log.steps if name in (s.name, s.arg)]
    k = int(nth) if nth.isdigit() else 1
    if not matches or k > len(matches) or k < 1:
        known = ", ".join(dict.fromkeys(s.arg for s in log.steps))
        raise LookupError(
            f"no pass {which!r} in the pipeline (by index 1-{len(log.steps)}, name or argument; arguments: {known})"
        )
    return matches[k - 1]


def ops_text(step, most: int = 4) -> str:
    """``-tt.load x1 +ttg.convert_layout x6``, the largest first, at most ``most`` of each."""
    parts = []
    for sign, ops in (("-", step.ops_removed), ("+", step.ops_added)):
        top = sorted(ops.items(), key=lambda kv: (-kv[1], kv[0]))
        parts += [f"{sign}{op} x{n}" for op, n in top[:most]]
        if len(top) > most:
            parts.append(f"{sign}{len(top) - most} more")
    return " ".join(parts)
