"""A tritonparse trace is data: damage is one line and an exit code, its code never runs, its paths are labels.

Each case starts from a real trace (samples/tritonparse: tritonparse's own fixture,
recorded on a GPU) and damages it: a line that is not JSON, a gzip cut short, no
compilation events, a kernel name it does not hold, zstd. Then code is put into the
recorded source (module level, a decorator, a default argument, the kernel's body):
reading the trace (dump) runs none of it; a sweep, which compiles the recorded source,
runs none of it either, and refuses the body that Triton would have run. The paths in
the trace name files that exist here with other contents: irscope opens none of them.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from expect import one_line_error

from irscope.errors import ExitCode

FIXTURE = Path(__file__).resolve().parents[2] / "samples" / "tritonparse" / "fused_op_kernel_mapped.ndjson.gz"
PID_LINE = "    pid = tl.program_id(axis=0)\n"


def lines() -> list[str]:
    return gzip.open(FIXTURE, "rt").read().splitlines(keepends=True)


def write(path: Path, text_lines: list[str]) -> Path:
    path.write_text("".join(text_lines))
    return path


def with_source(tmp_path: Path, change) -> Path:
    """The fixture with each compilation event's recorded Python changed by ``change``."""
    out = []
    for line in lines():
        event = json.loads(line)
        if event["event_type"] == "compilation":
            source = event["payload"]["python_source"]
            source["code"] = change(source["code"])
        out.append(json.dumps(event) + "\n")
    return write(tmp_path / "crafted.ndjson", out)


def test_a_line_that_is_not_json_is_one_line_naming_the_line(cli, tmp_path):
    damaged = lines()
    damaged.insert(1, '{"event_type": "compilation", "payload": \n')
    result = cli("dump", str(write(tmp_path / "t.ndjson", damaged)))
    one_line_error(result, ExitCode.SESSION_ERROR, "t.ndjson:2", "not a JSON line")


