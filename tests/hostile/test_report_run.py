"""`irscope report RUN` reads a run folder someone may have sent: run.json, its sessions and trace.json.

A damaged run.json is exit 5 with one line; a trace.json that is damaged, too large, a FIFO or a link out of
the run is shown as damaged (and not linked) with the rest of the page, as is a session that cannot be
read. Nothing outside the run is read; no traceback.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from expect import one_line_error
from test_report import SESSION

from irscope.interop.run import INDEX_FORMAT
from irscope.interop.run.timeline import SESSION_ARG


def _run(tmp_path: Path) -> Path:
    """A run folder holding the sample square session as its one kernel."""
    run = tmp_path / "run"
    shutil.copytree(SESSION, run / "kernels" / "square_kernel")
    index = {
        "format": INDEX_FORMAT,
        "command": ["python", "prog.py"],
        "device": "NVIDIA H100",
        "kernels": [
            {
                "name": "square_kernel",
                "session": "kernels/square_kernel",
                "variants": [],
                "gpu_calls": 3,
                "gpu_total_us": 7.5,
            },
            {"name": "void at::native::kernel<'\"></td>", "session": None, "why": "not Triton <b>"},
        ],
    }
    (run / "run.json").write_text(json.dumps(index))
    return run


def _events(n=2):
    return {
        "traceEvents": [
            {
                "ph": "X",
                "cat": "kernel",
                "name": "square_kernel",
                "dur": 1.5,
                "args": {SESSION_ARG: "kernels/square_kernel"},
            }
        ]
        * n
    }


def _report(cli, run: Path, tmp_path: Path):
    out = tmp_path / "r.html"
    return cli("report", str(run), "-o", str(out)), out


def test_a_trace_counted_and_linked(tmp_path, cli):
    run = _run(tmp_path)
    (run / "trace.json").write_text(json.dumps(_events(2)))
    result, out = _report(cli, run, tmp_path)
    assert result.exit_code == 0, result.stderr
    text = out.read_text()
    assert 'href="run/trace.json"' in text and "<td>2</td><td>3</td>" in text
    assert "&lt;b&gt;" in text and "<b>" not in text.split("<main>", 1)[1].split("</main>", 1)[0]


def _outside(tmp_path):
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps(_events(5)))
    return outside


@pytest.mark.parametrize(
    "make, says",
    [
        (lambda t, p: p.write_text("{not json"), "trace.json"),
        (lambda t, p: p.write_text(json.dumps({"traceEvents": "x"})), "no traceEvents"),
        (lambda t, p: p.write_text(json.dumps([1, {"cat": "kernel", "args": []}])), "no traceEvents"),
        (lambda t, p: os.truncate(p.open("wb").name, 65 << 20), "MiB"),  # sparse: past the JSON bound
        (lambda t, p: p.symlink_to(_outside(t)), "leads outside"),
        (lambda t, p: os.mkfifo(p), "not a regular file"),
        (lambda t, p: p.mkdir(), "directory"),
    ],
    ids=["torn", "not-a-list", "not-an-object", "huge", "link-outside", "fifo", "folder"],
)
def test_a_damaged_trace_is_shown_as_damaged_and_not_linked(tmp_path, cli, make, says):
    run = _run(tmp_path)
    make(tmp_path, run / "trace.json")
    result, out = _report(cli, run, tmp_path)
    assert result.exit_code == 0, result.stderr
    text = out.read_text()
    damaged = text.split('<p class="damaged">', 1)
    assert len(damaged) == 2 and says in damaged[1].split("</p>", 1)[0]
    assert 'href="run/trace.json"' not in text
    assert "<td>5</td>" not in text  # the outside file's events were never read
    assert 'href="#kernel=0"' in text  # the rest of the page is there


def test_a_session_that_cannot_be_read_is_its_rows_damage(tmp_path, cli):
    run = _run(tmp_path)
    (run / "kernels" / "square_kernel" / "session.json").write_text("{torn")
    result, out = _report(cli, run, tmp_path)
    assert result.exit_code == 0, result.stderr
    assert "damaged: " in out.read_text() and 'href="#kernel=0"' not in out.read_text()


def test_a_damaged_run_index_is_exit_5_in_one_line(tmp_path, cli):
    run = _run(tmp_path)
    (run / "run.json").write_text(json.dumps({"format": INDEX_FORMAT, "kernels": [{"session": "../../etc"}]}))
    one_line_error(_report(cli, run, tmp_path)[0], 5, "is not a folder of the run")
    (run / "run.json").write_text("{torn")
    one_line_error(_report(cli, run, tmp_path)[0], 5, "run.json")


def test_a_diff_in_a_run_folder_asks_for_one_session(tmp_path, cli):
    run = _run(tmp_path)
    result = cli("report", str(run), "-o", str(tmp_path / "r.html"), "--diff", "BLOCK_SIZE=128", "BLOCK_SIZE=1024")
    one_line_error(result, 2, "kernels/ folders")
