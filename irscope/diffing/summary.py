"""A VariantDiff's summary: both variants, their resources, what changed in counts, accesses and per Python line.

It reads a diff's fields only, so ``VariantDiff.summary()`` (core.py) can use it without importing the renderer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ir.dialects import counted
from ..types import Stage, Variant

if TYPE_CHECKING:
    from ..ir.stats import StageStats
    from .core import VariantDiff

OPCODE_ROWS = 16  # changed opcodes listed in the summary


def variant_title(v: Variant) -> str:
    return f"{v.kernel.name} {v.config.label()} · {v.arch}"


def _delta(a: float | int | None, b: float | int | None) -> str:
    if a is None or b is None or a == b:
        return ""
    return f"({b - a:+d})" if isinstance(a, int) and isinstance(b, int) else f"({b - a:+.3g})"


def _access_mix(counts) -> str:
    return ", ".join(f"{op} x{n}" for op, n in sorted(counts.items())) or "none"


def _runtime(m: Any) -> str:
    return "—" if m is None else f"{m.median_us:.1f} us"


def signature(v: Variant) -> dict[str, str]:
    """Each argument's type as the compiler specialised it (``*fp16:16``: a pointer it may assume 16-byte aligned).

    Two variants of one config compiled for different argument types (``-S``, or the launches
    a program made) differ in code for a reason their configs do not show.
    """
    info = v.compile_info
    if info is None:
        return {}
    return {arg: ty + (":16" if arg in info.divisible_by_16 else "") for arg, ty in info.signature.items()}


def _signature_rows(a: Variant, b: Variant) -> list[str]:
    sa, sb = signature(a), signature(b)
    differ = [arg for arg in dict.fromkeys([*sa, *sb]) if sa.get(arg) != sb.get(arg)]
    if not differ:
        return []
    rows = [f"signature differs  {'A':>12}  {'B':>12}"]
    return rows + [f"  {arg:16} {sa.get(arg, '—'):>12}  {sb.get(arg, '—'):>12}" for arg in differ]


def summary_lines(d: VariantDiff) -> list[str]:
    a, b = d.a, d.b
    out = [f"A  {variant_title(a)}", f"B  {variant_title(b)}", *_signature_rows(a, b), ""]
    rows: list[tuple[str, Any, Any]] = []
    if d.runtimes != (None, None):
        ra, rb = d.runtimes
        ratio = f"   B/A = {rb.median_us / ra.median_us:.2f}x" if ra and rb else ""
        out.append(f"runtime (median)   {_runtime(ra):>12}  {_runtime(rb):>12}{ratio}")
    ra_, rb_ = a.resources, b.resources
    if ra_ or rb_:
        for label, attr in (
            ("registers", "registers"),
            ("spill stores (B)", "spill_stores"),
            ("spill loads (B)", "spill_loads"),
            ("stack frame (B)", "stack_frame"),
            ("shared memory (B)", "shared"),
        ):
            rows.append((label, getattr(ra_, attr, None), getattr(rb_, attr, None)))
    options_a = a.compile_info.options if a.compile_info else {}
    options_b = b.compile_info.options if b.compile_info else {}
    for name in dict.fromkeys([*options_a, *options_b]):  # the frontend's launch options, as data
        if name in ("num_warps", "num_stages"):
            rows.append((name, options_a.get(name), options_b.get(name)))
    out.append(f"{'':18} {'A':>12}  {'B':>12}")
    for label, x, y in rows:
        out.append(f"{label:18} {_fmt(x):>12}  {_fmt(y):>12}  {_delta(x, y)}")
    ca, cb = getattr(ra_, "cluster", None), getattr(rb_, "cluster", None)
    if ca or cb:  # a cluster launch's shape (x, y, z CTAs), on either side
        out.append(f"{'cluster (CTAs)':18} {_fmt(ca):>12}  {_fmt(cb):>12}  {'' if ca == cb else 'changed'}".rstrip())
    out.append("")
    out.append("instructions")
    width = max([16, *(len(stage.value) for stage in d.stats)])  # tilelang_device_tir: 19
    for stage, (sa, sb) in d.stats.items():
        out.append(_instructions_row(stage, sa, sb, width))
    for stage in (Stage.PTX, Stage.SASS):
        sa, sb = d.stats.get(stage, (None, None))
        if sa is not None and sb is not None:
            out += _global_memory_rows(stage, sa, sb)
    sa, sb = d.stats.get(Stage.TTGIR, (None, None))
    if sa is not None and sb is not None and (sa.layouts or sb.layouts):
        out += layout_rows(sa.layouts, sb.layouts)
    sa, sb = d.stats.get(d.stage, (None, None))
    if sa is not None and sb is not None:
        ca, cb = sa.opcode_counts(), sb.opcode_counts()
        changed = sorted(
            (op for op in set(ca) | set(cb) if ca[op] != cb[op]), key=lambda op: (-abs(cb[op] - ca[op]), op)
        )
        if changed:
            out.append("")
            out.append(f"{d.stage.value} opcode mix, changed ({len(changed)})")
            for op in changed[:OPCODE_ROWS]:
                out.append(f"  {op:32} {ca[op]:>6} -> {cb[op]:<6} ({cb[op] - ca[op]:+d})")
            if len(changed) > OPCODE_ROWS:
                out.append(f"  ... {len(changed) - OPCODE_ROWS} more")
    out += _across_lines(d)
    out += _across_sources_lines(d)
    if d.by_line:
        out += _by_line_rows(d)
    return out


def _global_memory_rows(stage: Stage, sa: StageStats, sb: StageStats) -> list[str]:
    """Loads and stores of global memory on each side: how many of each width, the widest, the bytes each
    width carries where they mix, and how many are predicated."""
    out = ["", f"global memory ({stage.value})"]
    for kind in ("load", "store"):
        ca, cb = sa.access_counts(kind), sb.access_counts(kind)
        arrow = "=" if ca == cb else "->"
        out.append(f"  {kind + 's':16} {_access_mix(ca)}  {arrow}  {_access_mix(cb)}")
        wa, wb = sa.widest(kind), sb.widest(kind)
        out.append(f"  {'widest ' + kind:16} {_fmt(wa, ' B'):>12}  {_fmt(wb, ' B'):>12}")
        shares = [sa.width_shares(kind), sb.width_shares(kind)]
        if any(len(s) > 1 for s in shares):  # mixed widths: how much each carries
            out.append(f"  {'bytes by width':16} {_shares(shares[0]):>12}  {_shares(shares[1]):>12}")
    pa, pb = sa.predicated_accesses(), sb.predicated_accesses()
    out.append(f"  {'predicated':16} {pa:>12}  {pb:>12}  {_delta(pa, pb)}")
    return out


def _by_line_rows(d: VariantDiff) -> list[str]:
    """Each Python line's instructions on each side, those the diff removed and added, and its global
    accesses where they changed."""
    out = ["", f"by Python line ({d.stage.value} instructions, A -> B; of them removed / added by the diff)"]
    for change in d.by_line:
        mark = " " if change.a == change.b and not (change.removed or change.added) else "*"
        edits = f"-{change.removed} +{change.added}" if change.removed or change.added else ""
        out.append(f" {mark}{change.line:4}  {change.source[:56]:56} {change.a:>5} -> {change.b:<5} {edits}".rstrip())
        if change.access_changed:
            out.append(
                f"{'':8}global accesses: {_accesses(change.access_a, change.masked_a)} -> "
                f"{_accesses(change.access_b, change.masked_b)}"
            )
    return out


def layout_rows(layouts_a, layouts_b) -> list[str]:
    """The TTGIR layouts of both sides, paired by what they are before their names: a layout both have
    under another alias (``#blocked1`` in A is ``#blocked2`` in B: another Triton numbers them in another
    order) is renumbered, not changed; the rest pair by name where both have it (changed), else stand
    alone."""
    la = {x.name: x.describe() for x in layouts_a}
    lb = {x.name: x.describe() for x in layouts_b}
    by_description: dict[str, str] = {}
    for name, description in lb.items():
        by_description.setdefault(description, name)
    partner: dict[str, str] = {}
    for name, description in la.items():
        other = by_description.get(description)
        if other is not None and other not in partner.values():
            partner[name] = other
    renumbered = sum(1 for a, b in partner.items() if a != b)
    head = "layouts (ttgir)" + (
        f": {renumbered} renumbered, the same layouts under other aliases" if renumbered else ""
    )
    out = ["", head]
    left_b = [name for name in lb if name not in partner.values()]
    for name, description in la.items():
        if name in partner:
            other = partner[name]
            label = name if other == name else f"{name} = {other}"
            out.append(f"  {label:12} {description}")
        elif name in left_b:
            left_b.remove(name)
            out.append(f"  {name:12} A: {description}")
            out.append(f"  {'':12} B: {lb[name]}")
        else:
            out.append(f"  {name:12} A: {description}")
            out.append(f"  {'':12} B: —")
    for name in left_b:
        out.append(f"  {name:12} A: —")
        out.append(f"  {'':12} B: {lb[name]}")
    return out


def _across_lines(d: VariantDiff) -> list[str]:
    """Each vendor's machine code per Python line: instructions, global accesses, matrix instructions."""
    across = d.across
    if across is None or not across.lines:
        return []
    a, b = across.stage_a.value, across.stage_b.value
    out = ["", f"across vendors, by Python line ({a} of A -> {b} of B: instructions; global accesses; matrix)"]
    for row in across.lines:
        out.append(f"  {row.line:4}  {row.source[:56]:56} {row.a:>5} -> {row.b:<5}")
        if row.access_a or row.access_b:
            out.append(f"{'':8}global: {', '.join(row.access_a) or 'none'} -> {', '.join(row.access_b) or 'none'}")
        if row.matrix_a or row.matrix_b:
            out.append(f"{'':8}matrix: {', '.join(row.matrix_a) or 'none'} -> {', '.join(row.matrix_b) or 'none'}")
    return out


