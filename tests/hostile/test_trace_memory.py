"""A tritonparse trace's limit bounds the memory reading it takes, not only the bytes it unpacks to.

Under the 1 GiB limit, a 32 KB zstd trace of newlines (1023 MiB unpacked) took more than 6 GB and ended in exit
70: the whole text was held, decoded, then split into a list of a billion empty lines. A line of empty objects
(``[{},{},...]``) takes 24 times its size once parsed, and events kept add up. Each case here runs irscope as a
user does and reads its peak memory from the kernel (``wait4``): refused in one line, exit 5, in bounded memory.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from irscope.errors import ExitCode
from irscope.interop.tritonparse.events import MAX_KEPT_COST, MAX_LINE_COST

REPO = Path(__file__).resolve().parents[2]
BLANK = 256 << 20  # of newlines: 2.5 GB before (the text, its copy and a list of 268 million lines)


# The child reports its own peak (VmHWM, of the memory it execs into) as it exits. wait4's ru_maxrss would not
# do: Linux carries the forking process's peak into the child's across exec, so beside a pytest process grown
# to 530 MB (the full suite) every child read 530 MB, whatever it used.
_REPORT_PEAK = """
import atexit, runpy, sys
peak_file = sys.argv.pop(1)


def _peak():
    with open("/proc/self/status") as status:
        hwm = next(line for line in status if line.startswith("VmHWM:"))
    with open(peak_file, "w") as out:
        out.write(hwm.split()[1])


atexit.register(_peak)
sys.argv[0] = "irscope"
runpy.run_module("irscope", run_name="__main__", alter_sys=True)
"""


def _irscope(*args: str) -> tuple[int, str, int]:
    """Exit code, stderr and peak resident bytes of irscope run as ``python -m irscope ARGS`` runs it."""
    with tempfile.TemporaryDirectory() as tmp:
        peak_file = Path(tmp) / "peak"
        proc = subprocess.run(
            [sys.executable, "-c", _REPORT_PEAK, str(peak_file), *args],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        return proc.returncode, proc.stderr, int(peak_file.read_text()) * 1024


def _blank_zstd(path: Path) -> Path:
    zstandard = pytest.importorskip("zstandard")
    frame = zstandard.ZstdCompressor(level=19).compress(b"\n" * (1 << 20))
    path.write_bytes(frame * (BLANK >> 20))
    return path


def _blank_gzip(path: Path) -> Path:
    path.write_bytes(gzip.compress(b"\n" * (16 << 20), compresslevel=9) * (BLANK >> 24))
    return path


@pytest.mark.parametrize("make", [_blank_zstd, _blank_gzip], ids=["zstd", "gzip"])
def test_a_trace_of_blank_lines_under_the_limit_is_read_in_bounded_memory(tmp_path, make):
    trace = make(tmp_path / "blank.bin.ndjson")
    assert trace.stat().st_size < 1 << 20
    code, err, peak = _irscope("dump", str(trace))
    assert code == ExitCode.SESSION_ERROR and err.strip().splitlines() == [
        f"irscope: error: {trace} holds no compilation event irscope can read"
    ], err
    assert peak < 300 << 20, peak >> 20  # the interpreter and a piece of the trace: 32 MB here


def _launch(arguments: str) -> str:
    return '{"event_type": "launch", "name": "k", "grid": [1], "extracted_args": {"a": ' + arguments + "}}\n"


def test_a_line_too_costly_to_parse_is_refused_before_it_is_parsed(tmp_path):
    trace = tmp_path / "heavy.ndjson"
    trace.write_text(_launch("[" + ",".join(["{}"] * (12 << 20)) + "]"))  # 36 MB: about 900 MB parsed
    code, err, peak = _irscope("dump", str(trace))
    assert code == ExitCode.SESSION_ERROR and err.strip().splitlines() == [
        f"irscope: error: {trace}:1: a line that would take more than {MAX_LINE_COST >> 20} MB to read: "
        "not a trace irscope reads"
    ], err
    assert peak < 400 << 20, peak >> 20


def test_events_too_costly_to_keep_are_refused_as_they_add_up(tmp_path):
    one = _launch("[" + ",".join(["{}"] * (1 << 20)) + "]")  # 3 MB, about 100 MB kept
    assert len(one) * 96 // 1.5 < MAX_LINE_COST
    trace = tmp_path / "many.ndjson.gz"
    trace.write_bytes(gzip.compress(one.encode() * 12, compresslevel=1))
    code, err, peak = _irscope("dump", str(trace))
    assert code == ExitCode.SESSION_ERROR and err.strip().splitlines() == [
        f"irscope: error: {trace}: its events would take more than {MAX_KEPT_COST >> 20} MB to keep: "
        "not a trace irscope reads"
    ], err
    assert peak < MAX_KEPT_COST + (400 << 20), peak >> 20


def test_a_real_trace_still_reads_line_by_line(tmp_path):
    from irscope.interop.tritonparse.events import read_trace

    fixture = REPO / "samples" / "tritonparse" / "fused_op_kernel_mapped.ndjson.gz"
    lines = gzip.open(fixture, "rt").read().splitlines()
    trace = tmp_path / "t.ndjson"
    trace.write_text("\n\n   \n".join(lines) + "\n")  # blank and spaces-only lines between the events
    read = read_trace(trace)
    assert [c.line for c in read.compiles] == [
        1 + 3 * i for i, line in enumerate(lines) if json.loads(line)["event_type"] == "compilation"
    ]
    assert len(read.compiles) == len(read_trace(fixture).compiles)
