"""The width of a kernel's global loads and stores (PTX or SASS), and why the narrow ones are narrow, naming
only a cause the listing and the source prove.

Three things a width finding must not do, each seen on library kernels: call a one-value-per-program
access (``tl.load(Mean + row)``, a grouped GEMM's sizes and pointers) one to widen: every thread reads the
same address, and its width is that of the value; blame a tensor's bound or offset for a gather whose
element index is multiplied by a constant (``o_t * H``, H a constexpr: the elements are H apart, and no
size makes them contiguous); advise "a larger BLOCK_SIZE" to a kernel that has none: the name is the one
in the ``tl.arange`` that sizes the access, read from its Python line, or none at all.
"""

from __future__ import annotations

import re
from collections import Counter

from ..ir.sourcemap import SourceMap
from ..ir.stats import byte_shares
from ..types import Stage, Variant
from .facts import StageFacts
from .finding import Finding
from .reasons import access_reasons, combined

# %mean = tt.load %M_ptr : !tt.ptr<f32>        tt.store %ptr, %v : tensor<64x!tt.ptr<f32>, #blocked>
TT_MEMORY = re.compile(r"^\s*(?:%[\w$.-]+\s*=\s*)?tt\.(?:load|store)\s[^:]*:\s*(?P<type>\S+)")
# o_t = i_t * BT + tl.arange(0, BT)
ARANGE = re.compile(r"\btl\.arange\(\s*0\s*,\s*([A-Za-z_]\w*)\s*\)")


def vectorization(variant: Variant, facts: StageFacts, smap: SourceMap) -> list[Finding]:
    """One finding per kind of global access (loads, stores): vectorised, mixed, or not, and why."""
    out = []
    own = smap.own_lines(facts.stage)
    scalar_lines = one_value_lines(variant, smap)
    for kind in ("load", "store"):
        every = facts.global_accesses(kind)
        if not every:
            continue
        scalars = [(i, a) for i, a in every if i.index < len(own) and own[i.index] in scalar_lines]
        accesses = [x for x in every if x not in scalars]
        aside = _one_value_words(scalars, own)
        if not accesses:
            rows, _ = _width_rows(scalars)
            out.append(
                Finding(
                    "vectorization",
                    "info",
                    f"global {kind}s move one value per program",
                    f"{', '.join(rows)}.{aside}",
                    facts.stage,
                    tuple(i.index for i, _ in scalars),
                    tuple(rows),
                )
            )
            continue
        out.append(_tile_finding(variant, facts, smap, kind, accesses, aside))
    return out


def _tile_finding(variant, facts: StageFacts, smap: SourceMap, kind: str, accesses, aside: str) -> Finding:
    rows, shares = _width_rows(accesses)
    widths = sorted({a.bytes for _, a in accesses if a.bytes}, reverse=True)
    mix = ", ".join(rows) + _generic_words(accesses, facts.stage)
    space = _space_of(accesses)
    if widths and widths[-1] >= 16:
        return Finding(
            "vectorization",
            "info",
            f"{space} {kind}s are vectorised: {widths[0]} bytes per thread",
            f"{mix}. Each thread moves {widths[0]} contiguous bytes per instruction, the widest global access "
            f"there is.{aside}",
            facts.stage,
            tuple(i.index for i, _ in accesses),
            tuple(rows),
        )
    narrow = [(i, a) for i, a in accesses if (a.bytes or 0) < 16]
    reasons = reasons_for(variant, smap, facts.stage, [i.index for i, _ in narrow])
    if widths and widths[0] >= 16:
        share = ", ".join(f"{w} B {100 * s:.0f}%" for w, s in shares.items())
        detail = (
            f"{mix}. Of the bytes each thread moves, {share}: the narrow accesses (lines cited) are the ones to widen."
        )
        title = f"{space} {kind}s mix widths: {share} of the bytes"
        cited = narrow
    else:
        widest = widths[0] if widths else None
        detail = f"{mix}. Each thread moves {widest or '?'} bytes per instruction; 16 would be the widest."
        title = f"{space} {kind}s are not vectorised ({widest} bytes per thread)"
        cited = accesses
    if reasons:
        detail += " " + reasons
    return Finding(
        "vectorization", "warn", title, detail + aside, facts.stage, tuple(i.index for i, _ in cited), tuple(rows)
    )


