"""A VariantDiff as text (summary, unified or side by side) and as JSON."""

from __future__ import annotations

import difflib
import re
from operator import attrgetter
from typing import Any

from ..types import Stage, Variant
from .core import Hunk, VariantDiff

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
    out.append("")
    out.append("instructions")
    for stage, (sa, sb) in d.stats.items():
        x, y = (sa.count if sa else None), (sb.count if sb else None)
        out.append(f"  {stage.value:16} {_fmt(x):>12}  {_fmt(y):>12}  {_delta(x, y)}")
    for stage in (Stage.PTX, Stage.SASS):
        sa, sb = d.stats.get(stage, (None, None))
        if sa is None or sb is None:
            continue
        out.append("")
        out.append(f"global memory ({stage.value})")
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
    sa, sb = d.stats.get(Stage.TTGIR, (None, None))
    if sa is not None and sb is not None and (sa.layouts or sb.layouts):
        out.append("")
        out.append("layouts (ttgir)")
        la = {x.name: x.describe() for x in sa.layouts}
        lb = {x.name: x.describe() for x in sb.layouts}
        for name in list(dict.fromkeys([*la, *lb])):
            if la.get(name) == lb.get(name):
                out.append(f"  {name:12} {la[name]}")
            else:
                out.append(f"  {name:12} A: {la.get(name, '—')}")
                out.append(f"  {'':12} B: {lb.get(name, '—')}")
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
    if d.by_line:
        out.append("")
        out.append(f"by Python line ({d.stage.value} instructions, A -> B; of them removed / added by the diff)")
        for change in d.by_line:
            mark = " " if change.a == change.b and not (change.removed or change.added) else "*"
            edits = f"-{change.removed} +{change.added}" if change.removed or change.added else ""
            out.append(
                f" {mark}{change.line:4}  {change.source[:56]:56} {change.a:>5} -> {change.b:<5} {edits}".rstrip()
            )
            if change.access_changed:
                out.append(
                    f"{'':8}global accesses: {_accesses(change.access_a, change.masked_a)} -> "
                    f"{_accesses(change.access_b, change.masked_b)}"
                )
    return out


def _accesses(kinds: tuple[str, ...], masked: int) -> str:
    if not kinds:
        return "none"
    return ", ".join(kinds) + (f" ({masked} masked)" if masked else "")


def _shares(shares: dict[int, float]) -> str:
    return ", ".join(f"{w} B {100 * s:.0f}%" for w, s in shares.items()) or "—"


def _fmt(value: Any, unit: str = "") -> str:
    return "—" if value is None else f"{value}{unit}"


TOKEN = re.compile(r"[^\s,;\[\]{}()]+")
Spans = dict[int, list[tuple[int, int]]]  # line -> (start, end) character ranges that changed


