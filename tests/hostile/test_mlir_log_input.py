"""A program's MLIR_ENABLE_DUMP output (interop/mlir_log.py) is data: its text is shown, never run; a log cut
short, with other output between its dumps, with odd names or none of Triton's passes is read as far as it
goes or refused in one line (exit 5), never a traceback."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner
from expect import one_line_error

from irscope.cli import main
from irscope.errors import ExitCode
from irscope.interop.mlir_log import read_log

pytestmark = pytest.mark.triton_api  # the log is written by the Triton the tests run with

CANARY = "IRSCOPE_CANARY_91c2"


def _passes(*args):
    return CliRunner().invoke(main, ["passes", *map(str, args)])


def test_code_in_the_log_is_shown_never_run(triton_folders, tmp_path):
    marker = tmp_path / "ran"
    payload = f"__import__('pathlib').Path({str(marker)!r}).write_text('ran')  # {CANARY}"
    text = triton_folders.mlir_log.read_text()
    log = tmp_path / "mlir.log"
    # the payload in the IR each TTIR dump printed, and as a pass name of a header
    log.write_text(
        text.replace("tt.func public @add_kernel", f"// {payload}\n  tt.func public @add_kernel")
        + f"// -----// IR Dump Before {CANARY} (x) ('builtin.module' operation) //----- //\n{payload}\n"
    )
    result = _passes(f"{log}:1", "--after", "1")
    assert result.exit_code == 0 and CANARY in result.stdout
    shown = CliRunner().invoke(main, ["dump", f"{log}:1", "--stage", "ttir"])  # the log's session
    assert shown.exit_code == 0 and CANARY in shown.stdout
    assert not marker.exists()


def test_a_log_cut_short_or_with_other_output_reads_as_far_as_it_goes(triton_folders, tmp_path):
    text = triton_folders.mlir_log.read_text()
    cut = tmp_path / "cut.log"
    cut.write_text(text[: len(text) // 3])  # within the second compile
    assert [c.kernel for c in read_log(cut)] == ["add_kernel", "add_kernel"]
    noisy = tmp_path / "noisy.log"
    noisy.write_text("Traceback (most recent call last):\nwarning: something\n\x1b]0;title\x07\n" + text + "\n\xff")
    assert len(read_log(noisy)) == 4
    result = _passes(f"{noisy}:1", "--json")
    assert result.exit_code == 0 and "\x1b]0" not in result.stderr
    binary = tmp_path / "binary.log"
    binary.write_bytes(text.encode() + b"\0\xff\xfe")  # not text: refused as the capture cache refuses it
    one_line_error(_passes(f"{binary}:1"), ExitCode.SESSION_ERROR, "damaged")


def test_not_a_log(tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_text("")
    one_line_error(_passes(empty), ExitCode.USAGE)  # no dump in it: not a log, so not a kernel either
    lone = tmp_path / "lone.log"
    lone.write_text("// -----// IR Dump Before Inliner (inline) ('builtin.module' operation) //----- //\nmodule {\n}\n")
    one_line_error(_passes(lone), ExitCode.SESSION_ERROR, "no compile's passes")
    fifo = tmp_path / "fifo.log"
    os.mkfifo(fifo)
    result = _passes(fifo)  # not a regular file: never opened, never waited on
    assert result.exit_code == 2 and "Traceback" not in result.stderr


@pytest.mark.parametrize("which", ["0", "99999999999999999999999", "-1", "no_such_kernel"])
def test_odd_compile_numbers_and_names(triton_folders, which):
    result = _passes(f"{triton_folders.mlir_log}:{which}")
    assert result.exit_code == 2 and "Traceback" not in result.stderr
