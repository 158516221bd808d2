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
            str(CHROMIUM),
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


# ---------------------------------------------------------------- the notebook's display, and a run's report

SCALE_ROWS = """\
import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * alpha, mask=mask)
"""


@pytest.fixture(scope="module")
def scale_variants(tmp_path_factory):
    """Two real captures of a kernel written for these tests: BLOCK 256 and 1024, for sm_90, in process."""
    from irscope.capturing import capture
    from irscope.frontends import resolve_kernel

    folder = tmp_path_factory.mktemp("scale")
    (folder / "scale.py").write_text(SCALE_ROWS)
    kernel = resolve_kernel(f"{folder / 'scale.py'}:scale_rows", "*fp32:16, *fp32:16, i32, fp32")
    small = capture(kernel, {"BLOCK": 256}, "sm_90", compile_timeout=None)
    large = capture(kernel, {"BLOCK": 1024}, "sm_90", compile_timeout=None)
    assert small.ok and large.ok, (small.error, large.error)
    return small, large


def png_pixels(data: bytes, rows: int | None = None) -> tuple[int, int, set[bytes]]:
    """Width, height and the distinct pixel values of an 8-bit RGB or RGBA PNG (of its first ``rows`` rows):
    the chunks read, IDAT inflated with zlib, each row's filter undone (PNG spec, section 9)."""
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert header is not None
    width, height, depth, colour = header[:4]
    assert depth == 8 and colour in (2, 6), header
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * bpp
    previous, pixels = bytearray(stride), set[bytes]()
    for y in range(min(height, rows or height)):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, corner = previous[i], previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        pixels.update(bytes(line[i : i + bpp]) for i in range(0, stride, bpp * 7))  # every 7th pixel
        previous = line
    return width, height, pixels


def _screenshot(page: Path, png: Path, fragment: str = "") -> bytes:
    proc = subprocess.run(
        [
            str(CHROMIUM),
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--screenshot={png}",
            "--window-size=1400,900",
            page.as_uri() + fragment,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert png.is_file(), proc.stderr
    return png.read_bytes()


@needs_chromium
def test_a_variant_and_a_diff_as_the_notebook_shows_them_make_real_pictures(tmp_path, scale_variants):
    """The README's pictures: the page display.html frames, for a variant and a diff, in headless Chromium.
    IRSCOPE_WRITE_PICTURES=1 writes them to docs/images/."""
    import os

    from irscope.diffing import diff_variants
    from irscope.report import display

    small, large = scale_variants
    # the variant with the kernel's tl.load line chosen (#py=N), as a click on it shows it
    load_line = 1 + next(i for i, text in enumerate(small.listings["source"].splitlines()) if "tl.load" in text)
    shown = (("notebook-variant", small, f"#py={load_line}"), ("notebook-diff", diff_variants(small, large), ""))
    for name, obj, fragment in shown:
        page = tmp_path / f"{name}.html"
        page.write_text(display.page(obj))
        data = _screenshot(page, tmp_path / f"{name}.png", fragment)
        width, height, pixels = png_pixels(data, rows=300)
        assert (width, height) == (1400, 900)
        assert len(pixels) > 20, f"{name}: {len(pixels)} colours: a blank page?"
        assert 10_000 < len(data) < 300_000
        if os.environ.get("IRSCOPE_WRITE_PICTURES") == "1":
            out = Path(__file__).resolve().parent.parent / "docs" / "images" / f"{name}.png"
            out.parent.mkdir(exist_ok=True)
            out.write_bytes(data)


RUN_PROGRAM = """\
import triton
import triton.language as tl
import torch

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def shift_kernel(src, dst, n, offset, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask) + offset, mask=mask)


n = 4096
a = torch.rand(n, device=DEVICE)
b = torch.empty_like(a)
shift_kernel[(triton.cdiv(n, 256),)](a, b, n, 0.5, BLOCK=256)
"""


def _trace_event(name, dur, **args):
    return {"ph": "X", "cat": "kernel", "name": name, "ts": 10.0, "dur": dur, "args": {"grid": [16, 1, 1], **args}}


@needs_chromium
def test_a_run_folder_reports_its_kernels_linked_to_their_sessions_and_its_trace(tmp_path, run_irscope):
    """A real `irscope run` (no GPU: compiled ahead of time, so no profile), given the trace.json a GPU run
    keeps beside run.json: its kernel events name their session as timeline.py writes them."""
    import json
    import sys

    from irscope.interop.run.timeline import SESSION_ARG, VARIANT_ARG

    (tmp_path / "prog.py").write_text(RUN_PROGRAM)
    ran = run_irscope("run", "-o", "out", "--", sys.executable, "prog.py", cwd=tmp_path, env={"IRSCOPE_NO_GPU": "1"})
    assert ran.returncode == 0, ran.stderr
    run = tmp_path / "out"
    session = json.loads((run / "run.json").read_text())["kernels"][0]["session"]
    assert session == "kernels/shift_kernel"
    events = [
        _trace_event("shift_kernel", 2.5, **{SESSION_ARG: session, VARIANT_ARG: "x"}),
        _trace_event("shift_kernel", 3.25, **{SESSION_ARG: session}),
        _trace_event("void at::native::elementwise_kernel", 40.0),  # torch's own: not the kernel's
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 1, "dur": 99, "args": {SESSION_ARG: session}},
    ]
    (run / "trace.json").write_text(json.dumps({"traceEvents": events}))
    out = tmp_path / "site" / "run.html"
    out.parent.mkdir()
    reported = run_irscope("report", str(run), "-o", str(out), cwd=tmp_path)
    assert reported.returncode == 0, reported.stderr
    text = out.read_text()
    assert 'href="../out/trace.json"' in text and "https://ui.perfetto.dev" in text
    # the kernel's row: its link to its session's part, 2 trace events summing 5.75 us
    row = re.search(r'<tr><td class="text"><a href="#kernel=0">shift_kernel</a></td>(.*?)</tr>', text)
    assert row is not None, text[:3000]
    cells = re.findall(r"<td>([^<]*)</td>", row.group(1))
    assert cells[3:5] == ["2", "5.75"], cells
    dom, console = _render(out, "#kernel=0&stage=ptx")
    assert console == [], console
    assert 'data-ready="1"' in dom
    assert re.search(r'id="session-title"[^>]*>shift_kernel<', dom)
    assert len(re.findall(r"<tr data-index=", dom)) == len(Session.open(run / session).entries)
    assert re.search(r'<div data-line="\d+" data-py="\d+">', dom)  # the stage is there, mapped to its source


@needs_chromium
def test_the_report_shows_the_selected_variants_findings_each_citing_its_ptx_lines(page):
    from irscope.annotating import annotate

    session = Session.open(SESSION)
    found = annotate(session.variant(session.entries[1])).findings
    assert found
    dom, console = _render(page, "#variant=1&stage=ptx")
    assert console == [], console
    assert dom.count('class="finding ') == len(found)
    for f in found:
        assert html_text(f.title) in dom
    cited = [f for f in found if f.lines]
    assert cited and dom.count('<p class="cites">') == len(cited)
    first = cited[0]
    assert f"<button>{first.lines[0] + 1}</button>" in dom


def html_text(text: str) -> str:
    import html

    return html.escape(text, quote=False)
