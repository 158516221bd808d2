"""Text in a session that HTML reads as markup stays text in `irscope report`'s page.

The session travels inside the page as JSON in a script element. Inside a script the
HTML parser still reads ``</script`` and ``<!--`` (after which the next ``</script>`` no
longer closes it, so the page's own script is swallowed and the page stays blank). Each
payload goes into a listing and a variant's note of a real session; headless Chromium
renders the page: the listing shows the payload verbatim, the variants table is there,
and the console is quiet. The control renders the same page with only ``</`` escaped,
as it was, and finds the table gone.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest
from test_report import SESSION, _render, needs_chromium

from irscope.session import Session

PAYLOADS = ["<!--<script>", "</script><script>alert(1)</script>", "<!--", "]]>", "<script>", "a\u2028b\u2029c & d"]


def report_of(tmp_path: Path, cli, payload: str) -> Path:
    copy = tmp_path / "s"
    shutil.copytree(SESSION, copy)
    entry = Session.open(copy).entries[0]
    ptx = copy / "variants" / entry.id / "ptx.ptx"
    ptx.write_text(f"// CANARY<{payload}>\n" + ptx.read_text())
    data = json.loads((copy / "session.json").read_text())
    data["variants"][1].update(status="failed", error=f"NOTE<{payload}>")
    (copy / "session.json").write_text(json.dumps(data))
    out = tmp_path / "r.html"
    result = cli("report", str(copy), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    return out


def rendered_as_text(dom: str, text: str) -> bool:
    # a listing's lines are split as Python splits them, at U+2028 and U+2029 too
    return all(html.escape(piece, quote=False) in dom for piece in re.split("[\u2028\u2029]", text))


@needs_chromium
@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_listing_and_a_note_holding_markup_render_verbatim_beside_the_variants_table(tmp_path, cli, payload):
    page = report_of(tmp_path, cli, payload)
    dom, console = _render(page, "#variant=0&stage=ptx")
    assert console == [], console
    assert 'data-ready="1"' in dom
    assert len(re.findall(r"<tr data-index=", dom)) == len(Session.open(SESSION).entries)
    assert rendered_as_text(dom, f"CANARY<{payload}>") and rendered_as_text(dom, f"NOTE<{payload}>")
    assert "alert(1)" not in dom.split("<body", 1)[0]


@needs_chromium
def test_control_escaping_only_the_closing_tag_blanks_the_page(tmp_path, cli):
    page = report_of(tmp_path, cli, "<!--<script>")
    head, data, tail = re.split(r'(?<=id="irscope-data">)(.*?)(?=</script>)', page.read_text(), maxsplit=1, flags=re.S)
    unescaped = json.dumps(json.loads(data), separators=(",", ":")).replace("</", "<\\/")
    as_before = tmp_path / "before.html"
    as_before.write_text(head + unescaped + tail)
    dom, _ = _render(as_before, "#variant=0&stage=ptx")
    assert 'data-ready="1"' not in dom and "<tr data-index=" not in dom


def test_the_embedded_data_holds_no_character_the_html_parser_reads_in_a_script(tmp_path, cli):
    page = report_of(tmp_path, cli, "<!--<script></script>]]>&\u2028")
    data = re.search(r'id="irscope-data">(.*?)</script>', page.read_text(), flags=re.S).group(1)
    assert not set(data) & set("<>&\u2028\u2029")
    assert "CANARY<<!--<script></script>]]>&\u2028>" in json.dumps(json.loads(data), ensure_ascii=False)
