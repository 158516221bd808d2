"""tritonparse traces in and out: real traces, made by tritonparse's own listener and parser on real compiles.

A kernel written for the test is compiled for sm_90 (no GPU needed) while
tritonparse traces it; irscope reads the raw trace and tritonparse's parsed
("mapped") one into the same variants, writes them back out as a trace that
tritonparse's own parser accepts, and reads that again to the same stages. A sweep
of the trace rebuilds the kernel from the recorded source (the kernel file deleted
first) and gives the trace's PTX again. Launch events come from tritonparse's own
GPU-recorded test fixture (samples/tritonparse): tritonparse records a launch only
when a kernel really launches, which needs a GPU.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from written_kernels import SCALED_ADD

from irscope.stages import Stage

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "samples" / "tritonparse" / "fused_op_kernel_mapped.ndjson.gz"
TRACE_AND_PARSE = """\
import glob, sys
sys.path.insert(0, sys.argv[1])
import tritonparse.structured_logging as tp
tp.init(sys.argv[1] + "/logs", enable_sass_dump=True)
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from scaled_add import scaled_add
signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32", "BLOCK": "constexpr"}
aligned = {(i,): [["tt.divisibility", 16]] for i in (0, 1, 2, 3)}
for block, warps in ((256, 4), (1024, 8)):
    src = ASTSource(scaled_add, signature, {(5,): block}, aligned)
    triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
from tritonparse.parse.utils import unified_parse
unified_parse(sys.argv[1] + "/logs", out=sys.argv[1] + "/parsed", overwrite=True)
"""
PARSE = """\
import sys
from tritonparse.parse.utils import unified_parse
unified_parse(sys.argv[1], out=sys.argv[2], overwrite=True)
"""


def _python(script: str, *args: str, env: dict | None = None) -> None:
    import os

    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="module")
def traced(tmp_path_factory) -> Path:
    """A folder with the kernel file, tritonparse's raw trace (logs/) and its parsed output (parsed/)."""
    pytest.importorskip("tritonparse")
    root = tmp_path_factory.mktemp("tritonparse")
    (root / "scaled_add.py").write_text(SCALED_ADD)
    _python(TRACE_AND_PARSE, str(root), env={"TRITON_CACHE_DIR": str(root / "triton-cache")})
    return root


def _one(folder: Path, pattern: str) -> Path:
    (path,) = folder.glob(pattern)
    return path


def _variants(path: Path, kernel: str | None = None):
    from irscope.interop.tritonparse.session import trace_session

    session = trace_session(path, kernel)
    return session, {e.config.key(): session.variant(e) for e in session.entries}


def test_raw_and_parsed_traces_read_as_the_same_variants_with_every_stage(traced):
    raw_session, raw = _variants(_one(traced / "logs", "*.ndjson"))
    parsed_session, parsed = _variants(_one(traced / "parsed", "*_mapped.ndjson.gz"), "scaled_add")
    assert sorted(raw) == sorted(parsed) and len(raw) == 2
    for key, variant in raw.items():
        for stage in (Stage.SOURCE, Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX, Stage.SASS):
            assert variant.listing(stage) == parsed[key].listing(stage), stage
        assert variant.resources.registers > 0  # ptxas's report on the recorded PTX
    wide = next(v for v in raw.values() if v.config.constexprs["BLOCK"] == 1024)
    assert wide.config.options["num_warps"] == 8 and wide.compile_info.threads_per_block == 256
    assert "ld.global.v4.b32" in wide.listing(Stage.PTX)
    # the source keeps its line numbers: line 9 is the kernel's `mask = offsets < n`
    assert wide.listing(Stage.SOURCE).splitlines()[8].strip() == "mask = offsets < n"
    # tritonparse's map and irscope's agree on every line both map
    checks = parsed_session.data["tritonparse"]["mapping_check"]
    assert checks and all(
        c["disagreed"] == 0 and c["agreed"] > 0 for stages in checks.values() for c in stages.values()
    )
    assert all("sass" in stages for stages in checks.values())  # SASS lines too, with nvdisasm's PTX-text lines
    assert parsed_session.data["tritonparse"]["notes"] == []
    assert raw_session.data["kernel"]["signature"][4]["type"] == "fp32"  # alpha, from the TTIR's tt.func


