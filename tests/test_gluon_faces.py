"""A Gluon session through each face: annotate, the report, the notebook API and the TUI (sweep and diff are
test_gluon.py's). The session is examples/gluon_add.py swept over two layouts, as docs/gluon.md does it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from gluon_kernels import ADD_SIGNATURE, BLOCKED_1D, BLOCKED_1D_WIDE, EXAMPLE

pytest.importorskip("triton.experimental.gluon", reason="needs a Triton with Gluon")

from irscope.types import Stage

LOAD_LINE = next(i + 1 for i, t in enumerate(EXAMPLE.read_text().splitlines()) if "x = gl.load(x_ptr + offs" in t)


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    from click.testing import CliRunner

    from irscope.cli import main

    out = tmp_path_factory.mktemp("gluon_faces") / "add"
    two = f"layout={BLOCKED_1D},{BLOCKED_1D_WIDE}"
    args = ["sweep", f"{EXAMPLE}:gluon_add", "-S", ADD_SIGNATURE, "-c", "BLOCK=1024", "-s", two, "-o", str(out)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out


def test_annotate_explains_a_gluon_kernels_ptx_by_its_python_lines(cli):
    result = cli(
        "annotate", f"{EXAMPLE}:gluon_add", "-S", ADD_SIGNATURE, "-c", "BLOCK=1024", "-c", f"layout={BLOCKED_1D_WIDE}"
    )
    assert result.exit_code == 0, result.output
    assert "ld.global" in result.stdout and "x = gl.load(x_ptr + offs, mask=mask)" in result.stdout
    assert f"gluon_add.py:{LOAD_LINE}" in result.stdout or f":{LOAD_LINE}" in result.stdout


def test_the_report_of_a_gluon_session_holds_its_gluon_ir(cli, session, tmp_path):
    page = tmp_path / "report.html"
    result = cli("report", str(session), "-o", str(page))
    assert result.exit_code == 0, result.output
    html = page.read_text()
    # each variant's listings are JSON in the page, "<" escaped as \u003c: the Gluon IR's layouts as written
    assert '"stages":["gluon","ttgir","llir","ptx","sass"]' in html
    assert '"gluon":"#blocked = #ttg.blocked\\u003c{sizePerThread = [8]' in html
    assert '"gluon":"#blocked = #ttg.blocked\\u003c{sizePerThread = [4]' in html


def test_the_notebook_api_opens_a_gluon_session_and_draws_it(session):
    import irscope

    opened = irscope.open(session)
    variants = [opened.variant(e) for e in opened.entries]
    assert opened.frontend == "gluon" and all(v.frontend == "gluon" for v in variants)
    assert {v.config.constexprs["layout"] for v in variants} == {BLOCKED_1D, BLOCKED_1D_WIDE}
    page = irscope.html(variants[0])
    assert '"stages":["gluon","ttgir","llir","ptx","sass"]' in page  # a tab for each, the Gluon IR first
    assert '"gluon":"#blocked = #ttg.blocked\\u003c{sizePerThread' in page


def test_the_tui_shows_a_gluon_sessions_gluon_ir_tab(session):
    from irscope.tui.factory import make_app

    async def drive() -> None:
        app = make_app(str(session))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            keys = [k for k, _ in app.stage_tabs]
            assert "gluon" in keys and "ttir" not in keys
            await pilot.press(str(keys.index("gluon") + 1))
            for _ in range(100):
                await pilot.pause()
                listing: Any = app.query_one("#listing")  # the stage listing widget
                if listing.stage is Stage.GLUON and listing.lines:
                    break
            assert listing.stage is Stage.GLUON
            assert any("#ttg.blocked" in line for line in listing.lines)

    asyncio.run(drive())
