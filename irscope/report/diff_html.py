"""A VariantDiff as HTML: its summary, then side by side (each line across from its aligned partner)
and unified, the tokens that changed in a line replaced one for one marked in both; everything escaped.

The page's script switches between the two views; without it the side-by-side view shows.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from ..diffing import VariantDiff
from ..diffing.render import changed_spans, context_groups, unified
from ..diffing.summary import summary_lines
from ..types import plural

CONTEXT = 3  # equal lines shown around each change, as `irscope diff` shows them
ROW_CLASS = {"delete": "del", "insert": "add", "replace": "chg-line", "moved": "mov"}
UNIFIED_CLASS = {"-": "del", "+": "add", "<": "mov", ">": "mov"}


def marked(line: str, spans: Iterable[tuple[int, int]]) -> str:
    """``line`` escaped, with the character ranges ``spans`` wrapped as changed tokens."""
    out, last = [], 0
    for start, end in sorted(spans):
        out.append(html.escape(line[last:start]))
        out.append(f'<span class="chg">{html.escape(line[start:end])}</span>')
        last = end
    out.append(html.escape(line[last:]))
    return "".join(out)


def _cells(number: int | None, body: str, kind: str) -> str:
    n = "" if number is None else str(number)
    return f'<td class="n">{n}</td><td class="{kind}">{body}</td>'


def side_by_side_rows(d: VariantDiff) -> list[str]:
    rows = []
    for group in context_groups(d.hunks, CONTEXT):
        rows.append('<tr class="gap"><td colspan="4">⋯</td></tr>')
        for h in group:
            if h.tag == "equal":
                for x, y in zip(h.a, h.b):
                    rows.append(
                        f"<tr>{_cells(x.index + 1, html.escape(x.text), '')}{_cells(y.index + 1, html.escape(y.text), '')}</tr>"
                    )
                continue
            kind = ROW_CLASS.get(h.tag, "")
            for i in range(max(len(h.a), len(h.b))):
                a = h.a[i] if i < len(h.a) else None
                b = h.b[i] if i < len(h.b) else None
                spans_a: list[tuple[int, int]] = []
                spans_b: list[tuple[int, int]] = []
                if a is not None and b is not None and h.tag != "moved":
                    spans_a, spans_b = changed_spans(a.text, b.text)
                left = (
                    _cells(a.index + 1, marked(a.text, spans_a), "del" if kind == "chg-line" else kind)
                    if a
                    else _cells(None, "", "none")
                )
                right = (
                    _cells(b.index + 1, marked(b.text, spans_b), "add" if kind == "chg-line" else kind)
                    if b
                    else _cells(None, "", "none")
                )
                rows.append(f"<tr>{left}{right}</tr>")
    return rows


def unified_lines(d: VariantDiff) -> list[str]:
    lines, spans = unified(d, CONTEXT)
    out = []
    for n, line in enumerate(lines):
        kind = UNIFIED_CLASS.get(line[:1], "")
        body = marked(line, spans.get(n, []))
        out.append(f'<span class="{kind}">{body}</span>' if kind else body)
    return out


def diff_section(d: VariantDiff) -> str:
    """The diff's section: title, counts, the two views, then the summary."""
    removed, added = d.counts()
    title = html.escape(f"{d.a.config.label()}  vs  {d.b.config.label()} · {d.stage.value}")
    counts = html.escape(
        f"{plural(removed, 'line')} removed, {added} added, {plural(d.changed_instructions(), 'instruction')} changed"
        + ("" if d.raw else " (normalised: register names and labels renamed alike)")
    )
    summary = html.escape("\n".join(summary_lines(d)))
    a_title = html.escape(f"A  {d.a.config.label()} · {d.a.arch}")
    b_title = html.escape(f"B  {d.b.config.label()} · {d.b.arch}")
    side = "".join(side_by_side_rows(d)) or '<tr><td colspan="4">no changes</td></tr>'
    return (
        f'<section class="diff-section"><h2>Diff: {title}</h2><p class="counts">{counts}</p>'
        '<div class="diff-views" data-view="side"><div class="stages diff-toggle">'
        '<button data-view="side" class="active">side by side</button><button data-view="unified">unified</button></div>'
        '<div class="diff-side"><table class="diff-side"><colgroup><col class="n"><col><col class="n"><col></colgroup>'
        f'<thead><tr><th colspan="2">{a_title}</th>'
        f'<th colspan="2">{b_title}</th></tr></thead><tbody>{side}</tbody></table></div>'
        f'<pre class="diff diff-unified">{chr(10).join(unified_lines(d))}</pre></div>'
        f'<pre class="diff summary">{summary}</pre></section>'
    )