def test_a_zstd_trace_as_tritonparse_writes_it_reads_as_the_plain_one(traced, tmp_path):
    """TRITON_TRACE_COMPRESSION=zstd: one zstd frame per event, in a file named .bin.ndjson."""
    from tritonparse.tools.compression import iter_lines

    from irscope.interop.tritonparse.events import trace_lines
    from irscope.ir.dialects import normalize

    root = tmp_path / "zstd"
    root.mkdir()
    (root / "scaled_add.py").write_text(SCALED_ADD)
    env = {"TRITON_CACHE_DIR": str(root / "triton-cache"), "TRITON_TRACE_COMPRESSION": "zstd"}
    _python(TRACE_AND_PARSE, str(root), env=env)
    packed = _one(root / "logs", "*.bin.ndjson")
    assert packed.read_bytes()[:4] == b"\x28\xb5\x2f\xfd"
    # tritonparse's own reader: the same lines (irscope passes over blank ones)
    assert [line for _, line in trace_lines(packed)[0]] == [line for line in iter_lines(packed) if line.strip()]
    plain_trace = _one(traced / "logs", "*.ndjson")
    sources = [packed]
    if shutil.which("zstd"):  # the plain trace packed whole by the zstd tool, as a finished trace may be
        whole = tmp_path / "whole.ndjson.zst"
        subprocess.run(["zstd", "-q", str(plain_trace), "-o", str(whole)], check=True)
        assert [line for _, line in trace_lines(whole)[0]] == [
            ln for ln in plain_trace.read_text().splitlines() if ln.strip()
        ]
        sources.append(whole)
    _, plain = _variants(plain_trace)
    for source in sources:
        _, unpacked = _variants(source)
        assert sorted(unpacked) == sorted(plain) and len(plain) == 2, source
        for key, variant in plain.items():  # compiled in another folder: the same code, other paths
            for stage in (Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX, Stage.SASS):
                assert normalize(stage, unpacked[key].listing(stage)) == normalize(stage, variant.listing(stage))


def test_an_exported_trace_is_parsed_by_tritonparse_and_reads_back_to_the_same_stages(traced, tmp_path):
    from irscope.interop.tritonparse.events import kernel_parameters
    from irscope.interop.tritonparse.write import write_trace

    _, original = _variants(_one(traced / "logs", "*.ndjson"))
    out = tmp_path / "export" / "dedicated_log_triton_trace_irscope.ndjson"
    out.parent.mkdir()
    first = next(iter(original.values()))
    assert write_trace(out, original.values(), kernel_parameters(first.listing(Stage.SOURCE), "scaled_add")[0]) == 2
    _python(PARSE, str(out.parent), str(tmp_path / "parsed"))  # tritonparse's own parser
    mapped = _one(tmp_path / "parsed", "*_mapped.ndjson.gz")
    events = [json.loads(line) for line in gzip.open(mapped, "rt")]
    assert sum(e["event_type"] == "compilation" and "source_mappings" in e["payload"] for e in events) == 2
    session, again = _variants(mapped)
    assert sorted(again) == sorted(original)
    for key, variant in original.items():
        for stage in (Stage.SOURCE, Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX, Stage.SASS):
            assert again[key].listing(stage) == variant.listing(stage), stage
    assert session.data["tritonparse"]["notes"] == []