def changed_spans(left: str, right: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The tokens (opcode, operands) that differ between two aligned lines: their character ranges."""
    ta, tb = list(TOKEN.finditer(left)), list(TOKEN.finditer(right))
    out_a: list[tuple[int, int]] = []
    out_b: list[tuple[int, int]] = []
    if len(ta) == len(tb):  # the usual case, new operands: token k against token k
        for x, y in zip(ta, tb):
            if x[0] != y[0]:
                out_a.append(x.span())
                out_b.append(y.span())
        return out_a, out_b
    matcher = difflib.SequenceMatcher(None, [m[0] for m in ta], [m[0] for m in tb], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            out_a += [(m.start(), m.end()) for m in ta[i1:i2]]
            out_b += [(m.start(), m.end()) for m in tb[j1:j2]]
    return out_a, out_b


def _shifted(spans: list[tuple[int, int]], by: int) -> list[tuple[int, int]]:
    return [(x + by, y + by) for x, y in spans]


def unified_lines(d: VariantDiff, context: int = 3) -> list[str]:
    return unified(d, context, with_spans=False)[0]


def unified(d: VariantDiff, context: int = 3, with_spans: bool = True) -> tuple[list[str], Spans]:
    """The unified diff, and (``with_spans``) for each line replaced one for one, the tokens that changed in it."""
    mode = "raw" if d.raw else "normalised"
    return unified_hunks(
        d.hunks,
        f"A {variant_title(d.a)} ({d.stage.value}, {mode})",
        f"B {variant_title(d.b)} ({d.stage.value}, {mode})",
        context,
        with_spans,
    )


def unified_hunks(
    hunks: list[Hunk], title_a: str, title_b: str, context: int = 3, with_spans: bool = True
) -> tuple[list[str], Spans]:
    """``unified`` of any two listings' hunks (two passes' IR, say), under the titles given."""
    out = [f"--- {title_a}", f"+++ {title_b}"]
    spans: Spans = {}
    for group in context_groups(hunks, context):
        first_a = next((ln.index for h in group for ln in h.a), 0)
        first_b = next((ln.index for h in group for ln in h.b), 0)
        na, nb = sum(len(h.a) for h in group), sum(len(h.b) for h in group)
        out.append(f"@@ -{first_a + 1},{na} +{first_b + 1},{nb} @@")
        # (lines prefixed by C-level maps: a long listing's diff writes tens of thousands)
        for h in group:
            if h.tag == "equal":
                out.extend(map(" ".__add__, map(_TEXT, h.a)))
            elif h.tag == "moved":  # the same lines elsewhere on the other side
                out.extend(map("<{}    (moved)".format, map(_TEXT, h.a)))
                out.extend(map(">{}    (moved)".format, map(_TEXT, h.b)))
            else:
                if with_spans and h.tag == "replace" and len(h.a) == len(h.b):  # line k against line k
                    for k, (x, y) in enumerate(zip(h.a, h.b)):
                        sa, sb = changed_spans(x.text, y.text)
                        spans[len(out) + k] = _shifted(sa, 1)
                        spans[len(out) + len(h.a) + k] = _shifted(sb, 1)
                out.extend(map("-".__add__, map(_TEXT, h.a)))
                out.extend(map("+".__add__, map(_TEXT, h.b)))
    return out, spans


_TEXT = attrgetter("text")


def side_by_side_lines(d: VariantDiff, width: int = 160, context: int = 3) -> list[str]:
    return side_by_side(d, width, context)[0]


def side_by_side(d: VariantDiff, width: int = 160, context: int = 3) -> tuple[list[str], Spans]:
    """A and B in two columns, each line across from its aligned partner, and the changed tokens of each pair."""
    col = max(20, (width - 3) // 2)
    out = [f"{('A ' + variant_title(d.a))[:col]:{col}} | {('B ' + variant_title(d.b))[:col]}"]
    spans: Spans = {}
    for group in context_groups(d.hunks, context):
        out.append("-" * col + "-+-" + "-" * col)
        for h in group:
            if h.tag == "equal":
                for x in h.a:
                    out.append(f"{x.text[:col]:{col}}   {x.text[:col]}")
                continue
            for i in range(max(len(h.a), len(h.b))):
                left = h.a[i].text if i < len(h.a) else ""
                right = h.b[i].text if i < len(h.b) else ""
                mark = "m" if h.tag == "moved" else "|" if left and right else ("<" if left else ">")
                if mark == "|":
                    sa, sb = changed_spans(left[:col], right[:col])
                    spans[len(out)] = sa + _shifted(sb, col + 3)
                out.append(f"{left[:col]:{col}} {mark} {right[:col]}")
    return out, spans


def context_groups(hunks: list[Hunk], context: int) -> list[list[Hunk]]:
    """Changed hunks with up to ``context`` equal lines around them, merged when they touch
    (the grouping ``difflib.SequenceMatcher.get_grouped_opcodes`` makes, on our hunks)."""
    if not any(h.tag != "equal" for h in hunks):
        return []
    hunks = list(hunks)
    if hunks[0].tag == "equal":
        hunks[0] = Hunk("equal", hunks[0].a[-context:], hunks[0].b[-context:])
    if hunks[-1].tag == "equal":
        hunks[-1] = Hunk("equal", hunks[-1].a[:context], hunks[-1].b[:context])
    groups: list[list[Hunk]] = []
    group: list[Hunk] = []
    for h in hunks:
        if h.tag == "equal" and len(h.a) > 2 * context:
            group.append(Hunk("equal", h.a[:context], h.b[:context]))
            groups.append(group)
            group = [Hunk("equal", h.a[-context:], h.b[-context:])]
        else:
            group.append(h)
    if group and not (len(group) == 1 and group[0].tag == "equal"):
        groups.append(group)
    return [g for g in groups if any(h.tag != "equal" for h in g)]


def to_json(d: VariantDiff) -> dict[str, Any]:
    def side(v: Variant) -> dict[str, Any]:
        return {
            "kernel": v.kernel.name,
            "config": v.config.to_json(),
            "arch": v.arch,
            "signature": signature(v),
            "resources": None if v.resources is None else dict(vars(v.resources)),
        }

    stats = {}
    for stage, (sa, sb) in d.stats.items():
        stats[stage.value] = {
            "instructions": [sa.count if sa else None, sb.count if sb else None],
            "opcodes": [dict(sa.opcode_counts()) if sa else None, dict(sb.opcode_counts()) if sb else None],
            "global_loads": [
                dict(sa.access_counts("load")) if sa else None,
                dict(sb.access_counts("load")) if sb else None,
            ],
            "global_stores": [
                dict(sa.access_counts("store")) if sa else None,
                dict(sb.access_counts("store")) if sb else None,
            ],
            "predicated_global_accesses": [
                sa.predicated_accesses() if sa else None,
                sb.predicated_accesses() if sb else None,
            ],
            "layouts": [[vars(x) for x in sa.layouts] if sa else None, [vars(x) for x in sb.layouts] if sb else None],
        }
    removed, added = d.counts()
    return {
        "a": side(d.a),
        "b": side(d.b),
        "stage": d.stage.value,
        "normalised": not d.raw,
        "changed": d.changed,
        "removed": removed,
        "added": added,
        "changed_instructions": d.changed_instructions(),
        "moved": sum(len(h.a) for h in d.hunks if h.tag == "moved"),
        "runtimes_us": [None if r is None else r.median_us for r in d.runtimes],
        "stats": stats,
        "by_python_line": [vars(c) for c in d.by_line],
        "hunks": [
            {"tag": h.tag, "a": [[x.index + 1, x.text] for x in h.a], "b": [[x.index + 1, x.text] for x in h.b]}
            for h in d.hunks
            if h.tag != "equal"
        ],
    }
