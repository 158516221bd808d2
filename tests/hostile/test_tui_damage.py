"""The TUI on a damaged session: the damaged row says so and why, every other row stays usable.

A real session (square_kernel, three block sizes, compiled by Triton) is damaged in
one variant, opened with Textual's pilot, and used: the damaged row, every stage,
a healthy row, a diff, the chart. The app must keep running and leave the session's
bytes as they were. A bug in the TUI itself (not damaged data) must end the real
`irscope tui` with a non-zero exit and one line on stderr, the traceback only under
--debug.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_tui import settle

from irscope.errors import ExitCode, SessionError
from irscope.session import Session
from irscope.tui.factory import make_app
from irscope.tui.screens.diff import DiffScreen
from irscope.types import Stage

from .damage import fingerprint, record

REPO = Path(__file__).resolve().parents[2]
HEADLESS = {"TEXTUAL_DRIVER": "textual.drivers.headless_driver:HeadlessDriver", "COLUMNS": "120", "LINES": "36"}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A session of three variants, swept once for the module."""
    return record(
        tmp_path_factory.mktemp("recorded") / "session",
        "square_kernel",
        "-s",
        "BLOCK_SIZE=128,256,512",
        "--arch",
        "sm_90",
    )


@pytest.fixture
def session(recorded, tmp_path):
    copy = tmp_path / "session"
    shutil.copytree(recorded, copy, symlinks=True)
    return copy


def _first_variant(session: Path) -> Path:
    """The folder of the variant the TUI shows first (row 0)."""
    return session / "variants" / Session.open(session).entries[0].id


def _rewrite_json(path: Path, **changes) -> None:
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))


def _a_directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _a_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


PTX = Stage.PTX.file_name()

# kind -> (damage done to the variant's folder, what the damage message must name)
DAMAGE = {
    "variant.json missing": (lambda v: (v / "variant.json").unlink(), "variant.json"),
    "variant.json truncated": (
        lambda v: (v / "variant.json").write_bytes((v / "variant.json").read_bytes()[:200]),
        "variant.json",
    ),
    "variant.json binary": (lambda v: (v / "variant.json").write_bytes(bytes(range(256)) * 4), "variant.json"),
    "variant.json a JSON list": (lambda v: (v / "variant.json").write_text("[1, 2, 3]"), "variant.json"),
    "variant.json stages not a list": (lambda v: _rewrite_json(v / "variant.json", stages=7), "variant.json"),
    "variant.json config wrong-typed": (
        lambda v: _rewrite_json(v / "variant.json", config="BLOCK_SIZE=128"),
        "variant",
    ),
    "variant folder missing": (lambda v: shutil.rmtree(v), "variant.json"),
    "stage file missing": (lambda v: (v / PTX).unlink(), PTX),
    "stage file truncated": (lambda v: (v / PTX).write_text((v / PTX).read_text()[:400]), PTX),
    "stage file binary": (lambda v: (v / PTX).write_bytes(b"\x00\xff\xfe" * 100), PTX),
    "stage file a directory": (lambda v: _a_directory(v / PTX), PTX),
    "stage file a FIFO": (lambda v: _a_fifo(v / PTX), PTX),
}


@contextmanager
def _never_hangs_on(fifos: list[Path], after: float = 30.0):
    """If the app blocks opening one of ``fifos`` for reading, open it for writing after ``after`` s and close it:
    the reader then sees an empty file, and the test fails on what is shown instead of hanging."""

    def unblock() -> None:
        for fifo in fifos:
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass  # no reader is waiting on it

    timer = threading.Timer(after, unblock)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _cell(app, row, key: str) -> str:
    return app.query_one("#variants").get_cell(str(row.index), key).plain


async def _press(pilot, *keys: str) -> None:
    await pilot.press(*keys)
    await settle(pilot)