def test_a_gzip_cut_short_is_one_line(cli, tmp_path):
    data = FIXTURE.read_bytes()
    (tmp_path / "t.ndjson.gz").write_bytes(data[: len(data) // 2])
    one_line_error(cli("dump", str(tmp_path / "t.ndjson.gz")), ExitCode.SESSION_ERROR, "damaged gzip", "truncated")


def test_a_trace_without_compilation_events_is_one_line(cli, tmp_path):
    launches = [ln for ln in lines() if json.loads(ln)["event_type"] == "launch"]
    result = cli("sweep", str(write(tmp_path / "t.ndjson", launches)) + ":fused_op_kernel")
    one_line_error(result, ExitCode.SESSION_ERROR, "no compilation event")


def test_a_kernel_the_trace_does_not_hold_is_bad_input_naming_those_it_does(cli, tmp_path):
    result = cli("dump", f"{write(tmp_path / 't.ndjson', lines())}:matmul_kernel")
    one_line_error(result, ExitCode.USAGE, "no compilation of a kernel named 'matmul_kernel'", "fused_op_kernel")


def test_a_missing_trace_and_a_damaged_zstd_one_are_one_line(cli, tmp_path):
    one_line_error(cli("dump", str(tmp_path / "none.ndjson")), ExitCode.SESSION_ERROR, "missing")
    (tmp_path / "z.ndjson").write_bytes(b"\x28\xb5\x2f\xfd" + b"\0" * 16)
    one_line_error(cli("dump", str(tmp_path / "z.ndjson")), ExitCode.SESSION_ERROR, "damaged zstd file")


def zstd_frames(text_lines: list[str]) -> bytes:
    """One zstd frame per event, as tritonparse's writer appends them with TRITON_TRACE_COMPRESSION=zstd."""
    zstandard = pytest.importorskip("zstandard")
    packer = zstandard.ZstdCompressor()
    return b"".join(packer.compress(line.encode()) for line in text_lines)


def test_a_zstd_trace_reads_and_one_cut_short_or_with_a_stray_tail_is_one_line(cli, tmp_path):
    packed = zstd_frames(lines())
    (tmp_path / "t.bin.ndjson").write_bytes(packed)
    assert cli("dump", str(tmp_path / "t.bin.ndjson"), "-c", "ACTIVATION=relu").exit_code == 0
    last = zstd_frames(lines()[-1:])
    for cut in (len(packed) - len(last) // 2, len(packed) - 1):  # within the last frame's block, its checksum-less end
        (tmp_path / "cut.bin.ndjson").write_bytes(packed[:cut])
        one_line_error(
            cli("dump", str(tmp_path / "cut.bin.ndjson")), ExitCode.SESSION_ERROR, "damaged zstd", "truncated"
        )
    (tmp_path / "tail.ndjson.zst").write_bytes(packed + b"not a frame")
    one_line_error(cli("dump", str(tmp_path / "tail.ndjson.zst")), ExitCode.SESSION_ERROR, "damaged zstd file")


def test_an_event_with_fields_of_the_wrong_kind_is_passed_over_with_the_others_read(cli, tmp_path):
    damaged = lines()
    event = json.loads(damaged[0])
    event["payload"]["metadata"]["name"] = {"not": "a name"}
    damaged.insert(0, json.dumps(event) + "\n")
    result = cli("dump", str(write(tmp_path / "t.ndjson", damaged)), "-c", "ACTIVATION=relu")
    assert result.exit_code == 0, result.stderr
    assert "is not an identifier" in result.stderr  # said, once the session is read


# where -> (how the payload goes in, whether the kernel still compiles: a refused def is one line, exit 5)
PAYLOADS = {
    "module level": (lambda code, p: f"{p}\n" + code, True),
    "decorator": (lambda code, p: code.replace("@triton.jit", f"@(lambda fn: ({p}, fn)[1])\n@triton.jit"), True),
    "default argument": (
        lambda code, p: code.replace("BLOCK_SIZE: tl.constexpr,", f"BLOCK_SIZE: tl.constexpr = {p},"),
        False,
    ),
}


def touch(marker: Path) -> str:
    return f'__import__("pathlib").Path("{marker}").touch()'


@pytest.mark.parametrize("where", PAYLOADS)
def test_reading_and_sweeping_a_trace_runs_no_code_from_its_source(cli, tmp_path, where):
    marker = tmp_path / "ran"
    put, compiles = PAYLOADS[where]
    crafted = with_source(tmp_path, lambda code: put(code, touch(marker)))
    result = cli("dump", f"{crafted}:fused_op_kernel", "-c", "ACTIVATION=relu", "--stage", "ptx")
    assert result.exit_code == 0, result.stderr
    result = cli("sweep", f"{crafted}:fused_op_kernel", "-s", "BLOCK_SIZE=16", "-c", "ACTIVATION=relu", "-j", "1")
    if compiles:  # outside what Triton compiles: left out of the rebuilt kernel
        assert result.exit_code == 0, result.stderr
        assert "1 ok, 0 failed" in result.stderr
    else:
        one_line_error(result, ExitCode.SESSION_ERROR, "refused")
    assert not marker.exists()


def test_code_in_the_kernels_body_is_refused_before_triton_could_run_it(cli, tmp_path):
    marker = tmp_path / "ran"
    crafted = with_source(
        tmp_path,
        lambda code: code.replace(
            PID_LINE, f"    pid = tl.program_id(axis=0) + tl.core.builtins.exec({touch(marker)!r})\n"
        ),
    )
    assert cli("dump", f"{crafted}:fused_op_kernel").exit_code == 0  # reading it is fine
    result = cli("sweep", f"{crafted}:fused_op_kernel", "-s", "BLOCK_SIZE=16", "-j", "1")
    # named by the trace, not the cache folder its session is kept in
    one_line_error(result, ExitCode.SESSION_ERROR, f"{crafted}:fused_op_kernel: ", "refused", "-o DIR")
    assert not marker.exists()


def test_paths_in_a_trace_are_labels_never_opened(tmp_path):
    from irscope.interop.tritonparse.session import trace_session
    from irscope.stages import Stage

    decoy = tmp_path / "kernel.py"
    decoy.write_text("DECOY = 1\n")
    out = []
    for line in lines():
        event = json.loads(line)
        if event["event_type"] == "compilation":
            event["payload"]["python_source"]["file_path"] = str(decoy)
            event["payload"]["file_path"] = {k: "/etc/shadow" for k in event["payload"]["file_path"]}
        out.append(json.dumps(event) + "\n")
    session = trace_session(write(tmp_path / "t.ndjson", out), None)
    assert session.kernel.file == str(decoy)  # the label, as the IR's locations name it
    for entry in session.entries:
        source = session.variant(entry).listing(Stage.SOURCE)
        assert "def fused_op_kernel(" in source and "DECOY" not in source
