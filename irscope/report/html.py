"""A session as one self-contained HTML file: the variants table, the runtime chart, every stage of every
variant (highlighted in the page, each line linked to its Python line) and the diffs asked for.

Nothing is fetched when it opens: the script, the styles and the session's data are inside the file.
The data is JSON in a ``<script type="application/json">`` element, with ``<``, ``>`` and ``&`` written as
``\\u003c``-style escapes, so no text of a listing can close it or, as ``<!--<script>`` does, change how
the browser reads the rest of the page; the page puts listings into the document as text (``textContent``), never
as markup, so a listing cannot run code in the reader's browser. Diffs are rendered here, escaped.
Paths are shown as shared_paths.py writes them (relative to the kernel's folder) unless kept absolute.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..ir.sourcemap import SourceMap
from ..session import Session
from ..session.table import FACT_COLUMNS, RUNTIME_COLUMNS, cell, note, text, varying
from ..types import Stage, Variant
from .shared_paths import SharedPaths

STAGES = (Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX, Stage.SASS)


@dataclass(frozen=True)
class DiffRequest:
    a: str  # entry ids
    b: str
    stage: Stage = Stage.PTX


def build(
    session: Session, diffs: Sequence[DiffRequest] = (), sample_gpu: str | None = None, absolute_paths: bool = False
) -> str:
    """The report's HTML text; ``absolute_paths``: keep the author's paths as the compilers wrote them."""
    paths = SharedPaths(session.kernel.file, keep=absolute_paths)
    entries = list(session.entries)
    names = varying(entries)
    columns = [{"title": n, "numeric": True} for n in names]
    columns += [{"title": c.title, "numeric": c.numeric} for c in FACT_COLUMNS + RUNTIME_COLUMNS]
    columns.append({"title": "note", "numeric": False})
    variants, runtime_sources = [], set()
    for entry in entries:
        measurement = entry.measurement or _sample(session, entry, sample_gpu)
        if entry.measurement is None and measurement is not None:
            entry = _with(entry, measurement)
        if measurement is not None and measurement.median_us is not None:
            runtime_sources.add(measurement.source or "measured")
        cells = [text(entry.value(n)) for n in names]
        cells += [text(cell(entry, c.key)) for c in FACT_COLUMNS + RUNTIME_COLUMNS]
        cells.append(note(entry))
        variants.append(
            {
                "id": entry.id,
                "label": entry.config.label(),
                "status": entry.status.value,
                "cells": cells,
                "median_us": cell(entry, "median_us"),
                **_listings(session, entry),
            }
        )
    data = {
        "kernel": session.kernel.name,
        "source": session.source(),
        "stages": [s.value for s in STAGES],
        "columns": columns,
        "variants": variants,
        "runtime_note": ("Median kernel time per variant; " + "; ".join(sorted(runtime_sources)))
        if runtime_sources
        else "",
    }
    return _page(session, paths.data(data), [_diff_html(session, d, paths) for d in diffs], paths)


def _sample(session: Session, entry, gpu: str | None):
    from ..measure.samples import sample_measurement

    try:
        return sample_measurement(session.kernel, entry.config, entry.arch, gpu)
    except Exception:
        return None


def _with(entry, measurement):
    from dataclasses import replace

    return replace(entry, measurement=measurement)


def _listings(session: Session, entry) -> dict[str, Any]:
    """Each stage's text and its lines' Python lines, run-length coded ([[line or 0, count], ...])."""
    try:
        variant = session.variant(entry, partial=True)
    except Exception as exc:
        return {"listings": {}, "own": {}, "errors": {s.value: str(exc) for s in STAGES}}
    smap = SourceMap(variant)
    listings, own, errors = {}, {}, {}
    for stage in STAGES:
        if stage not in variant.listings:
            errors[stage.value] = variant.stage_errors.get(stage) or (str(variant.error) if variant.error else "")
            continue
        listings[stage.value] = variant.listings[stage]
        own[stage.value] = _runs(smap.own_lines(stage))
    return {"listings": listings, "own": own, "errors": errors}


def _runs(lines: list[int | None]) -> list[list[int]]:
    out: list[list[int]] = []
    for line in lines:
        value = line or 0
        if out and out[-1][0] == value:
            out[-1][1] += 1
        else:
            out.append([value, 1])
    return out


def _diff_html(session: Session, request: DiffRequest, paths: SharedPaths) -> str:
    from ..diffing import diff_variants
    from ..diffing.render import unified
    from ..diffing.summary import summary_lines

    a, b = paths.variant(_variant(session, request.a)), paths.variant(_variant(session, request.b))
    d = diff_variants(a, b, request.stage)
    lines, spans = unified(d)
    out = []
    for n, line in enumerate(lines):
        kind = {"-": "del", "+": "add", "<": "mov", ">": "mov"}.get(line[:1], "")
        body, last = [], 0
        for start, end in sorted(spans.get(n, [])):
            body.append(html.escape(line[last:start]))
            body.append(f'<span class="chg">{html.escape(line[start:end])}</span>')
            last = end
        body.append(html.escape(line[last:]))
        out.append(f'<span class="{kind}">{"".join(body)}</span>' if kind else "".join(body))
    title = html.escape(f"{a.config.label()}  vs  {b.config.label()} · {request.stage.value}")
    summary = html.escape("\n".join(summary_lines(d)))
    return (
        f'<section class="diff-section"><h2>Diff: {title}</h2><pre class="diff summary">{summary}</pre>'
        f'<pre class="diff">{chr(10).join(out)}</pre></section>'
    )


def _variant(session: Session, entry_id: str) -> Variant:
    entry = session.entry(entry_id)
    if entry is None:
        from ..errors import UsageError

        raise UsageError(f"session {session.path} has no variant {entry_id}")
    return session.variant(entry)


# Inside <script> the HTML parser still reads "</script" and "<!--" (which hides the next "</script>");
# JSON's \u escapes spell the same strings with no such characters. U+2028/2029 end a line in older JS.
_SCRIPT_SAFE = {ord(c): f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"}


def _asset(name: str) -> str:
    return (resources.files("irscope.report") / "assets" / name).read_text(encoding="utf-8")


def _page(session: Session, data: dict[str, Any], diffs: list[str], paths: SharedPaths) -> str:
    payload = json.dumps(data, separators=(",", ":")).translate(_SCRIPT_SAFE)
    title = html.escape(f"irscope · {session.kernel.name} · {len(data['variants'])} variants")
    kernel = html.escape(f"{session.kernel.name} ({paths(session.kernel.file)})")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{_asset("report.css")}</style></head>
<body>
<header><h1>{title}</h1><p>{kernel} · written by irscope from the session {html.escape(session.path.name)}</p></header>
<main>
<section><h2>Variants</h2><table class="variants" id="variants"></table></section>
<section class="chart"><h2>Runtime</h2><div id="chart"></div></section>
<section><h2 id="stage-title"></h2><div class="stages" id="stage-buttons"></div>
<div class="panes"><div class="listing" id="listing"></div><div class="listing" id="source"></div></div>
<p class="note">Click a line: its Python line lights up in the source, and every line of the stage that came from it.</p>
</section>
{"".join(diffs)}
</main>
<script type="application/json" id="irscope-data">{payload}</script>
<script>{_asset("report.js")}</script>
</body></html>
"""