def test_sweeping_a_trace_rebuilds_the_recorded_source_and_gives_the_traced_ptx(traced, tmp_path, run_irscope):
    trace = _one(traced / "logs", "*.ndjson")
    _, variants = _variants(trace)
    traced_ptx = next(v for v in variants.values() if v.config.constexprs["BLOCK"] == 256).listing(Stage.PTX)
    moved = tmp_path / "trace.ndjson"  # the kernel file is not beside it, nor where the trace says it was
    moved.write_bytes(trace.read_bytes())
    (traced / "scaled_add.py").rename(traced / "scaled_add.py.gone")
    try:
        done = run_irscope(
            "sweep",
            f"{moved}:scaled_add",
            "-s",
            "BLOCK=256,512",
            "-c",
            "num_warps=4",
            "-o",
            str(tmp_path / "swept"),
            "-j",
            "1",
        )
    finally:
        (traced / "scaled_add.py.gone").rename(traced / "scaled_add.py")
    assert done.returncode == 0, done.stderr
    assert "2 ok, 0 failed" in done.stderr
    from irscope.session import Session

    session = Session.open(tmp_path / "swept")
    by_block = {e.config.constexprs["BLOCK"]: session.variant(e) for e in session.entries}
    assert by_block[256].listing(Stage.PTX) == traced_ptx
    assert by_block[512].listing(Stage.PTX) != traced_ptx
    # the trace's own session was left as it was: new variants went to -o only
    _, still = _variants(moved)
    assert len(still) == 2


def test_a_traces_launch_events_give_bench_its_grids_and_layouts_and_agree_with_its_ttir(run_irscope, tmp_path):
    from irscope.frontends.triton.replay import why_not
    from irscope.interop.tritonparse.session import trace_session

    session = trace_session(FIXTURE, None)
    launches = session.recorded_launches
    assert len(launches) == 2 == len(session.entries)
    for entry in session.entries:
        from irscope.frontends.triton.replay import launch_key

        recorded = launches[launch_key(entry.config)]
        assert why_not(recorded, entry.config) is None
        assert recorded["grid"] == [1]
        assert recorded["arguments"]["a_ptr"] == {
            "tensor": "torch.float32",
            "shape": [8],
            "stride": [1],
            "aligned": True,
        }
    # what the launches imply (pointers aligned, n=8 not a multiple of 16, a float scale) is what the TTIR says
    assert session.data["tritonparse"]["notes"] == []
    done = run_irscope(
        "sweep",
        f"{FIXTURE}:fused_op_kernel",
        "-s",
        "BLOCK_SIZE=8,1024",
        "-c",
        "ACTIVATION=relu",
        "--arch",
        "sm_75",
        "-j",
        "1",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["status"] for r in rows] == ["ok", "ok"]


def test_launch_specialization_follows_the_jits_rules():
    from irscope.interop.tritonparse.events import LaunchEvent
    from irscope.interop.tritonparse.launches import specialization

    tensor = {"type": "tensor", "dtype": "torch.float16", "shape": [4], "stride": [1], "data_ptr": "0x7f0000000004"}
    launch = LaunchEvent(
        "k",
        None,
        [1],
        {
            "p": tensor,
            "one": {"type": "int", "value": 1},
            "big": {"type": "int", "value": 2**33},
            "n": {"type": "int", "value": 64},
            "B": {"type": "int", "value": 128},
        },
    )
    signature, constants, divisible = specialization(launch, ["p", "one", "big", "n", "B"], ["B"])
    assert signature == {"p": "*fp16", "one": "constexpr", "big": "i64", "n": "i32", "B": "constexpr"}
    assert constants == {"one": 1, "B": 128} and divisible == ["big", "n"]  # p is 4 bytes off 16


