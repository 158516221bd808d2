"""irscope report (issue 18): one self-contained HTML file, checked in a real headless Chromium.

The table, a stage and a diff must render with no console errors; nothing is fetched; no text of a
listing can become markup or code in the reader's browser.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from irscope.session import Session

SESSION = Path(__file__).resolve().parent.parent / "samples" / "sessions" / "square_kernel"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian: apt-get install chromium)")


def _render(page: Path, fragment: str = "") -> tuple[str, list[str]]:
    """The DOM after the page's script ran, and every console message, from headless Chromium."""
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            f"{page.as_uri()}{fragment}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return proc.stdout, console


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    from click.testing import CliRunner

    from irscope.cli import main

    out = tmp_path_factory.mktemp("report") / "square.html"
    result = CliRunner().invoke(
        main,
        [
            "report",
            str(SESSION),
            "-o",
            str(out),
            "--diff-stage",
            "sass",
            "--diff",
            "BLOCK_SIZE=128,num_warps=4",
            "BLOCK_SIZE=1024,num_warps=4",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return out


def test_the_page_fetches_nothing(page):
    text = page.read_text()
    assert not re.search(r"<script[^>]+src=|<link\b|<img\b|@import|url\(", text)
    assert not re.search(r"\b(?:src|href)=\"https?:", text)
    assert text.count("<script") == 2  # the data and the code, both inline


@needs_chromium
def test_table_stage_and_diff_render_in_chromium_without_console_errors(page):
    session = Session.open(SESSION)
    variant = session.variant(session.entries[1])
    dom, console = _render(page, "#variant=1&stage=ptx")
    assert console == [], console
    assert 'data-ready="1"' in dom
    assert len(re.findall(r"<tr data-index=", dom)) == len(session.entries)
    # the stage: one line element per PTX line (the source pane adds the Python lines), highlighted
    lines = len(variant.listings["ptx"].splitlines()) + len(session.source().splitlines())
    assert len(re.findall(r'<div data-line="\d+"', dom)) == lines
    assert dom.count('class="k-op"') > 50 and dom.count('class="k-reg"') > 50
    assert re.search(r'id="stage-title">[^<]*BLOCK_SIZE=\d+[^<]*· PTX', dom)
    # each line knows its Python line: the tl.load's PTX lines point at line 23
    assert re.search(r'<div data-line="\d+" data-py="23">', dom)
    # the diff, rendered in the page: removed and added lines, changed tokens marked
    assert "Diff: BLOCK_SIZE=128" in dom and dom.count('class="del"') > 5 and dom.count('class="add"') > 5
    # the runtime chart: one bar per measured variant
    assert dom.count("<rect") == sum(
        e.measurement is not None and e.measurement.median_us is not None for e in session.entries
    )


@needs_chromium
def test_a_listing_cannot_inject_markup_or_code(tmp_path, cli):
    copy = tmp_path / "s"
    shutil.copytree(SESSION, copy)
    ptx = copy / "variants" / Session.open(copy).entries[0].id / "ptx.ptx"
    hostile = "// </script><script>document.title='pwned'</script><img src=x onerror=alert(1)>\n"
    ptx.write_text(hostile + ptx.read_text())
    out = tmp_path / "r.html"
    assert cli("report", str(copy), "-o", str(out)).exit_code == 0
    assert "</script><script>document.title" not in out.read_text()
    dom, console = _render(out, "#variant=0&stage=ptx")
    assert console == [] and "pwned" not in dom.split("<body", 1)[0]
    assert "&lt;/script&gt;&lt;script&gt;document.title='pwned'" in dom and '<img src="x"' not in dom


def test_bad_input_one_line(cli, tmp_path):
    from expect import one_line_error

    one_line_error(cli("report", str(tmp_path), "-o", str(tmp_path / "r.html")), 5, "not an irscope session")
    one_line_error(
        cli("report", str(SESSION), "-o", str(tmp_path / "r.html"), "--diff", "BLOCK_SIZE=7", "BLOCK_SIZE=128"),
        2,
        "no variant",
    )