@pytest.mark.parametrize("kind", list(DAMAGE))
async def test_a_damaged_variant_is_a_damaged_row_and_every_other_row_stays_usable(session, kind):
    damage, named = DAMAGE[kind]
    damage(_first_variant(session))
    before = fingerprint(session)
    app = make_app(str(session))
    with _never_hangs_on([p for p in session.rglob("*") if p.is_fifo()]):
        with pytest.raises(SessionError) as read:  # the store's contract: damage is a SessionError
            Session.open(session).variant(Session.open(session).entries[0])
        why = str(read.value)
        assert named in why and "\n" not in why
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            listing, source = app.query_one("#listing"), app.query_one("#source")
            damaged = app.current_row()
            assert damaged.index == 0 and damaged.damage == why
            shown = [f"damaged: {why}"]
            assert listing.lines == shown
            assert _cell(app, damaged, "status") == "damaged" and named in _cell(app, damaged, "note")
            assert damaged.damage in app.query_one("#annotation").text
            assert any("def square_kernel" in line for line in source.lines)  # the session's source is intact

            for key in ("2", "3", "4", "6", "1", "5"):  # every stage says the same, and nothing is read again
                await _press(pilot, key)
                assert listing.lines == shown, key

            await _press(pilot, "down")
            healthy = app.current_row()
            assert healthy.index == 1 and healthy.damage is None
            assert listing.stage is Stage.PTX
            assert f".reqntid {32 * healthy.config.options['num_warps']}" in "\n".join(listing.lines)
            assert _cell(app, healthy, "status") == "ok"

            await _press(pilot, "up")  # back on the damaged row: the same line, no retry, no crash
            assert app.current_row() is damaged and listing.lines == shown

            await _press(pilot, "m", "down", "m", "d")  # a diff with the damaged row says why and opens nothing
            assert not isinstance(app.screen, DiffScreen)
            await _press(pilot, "up", "m", "down", "down", "m", "d")  # rows 1 and 2 marked: they diff as ever
            assert isinstance(app.screen, DiffScreen)
            body = "\n".join(app.screen.query_one("#diff-body").lines)
            assert "--- A" in body and "+++ B" in body
            await _press(pilot, "escape", "7")
            assert app.query_one("#switcher").current == "chart"
            assert app.is_running and app.internal_error is None
    assert fingerprint(session) == before


async def test_a_missing_source_file_shows_in_the_source_pane_and_the_stages_still_work(session):
    source_file = next((session / "source").iterdir())
    source_file.unlink()
    before = fingerprint(session)
    app = make_app(str(session))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        source = app.query_one("#source")
        assert len(source.lines) == 1 and source.lines[0].startswith("damaged: ")
        assert source_file.name in source.lines[0]
        listing = app.query_one("#listing")
        for key, needle in (("2", "tt.func"), ("6", "LDG"), ("5", "ld.global")):
            await _press(pilot, key)
            assert any(needle in line for line in listing.lines), (key, listing.lines[:1])
        await _press(pilot, "down")
        assert any("ld.global" in line for line in listing.lines)
        assert app.is_running and app.internal_error is None
    assert fingerprint(session) == before


def _tui(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """The real `irscope ... tui ...`, headless, in a subprocess with a time limit."""
    return subprocess.run(
        [sys.executable, "-m", "irscope", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **HEADLESS, **env},
    )


def test_the_real_tui_on_a_damaged_session_exits_0_when_quit(session):
    _a_fifo(_first_variant(session) / PTX)
    result = _tui("tui", str(session), env={"TEXTUAL_PRESS": "down,up,6,1,5,down,m,down,m,d,escape,7,q"})
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


# An internal error from a real failing condition: the latency trace (IRSCOPE_TUI_TRACE) goes to a
# full disk, so the first write of it, in a handler, raises OSError ENOSPC.
needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")


@needs_dev_full
def test_an_internal_error_exits_non_zero_with_one_line_and_no_traceback(recorded):
    result = _tui("tui", str(recorded), env={"IRSCOPE_TUI_TRACE": "/dev/full"})
    assert result.returncode not in (ExitCode.OK, ExitCode.USAGE, ExitCode.SESSION_ERROR), result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("irscope: internal error: OSError") and "No space left on device" in lines[0]
    assert "Traceback" not in result.stderr and "--debug" in lines[0]


@needs_dev_full
def test_an_internal_error_shows_its_traceback_under_debug(recorded):
    result = _tui("--debug", "tui", str(recorded), env={"IRSCOPE_TUI_TRACE": "/dev/full"})
    assert result.returncode != 0
    assert "Traceback (most recent call last)" in result.stderr
    assert "irscope/tui/app.py" in result.stderr and "OSError: [Errno 28]" in result.stderr