def test_a_mapped_traces_line_that_tritonparse_maps_elsewhere_is_reported_with_both_sides(cli, tmp_path):
    events = [json.loads(line) for line in gzip.open(FIXTURE, "rt")]
    compile_event = next(e for e in events if e["event_type"] == "compilation")
    ptx_map = compile_event["payload"]["source_mappings"]["ptx"]
    number, entry = next((n, e) for n, e in ptx_map.items() if e.get("line"))
    entry["line"] += 3  # tritonparse now says another line of the kernel than the PTX's own .loc
    trace = tmp_path / "t.ndjson"
    trace.write_text("".join(json.dumps(e) + "\n" for e in events))
    result = cli("dump", str(trace), "-c", "ACTIVATION=none")
    assert result.exit_code == 0, result.stderr
    (note,) = [line for line in result.stderr.splitlines() if "disagree" in line]
    assert f"ptx:{number} tritonparse" in note and f":{entry['line']}, irscope" in note


def test_export_writes_a_sessions_variants_that_read_back_the_same(cli, tmp_path):
    from irscope.interop.tritonparse.session import trace_session

    out = tmp_path / "dedicated_log_triton_trace_fused.ndjson.gz"
    result = cli("export", str(FIXTURE), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert "2 compilation events of fused_op_kernel" in result.stderr and "note" not in result.stderr
    before, after = trace_session(FIXTURE, None), trace_session(out, None)
    old = {e.config.key(): before.variant(e) for e in before.entries}
    new = {e.config.key(): after.variant(e) for e in after.entries}
    assert sorted(old) == sorted(new)
    for key, variant in old.items():
        for stage in (Stage.SOURCE, Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX):
            assert new[key].listing(stage) == variant.listing(stage)
    assert after.signature == before.signature  # from the exported TTIR and src_constants/src_attrs


def test_an_exported_kernel_with_the_jits_constant_ones_sweeps_from_its_trace_to_the_same_ptx(cli, tmp_path):
    from irscope.capturing import capture
    from irscope.session import Session

    # matmul_kernel's unit strides are constants the JIT made: the export says so in src_constants
    trace = tmp_path / "dedicated_log_triton_trace_matmul.ndjson"
    assert cli("export", "matmul_kernel", "-o", str(trace)).exit_code == 0
    result = cli("sweep", str(trace), "-o", str(tmp_path / "swept"), "-j", "1")
    assert result.exit_code == 0, result.stderr
    session = Session.open(tmp_path / "swept")
    (entry,) = session.entries
    assert session.variant(entry).listing(Stage.PTX) == capture("matmul_kernel").listing(Stage.PTX)


H100_TRACE = (
    Path(__file__).resolve().parent.parent
    / "samples"
    / "tritonparse"
    / "scaled_add_h100"
    / "scaled_add_mapped.ndjson.gz"
)


def test_a_trace_recorded_on_a_gpu_gives_each_config_its_launch_and_sweeps_ahead_of_time(cli, tmp_path):
    """tests/gpu/record_tritonparse_trace.py on an H100: two configs launched on 2^20 floats. irscope bench of
    this trace reran both there (4.6 and 4.8 us); here the launches give each config its grid and arguments,
    and a sweep of new block sizes compiles from the recorded source for sm_90."""
    from irscope.named import open_named

    target = open_named(f"{H100_TRACE}:scaled_add")
    launches = {json.loads(key)["BLOCK"]: value for key, value in target.session.recorded_launches.items()}
    assert {block: launch["grid"] for block, launch in launches.items()} == {256: [4096], 1024: [1024]}
    for launch in launches.values():
        assert launch["arguments"]["n"] == 1 << 20 and launch["arguments"]["alpha"] == 2.0
        assert launch["arguments"]["x_ptr"]["shape"] == [1 << 20] and launch["arguments"]["x_ptr"]["aligned"]
    result = cli(
        "sweep", f"{H100_TRACE}:scaled_add", "-s", "BLOCK=512,2048", "--arch", "sm_90", "-o", str(tmp_path / "s")
    )
    assert result.exit_code == 0, result.output[-2000:]
    assert "2 variants into" in result.stderr + result.stdout and "2 ok" in result.stderr + result.stdout