def _across_sources_lines(d: VariantDiff) -> list[str]:
    """Two kernels of different files: each one's machine code per line of its own source, A's table above B's."""
    sources = d.across_sources
    if sources is None:
        return []
    out = ["", "by source line of each kernel (its machine code: instructions; global accesses; matrix)"]
    for label, side in (("A", sources.a), ("B", sources.b)):
        out.append(f"{label}: {side.frontend} {side.kernel} ({side.file}), {side.stage.value}: {side.instructions}")
        for row in side.lines:
            out.append(f"  {row.line:4}  {row.source[:60]:60} {row.instructions:>5}")
            if row.accesses:
                out.append(f"{'':8}global: {', '.join(row.accesses)}")
            if row.matrix:
                out.append(f"{'':8}matrix: {', '.join(row.matrix)}")
    return out


def _accesses(kinds: tuple[str, ...], masked: int) -> str:
    if not kinds:
        return "none"
    return ", ".join(kinds) + (f" ({masked} masked)" if masked else "")


def _shares(shares: dict[int, float]) -> str:
    return ", ".join(f"{w} B {100 * s:.0f}%" for w, s in shares.items()) or "—"


def _instructions_row(stage: Stage, sa: Any, sb: Any, width: int) -> str:
    """One stage's instruction counts, A and B: ``—`` where a side has no such stage (and which side has it),
    ``not counted`` where its dialect counts none (TIR, a generator's CUDA C++): neither is 0 instructions."""

    def cell(s: Any) -> str:
        return "—" if s is None else str(s.count) if counted(stage) else "not counted"

    x, y = (sa.count if sa else None), (sb.count if sb else None)
    note = "only in A" if sb is None else "only in B" if sa is None else _delta(x, y) if counted(stage) else ""
    return f"  {stage.value:{width}} {cell(sa):>12}  {cell(sb):>12}  {note}".rstrip()


def _fmt(value: Any, unit: str = "") -> str:
    return "—" if value is None else f"{value}{unit}"
