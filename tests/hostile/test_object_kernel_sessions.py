"""A session made from a kernel defined in a notebook cell is data like any other session.

The cell is a real IPython cell (named as Jupyter names cells, a file that does not exist),
and running it writes a marker file: the CLI reading the session back (dump, report, and a
sweep that adds a variant, which rebuilds the kernel from the stored text) must never write
it, because it never runs the cell. The cell's path, stored in session.json, is then edited
to point outside the session: it is a name only, never opened, or the session is refused
(exit 5), and nothing from outside reaches the output.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from irscope.errors import ExitCode
from irscope.frontends import kernel_from_object
from irscope.frontends.config import resolve_config
from irscope.session import Session
from irscope.session.sweep import run_sweep
from irscope.types import Stage, Status

from .damage import copy_of, fingerprint

SECRET = "TOPSECRET-c3117a"


def cell_text(marker: Path) -> str:
    return f"""import pathlib

import triton
import triton.language as tl

pathlib.Path("{marker}").write_text("the cell ran")


@triton.jit
def cell_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * 7.0, mask=offs < n)
"""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A session of two variants of a cell's kernel, and the marker its cell writes when run."""
    from ipykernel.compiler import XCachingCompiler
    from IPython.core.interactiveshell import InteractiveShell

    root = tmp_path_factory.mktemp("cell-session")
    marker = root / "cell-ran"
    shell = InteractiveShell.instance()
    shell.compile = XCachingCompiler()
    assert shell.run_cell(cell_text(marker)).success
    assert marker.exists()  # the marker works: running the cell writes it
    marker.unlink()
    kernel = kernel_from_object(shell.user_ns["cell_kernel"], signature="*fp32:16, *fp32:16, i32, -")
    assert not Path(kernel.file).exists()
    session = Session.of_kernel(root / "session", kernel, kernel.parameter_table())
    configs = [resolve_config(kernel, {"BLOCK": b}) for b in (64, 128)]
    results = list(run_sweep(kernel, configs, "sm_90", session, compile_timeout=None))
    assert [r.variant.status for r in results] == [Status.OK, Status.OK]
    return root / "session", marker, kernel


@pytest.fixture
def session(recorded, tmp_path):
    """The test's own copy of the session, a secret file beside it, and the marker path to watch."""
    stored, marker, kernel = recorded
    (tmp_path / "secret.txt").write_text(SECRET + "\n")
    return copy_of(stored, tmp_path), marker, kernel


def test_the_stored_session_keeps_the_cells_text_and_name(session):
    path, marker, kernel = session
    opened = Session.open(path)
    assert opened.source() == kernel.source()
    assert opened.kernel.file == kernel.file
    assert Path(opened.data["kernel"]["source"]).parent == Path("source")  # inside the session


def test_the_cli_reads_and_extends_a_cell_session_without_running_the_cell(session, run_irscope, tmp_path):
    path, marker, kernel = session
    dumped = run_irscope("dump", str(path), "-c", "BLOCK=64", "--stage", "ptx")
    assert dumped.returncode == 0, dumped.stderr
    assert ".entry cell_kernel" in dumped.stdout
    report = tmp_path / "x.html"
    reported = run_irscope("report", str(path), "-o", str(report))
    assert reported.returncode == 0, reported.stderr
    assert "cell_kernel" in report.read_text()
    # A new variant: the kernel is rebuilt from the stored text (rebuild.py), none of the cell run.
    swept = run_irscope("sweep", str(path), "-s", "BLOCK=256", "--arch", "sm_90")
    assert swept.returncode == 0, swept.stderr
    assert sorted(e.config.constexprs["BLOCK"] for e in Session.open(path).entries) == [64, 128, 256]
    assert not marker.exists()


@pytest.mark.parametrize("where", ["../../etc/passwd", "/etc/passwd", "OUTSIDE", "FIFO"])
def test_an_edited_cell_path_is_a_name_never_opened(session, run_irscope, tmp_path, where):
    """``FIFO``: the path names a named pipe, which blocks whoever opens it to read: any read hangs (and times out)."""
    path, marker, kernel = session
    if where == "FIFO":
        os.mkfifo(tmp_path / "cell.py")
    index = path / "session.json"
    data = json.loads(index.read_text())
    data["kernel"]["file"] = {"OUTSIDE": str(tmp_path / "secret.txt"), "FIFO": str(tmp_path / "cell.py")}.get(
        where, where
    )
    index.write_text(json.dumps(data))
    before = fingerprint(path)
    report = tmp_path / "x.html"
    for args in (["dump", str(path), "-c", "BLOCK=128"], ["report", str(path), "-o", str(report)]):
        result = run_irscope(*args, timeout=120)
        assert result.returncode in (ExitCode.OK, ExitCode.SESSION_ERROR), result.stderr
        assert SECRET not in result.stdout + result.stderr and "root:x:" not in result.stdout
    assert SECRET not in report.read_text() and "root:x:" not in report.read_text()
    assert fingerprint(path) == before
    # A new variant compiles from the stored text, the edited path only its name: its source is the cell's.
    swept = run_irscope("sweep", str(path), "-s", "BLOCK=32", "--arch", "sm_90", "--json", timeout=120)
    assert swept.returncode in (ExitCode.OK, ExitCode.SESSION_ERROR), swept.stderr
    assert SECRET not in swept.stdout + swept.stderr and "root:x:" not in swept.stdout
    if swept.returncode == ExitCode.OK:
        added = Session.open(path)
        entry = next(e for e in added.entries if e.config.constexprs["BLOCK"] == 32)
        assert added.variant(entry).listings[Stage.SOURCE] == kernel.source()
    assert not marker.exists()


def test_a_source_path_edited_to_lead_outside_is_refused(session, run_irscope, tmp_path):
    path, marker, kernel = session
    index = path / "session.json"
    data = json.loads(index.read_text())
    data["kernel"]["source"] = "../secret.txt"
    index.write_text(json.dumps(data))
    result = run_irscope("dump", str(path), "-c", "BLOCK=64")
    assert result.returncode == ExitCode.SESSION_ERROR
    assert len(result.stderr.strip().splitlines()) == 1 and "leads outside" in result.stderr
    assert SECRET not in result.stdout + result.stderr
    assert not marker.exists()
