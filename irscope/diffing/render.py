"""A VariantDiff as text (summary, unified or side by side) and as JSON."""

from __future__ import annotations

import difflib
import re
from operator import attrgetter
from typing import Any

from ..ir.dialects import counted
from ..types import Variant
from .core import Hunk, VariantDiff
from .summary import signature, variant_title

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
            # null where a side has no such stage, or its dialect counts none (TIR): not 0
            "instructions": [sa.count if sa and counted(stage) else None, sb.count if sb and counted(stage) else None],
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
    across = d.across
    across_json = None
    if across is not None:
        across_json = {
            "stages": [across.stage_a.value, across.stage_b.value],
            "lines": [vars(row) for row in across.lines],
        }
    sources = d.across_sources
    return {
        "across_vendors": across_json,
        "across_sources": None
        if sources is None
        else [
            {
                "frontend": side.frontend,
                "kernel": side.kernel,
                "file": side.file,
                "stage": side.stage.value,
                "lines": [vars(row) for row in side.lines],
            }
            for side in (sources.a, sources.b)
        ],
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