def _width_rows(accesses) -> tuple[list[str], dict[int, float]]:
    """``["ld.global.v4.b32 x2 (16 B)", ...]`` and each width's share of the bytes moved."""
    per_opcode = Counter((i.opcode, a.bytes) for i, a in accesses)
    rows = [f"{op} x{n} ({width or '?'} B)" for (op, width), n in per_opcode.most_common()]
    return rows, byte_shares(a.bytes for _, a in accesses)


def _one_value_words(scalars, own) -> str:
    if not scalars:
        return ""
    lines = sorted({own[i.index] for i, _ in scalars if i.index < len(own) and own[i.index]})
    return (
        f" Not counted here: {len(scalars)} access{'es' if len(scalars) != 1 else ''} of one value per program "
        f"(a scalar tl.load or tl.store, Python line{'s' if len(lines) != 1 else ''} "
        f"{', '.join(map(str, lines))}): every thread uses the same address, and the width is the value's."
    )


def one_value_lines(variant: Variant, smap: SourceMap) -> set[int]:
    """Python lines whose every TTIR tl.load/tl.store moves a scalar (one value per program)."""
    ttir = variant.listings.get(Stage.TTIR, "")
    scalar: set[int] = set()
    tiles: set[int] = set()
    for n, line in enumerate(ttir.splitlines()):
        m = TT_MEMORY.match(line)
        if not m:
            continue
        python = smap.source_line(Stage.TTIR, n)
        if python:
            (tiles if m["type"].startswith("tensor<") else scalar).add(python)
    return scalar - tiles


def _space_of(accesses) -> str:
    spaces = {a.space for _, a in accesses}
    return "global" if spaces == {"global"} else "generic" if spaces == {"generic"} else "global and generic"


def _generic_words(accesses, stage: Stage) -> str:
    generic = sum(1 for _, a in accesses if a.space == "generic")
    if not generic:
        return ""
    names = "ld/st without .global" if stage == Stage.PTX else "LD/ST"
    return (
        f" ({generic} generic: {names}, no state space named; the hardware resolves each address at run "
        "time, and the compiler could not prove the pointer global)"
    )


def reasons_for(variant: Variant, smap: SourceMap, stage: Stage, lines: list[int]) -> str:
    """Why the accesses at ``lines`` are narrow, for the tl.load/tl.store on the same Python lines: their
    elements are a constant apart; one element per thread; or what the compiler could not assume about
    the arguments their addresses come from (reasons.py)."""
    info = variant.compile_info
    ttir = variant.listings.get(Stage.TTIR, "")
    if info is None or not ttir:
        return ""
    own = smap.own_lines(stage)
    python_lines = {own[i] for i in lines if i < len(own) and own[i]}
    found = [r for r in access_reasons(ttir) if r.elements]
    chosen = [r for r in found if smap.source_line(Stage.TTIR, r.line) in python_lines] or found
    if not chosen:
        return ""
    reasons = combined(chosen)
    if reasons.constant_strides:
        return f"Each thread's elements cannot be one access: {reasons.words()}."
    threads = info.threads_per_block
    if threads and reasons.elements <= threads:
        return (
            f"Each access covers {reasons.elements} elements and the block has {threads} threads: one element per "
            f"thread. {_more_elements(variant, smap, chosen, reasons.elements)}"
        )
    words = reasons.words()
    return f"Each thread has several elements, but {words}." if words else ""


def _more_elements(variant: Variant, smap: SourceMap, chosen, elements: int) -> str:
    """What gives a thread several elements: the constexpr in the ``tl.arange`` sizing the access, where its
    Python line names one of that size, and fewer warps."""
    source = variant.listings.get(Stage.SOURCE, "").splitlines()
    names = set()
    for r in chosen:
        for n in r.ranges:
            line = smap.source_line(Stage.TTIR, n)
            if line and 0 < line <= len(source):
                names.update(ARANGE.findall(source[line - 1]))
    sized = sorted(n for n in names if variant.config.constexprs.get(n) in (None, elements))
    bigger = f"a larger {' or '.join(sized)}" if sized else "more elements per program"
    return (
        f"{bigger[0].upper()}{bigger[1:]}, or fewer warps, give each thread several contiguous elements, which can "
        "become one wide access."
    )
