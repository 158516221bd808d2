"""TORCH_TRACE folders (issue 18): what `TORCH_TRACE=DIR` wrote on a GPU opens like its TORCH_LOGS twin.

samples/inductor/traces/mlp_layernorm/ and mlp_layernorm.log were recorded in one run on an H100
(tests/gpu/record_inductor_logs.py --only mlp_layernorm --trace mlp_layernorm): the same compile, logged
both ways.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from expect import one_line_error

from irscope.interop.inductor.parse import parse_log
from irscope.interop.inductor.trace import read_trace

TRACES = Path(__file__).resolve().parent.parent / "samples" / "inductor" / "traces"
TRACE = TRACES / "mlp_layernorm"


def test_a_trace_holds_what_its_torch_logs_twin_holds():
    read = read_trace(TRACE)
    twin = parse_log((TRACES / "mlp_layernorm.log").read_text())
    assert read.skipped == [] and read.files == [p.name for p in TRACE.iterdir()]
    assert [o.graph for o in read.outputs] == [o.graph for o in twin] == ["[0/0]"]
    assert [o.module.strip() for o in read.outputs] == [o.module.strip() for o in twin]
    assert [[(k.name, k.kind, k.source) for k in o.kernels] for o in read.outputs] == [
        [(k.name, k.kind, k.source) for k in o.kernels] for o in twin
    ]
    assert [k.name for k in read.outputs[0].kernels] == [
        "triton_per_fused_native_layer_norm_0",
        "triton_poi_fused_gelu_view_1",
        "triton_poi_fused_add_addmm_view_2",
    ]


def test_inductor_trace_compiles_every_kernel_as_the_log_does(cli, tmp_path):
    from_trace = cli("inductor", "--trace", str(TRACE), "-o", str(tmp_path / "t"), "--json")
    from_log = cli("inductor", "--log", str(TRACES / "mlp_layernorm.log"), "-o", str(tmp_path / "l"), "--json")
    assert from_trace.exit_code == from_log.exit_code == 0, from_trace.output[-2000:]
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == sorted(p.name for p in (tmp_path / "l").iterdir())
    import json

    t, lg = json.loads(from_trace.stdout), json.loads(from_log.stdout)
    assert t["origin"]["trace"] == str(TRACE) and lg["origin"]["log"]
    assert [k["name"] for k in t["kernels"]] == [k["name"] for k in lg["kernels"]]


def _inductor(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "irscope", "inductor", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=600,
    )


def test_each_phase_of_a_trace_capture_is_one_line_in_a_log():
    """Reading the folder, Inductor's heuristics (a cold import of torch._inductor) and the compiles."""
    logged = _inductor("--trace", str(TRACE), "--json")
    assert logged.returncode == 0, logged.stderr[-2000:]
    names = [k["name"] for k in json.loads(logged.stdout)["kernels"]]
    seconds = r"\((\d+\.\d) s\)"
    assert [re.sub(seconds, "(N s)", line) for line in logged.stderr.splitlines()] == [
        f"irscope: read 1 trace file in {TRACE}: 1 graph, {len(names)} Triton kernels (N s)",
        f"irscope: worked out {len(names)} launch configs with Inductor's heuristics (N s)",
        f"irscope: compiled {len(names)} kernels (N s)",
    ]


def _on_a_terminal(*args: str) -> tuple[int, str]:
    """Run ``irscope inductor`` with stderr on a real pseudo-terminal (what a person watches); what it drew there."""
    import pty
    import threading

    leader, follower = pty.openpty()
    drawn: list[bytes] = []

    def read() -> None:  # drained while it runs: a full terminal buffer would block the command
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:
                return
            if not data:
                return
            drawn.append(data)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    proc = subprocess.run(
        [sys.executable, "-m", "irscope", "inductor", *args], stdout=subprocess.PIPE, stderr=follower, timeout=600
    )
    os.close(follower)
    reader.join(timeout=10)
    os.close(leader)
    return proc.returncode, b"".join(drawn).decode(errors="replace")


def test_on_a_terminal_the_phases_show_while_they_run_and_leave_no_lines():
    code, stderr = _on_a_terminal("--trace", str(TRACE))
    assert code == 0, stderr[-2000:]
    assert "working out each kernel's launch config" in stderr  # drawn while it ran...
    assert not any(line.startswith("irscope: ") for line in stderr.splitlines())  # ...and gone


def test_where_only_colour_is_forced_the_phases_are_lines_with_no_cursor_moves():
    """FORCE_COLOR (Jupyter kernels set it) asks for colour on a pipe, not for a live display on one."""
    logged = _inductor("--trace", str(TRACE), FORCE_COLOR="1")
    assert logged.returncode == 0, logged.stderr[-2000:]
    assert "\x1b[1A" not in logged.stderr and "\x1b[2K" not in logged.stderr
    assert any(line.startswith("irscope: ") for line in logged.stderr.splitlines())


def test_a_payload_cut_off_or_changed_is_skipped_and_said(cli, tmp_path):
    folder = tmp_path / "trace"
    folder.mkdir()
    text = next(TRACE.iterdir()).read_text()
    start = text.index('{"inductor_output_code"')
    cut = text.index("triton_poi_fused_gelu_view_1", start)
    (folder / "trace.log").write_text(text[:cut] + text[cut:].replace("tl.store", "tl.stor", 1))
    with pytest.raises(Exception, match="every output-code record is cut off or changed"):
        read_trace(folder)  # the only output code fails its hash: nothing is left to read
    one_line_error(cli("inductor", "--trace", str(folder)), 2, "does not match its hash", "trace.log")


def test_only_files_in_the_folder_are_read(tmp_path):
    """A link in the folder is not followed: a trace is data, and no path in it reaches outside."""
    folder = tmp_path / "trace"
    folder.mkdir()
    outside = tmp_path / "outside.log"
    shutil.copy(next(TRACE.iterdir()), outside)
    (folder / "link.log").symlink_to(outside)
    (folder / "notes.txt").write_text("not a trace")
    with pytest.raises(Exception, match="no inductor_output_code records in 0 trace file"):
        read_trace(folder)


def test_bad_trace_folders_get_one_line(cli, tmp_path):
    one_line_error(cli("inductor", "--trace", str(tmp_path / "missing")), 2, "no such TORCH_TRACE folder")
    (tmp_path / "empty").mkdir()
    one_line_error(cli("inductor", "--trace", str(tmp_path / "empty")), 2, "no inductor_output_code records")
    one_line_error(
        cli("inductor", "--trace", str(TRACE), "--log", str(TRACES / "mlp_layernorm.log")), 2, "give one of TARGET"
    )
