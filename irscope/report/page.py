"""The one page every report and notebook display is: a header, the parts asked for, the data, the script.

Nothing is fetched when it opens: the script, the styles and the data are inside the file. The data is
JSON in a ``<script type="application/json">`` element, with ``<``, ``>`` and ``&`` written as
``\\u003c``-style escapes, so no text of a listing can close it or, as ``<!--<script>`` does, change how
the browser reads the rest of the page; the script puts listings into the document as text
(``textContent``), never as markup. Parts rendered here (diffs, a run's kernels) are escaped here.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

# Inside <script> the HTML parser still reads "</script" and "<!--" (which hides the next "</script>");
# JSON's \u escapes spell the same strings with no such characters. U+2028/2029 end a line in older JS.
_SCRIPT_SAFE = {ord(c): f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"}


@dataclass(frozen=True)
class Parts:
    """Which of the script's parts the page holds (the script draws those whose elements it finds)."""

    table: bool = False  # the variants table, a row per variant; clicking one shows its stages
    chart: bool = False  # the runtime chart
    stages: bool = False  # the selected variant's stages in tabs beside the Python source, linked both ways
    findings: bool = False  # the selected variant's findings (or the page's own), each citing its lines


def _asset(name: str) -> str:
    return (resources.files("irscope.report") / "assets" / name).read_text(encoding="utf-8")


def script_json(data: Any) -> str:
    return json.dumps(data, separators=(",", ":")).translate(_SCRIPT_SAFE)


def render_page(title: str, about: str, data: Any, parts: Parts, before: str = "", after: str = "") -> str:
    """The page's HTML text; ``title`` and ``about`` are plain text, ``before``/``after`` HTML already escaped."""
    sections = [before]
    if parts.table:
        sections.append('<section><h2>Variants</h2><table class="variants" id="variants"></table></section>')
    if parts.chart:
        sections.append('<section class="chart"><h2>Runtime</h2><div id="chart"></div></section>')
    if parts.stages:
        sections.append(
            '<section><h2 id="stage-title"></h2><div class="stages" id="stage-buttons"></div>'
            '<div class="panes"><div class="listing" id="listing"></div><div class="listing" id="source"></div></div>'
            '<p class="note">Click a line: its Python line lights up in the source, and every line of the stage '
            "that came from it.</p></section>"
        )
    if parts.findings:
        sections.append(
            '<section class="findings"><h2 id="findings-title">Findings</h2><div id="findings"></div></section>'
        )
    sections.append(after)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{_asset("report.css")}</style></head>
<body>
<header><h1>{html.escape(title)}</h1><p>{html.escape(about)}</p></header>
<main>
{"".join(sections)}
</main>
<script type="application/json" id="irscope-data">{script_json(data)}</script>
<script>{_asset("report.js")}</script>
</body></html>
"""
