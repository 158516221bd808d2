"""Malformed input is the user's to fix: one line and exit 2 or 5, never exit 70 ("a bug in irscope").

Each case here ended in ``irscope: internal error`` before: found by giving every
command's inputs fields of the wrong JSON type, names too long for a path, and an
optional dependency that is not installed. The dependencies are installed here, so
a wrapper hides them as an uninstalled module looks to Python (``sys.modules[name] =
None``: import fails, ``find_spec`` answers None) before irscope's own entry point runs.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from expect import one_line_error

from irscope.errors import ExitCode

REPO = Path(__file__).resolve().parents[2]
SESSION = REPO / "samples" / "sessions" / "square_kernel"
READERS = [
    ("dump", "-c", "BLOCK_SIZE=128", "-c", "num_warps=4"),
    ("diff", "-a", "BLOCK_SIZE=128", "-b", "BLOCK_SIZE=1024", "-c", "num_warps=4"),
    ("annotate", "-c", "BLOCK_SIZE=128", "-c", "num_warps=4", "--findings"),
]


def session_with(tmp_path: Path, change) -> Path:
    copy = tmp_path / "s"
    shutil.copytree(SESSION, copy)
    data = json.loads((copy / "session.json").read_text())
    change(data)
    (copy / "session.json").write_text(json.dumps(data))
    return copy


def _parameter(value):
    return lambda data: data["parameters"].__setitem__("BLOCK_SIZE", value)


@pytest.mark.parametrize("command", READERS, ids=[c[0] for c in READERS])
@pytest.mark.parametrize(
    "value",
    [
        None,
        1,
        "x",
        [],
        {},
        {"default": 128},
        {"default": 128, "kind": 3},
        {"default": 128, "kind": "constexpr", "sweep": 5},
    ],
    ids=["null", "number", "string", "list", "empty", "no kind", "kind a number", "sweep a number"],
)
def test_a_stored_parameter_that_is_not_a_parameter_is_a_damaged_session(cli, tmp_path, command, value):
    session = session_with(tmp_path, _parameter(value))
    one_line_error(
        cli(command[0], str(session), *command[1:]), ExitCode.SESSION_ERROR, "parameter 'BLOCK_SIZE' must be an object"
    )


@pytest.mark.parametrize(
    "field,value",
    [("spill_stores", "x"), ("spill_loads", [1]), ("registers", {"a": 1}), ("compile_s", "fast"), ("shared", True)],
)
def test_a_stored_fact_of_the_wrong_kind_is_a_damaged_session(cli, tmp_path, field, value):
    session = session_with(tmp_path, lambda data: data["variants"][0]["facts"].__setitem__(field, value))
    one_line_error(
        cli("report", str(session), "-o", str(tmp_path / "r.html")), ExitCode.SESSION_ERROR, f"Facts.{field} must be"
    )
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    "field,value", [("source", 1), ("source", [1]), ("median_us", "fast"), ("device", {}), ("repetitions", 2.5)]
)
def test_a_stored_measurement_of_the_wrong_kind_is_a_damaged_session(cli, tmp_path, field, value):
    def change(data):
        data["variants"][0]["measurement"] = {"status": "ok", "median_us": 9.5, field: value}

    session = session_with(tmp_path, change)
    one_line_error(
        cli("report", str(session), "-o", str(tmp_path / "r.html")),
        ExitCode.SESSION_ERROR,
        f"Measurement.{field} must be",
    )


VARIANT = "BLOCK_SIZE-128_num_warps-4_num_stages-3_n_rows-4096_n_cols-781_sm_90"


@pytest.mark.parametrize("command", READERS[::2], ids=[c[0] for c in READERS[::2]])
@pytest.mark.parametrize(
    "part,field,value",
    [
        ("resources", "registers", "x"),
        ("resources", "spill_loads", "x"),
        ("resources", "shared", None),
        ("compile_info", "compile_seconds", None),
        ("compile_info", "compile_seconds", "x"),
        ("compile_info", "arch", []),
    ],
)
def test_a_variant_record_of_the_wrong_kind_is_a_damaged_session(cli, tmp_path, command, part, field, value):
    session = session_with(tmp_path, lambda data: None)
    record = session / "variants" / VARIANT / "variant.json"
    data = json.loads(record.read_text())
    data[part][field] = value
    record.write_text(json.dumps(data))
    one_line_error(cli(command[0], str(session), *command[1:]), ExitCode.SESSION_ERROR, f".{field} must be")


@pytest.fixture(scope="module")
def with_passes(tmp_path_factory):
    from .damage import square_with_passes

    return square_with_passes(tmp_path_factory.mktemp("passes") / "s")


def _first_changing(steps) -> int:
    return next(i for i, step in enumerate(steps) if step.get("delta"))


@pytest.mark.parametrize(
    "damage",
    [
        lambda log: log.update(initial=None),
        lambda log: log["steps"][_first_changing(log["steps"])].update(delta=[]),
        lambda log: log["steps"][_first_changing(log["steps"])]["delta"].__setitem__(0, -1),
        lambda log: log["steps"][_first_changing(log["steps"])]["delta"].__setitem__(0, 10**30),
        lambda log: log["steps"][0].update(index=10**30),
        lambda log: log["steps"][0].update(index="<1e400>"),  # written as the number 1e400 (float infinity)
        lambda log: log["steps"][0].update(index=True),
        lambda log: log["steps"][0].update(lines=[4.9, 0]),
        lambda log: log.update(aliases=["a\u2028b"]),  # a line break inside one stored line
        lambda log: log.update(initial="\x017\x01" + log["initial"]),  # an alias the log does not hold
    ],
    ids=[
        "no initial IR", "an empty delta", "a delta dropping too much", "a delta keeping too much", "a huge index",
        "an infinite index", "a true index", "a fraction of a line", "an alias with a line break",
        "an alias past the list",
    ],
)  # fmt: skip
@pytest.mark.parametrize("extra", [(), ("--diff", "2"), ("--after", "3")], ids=["table", "diff", "after"])
def test_pass_data_whose_steps_do_not_chain_is_a_damaged_session(cli, tmp_path, with_passes, damage, extra):
    from .damage import store_passes, stored_passes

    session = tmp_path / "s"
    shutil.copytree(with_passes, session)
    variant, log = stored_passes(session)
    damage(log)
    store_passes(variant, json.dumps(log).replace('"<1e400>"', "1e400"))
    one_line_error(
        cli("passes", str(session), "-c", "BLOCK_SIZE=128", *extra),
        ExitCode.SESSION_ERROR,
        "is not irscope's pass data",
    )


@pytest.mark.parametrize(
    "kernel", ["a" * 5000, "a/" * 3000 + "k.py:k", "a" * 5000 + ".ndjson:k"], ids=["a name", "a file path", "a trace"]
)
def test_a_kernel_argument_too_long_for_a_path_is_bad_input(cli, kernel):
    one_line_error(cli("dump", kernel), ExitCode.USAGE, "not a kernel, kernel file or session", "File name too long")


# ---------------------------------------------------------------- optional dependencies

HIDE_AND_RUN = """
import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None
from irscope.cli import run
sys.argv = ["irscope", *sys.argv[2:]]
run()
"""


def without(modules: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", HIDE_AND_RUN, modules, *args], capture_output=True, text=True, cwd=REPO, timeout=300
    )


def one_line(result: subprocess.CompletedProcess, code: int, *fragments: str) -> None:
    assert result.returncode == code, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("irscope: error:"), result.stderr
    assert all(f in lines[0] for f in fragments), lines[0]


def test_control_the_wrapper_hides_a_module_as_python_sees_an_uninstalled_one():
    probe = (
        "import sys, importlib.util; sys.modules['numba'] = None; print(importlib.util.find_spec('numba'))\n"
        "try:\n    import numba\nexcept ModuleNotFoundError as e:\n    print('missing', e.name)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60).stdout.split()
    assert out == ["None", "missing", "numba"]


def test_a_numba_kernel_without_numba_says_what_to_install():
    one_line(
        without("numba,numba_cuda", "dump", "kernels/numba/square_numba.py:square_numba"),
        ExitCode.USAGE,
        "pip install irscope[numba]",
    )


def test_listing_kernels_without_numba_lists_the_others():
    result = without("numba,numba_cuda", "list")
    assert result.returncode == 0, result.stderr
    assert "square_kernel" in result.stdout


def test_an_inductor_log_without_torch_says_what_to_install():
    one_line(
        without("torch", "inductor", "--log", "samples/inductor/square.log"),
        ExitCode.USAGE,
        "inductor needs torch",
        "pip install irscope[torch]",
    )


@pytest.mark.skipif(shutil.which("zstd") is None, reason="runs the zstd tool the message names")
def test_a_zstd_trace_without_zstandard_names_a_command_that_unpacks_tritonparses_file(tmp_path):
    import gzip
    import shlex

    zstandard = pytest.importorskip("zstandard")
    text = gzip.open(REPO / "samples" / "tritonparse" / "fused_op_kernel_mapped.ndjson.gz", "rb").read()
    packer = zstandard.ZstdCompressor()
    trace = tmp_path / "dedicated_log_triton_trace_pid_7_host_h_.bin.ndjson"  # a name tritonparse gives
    trace.write_bytes(b"".join(packer.compress(line) for line in text.splitlines(keepends=True)))
    refused = without("zstandard", "dump", str(trace))
    one_line(refused, ExitCode.USAGE, "zstandard module is not installed", "pip install irscope[zstd]")
    command = refused.stderr.split("or unpack it with: ", 1)[1].strip()
    unpacked = tmp_path / "dedicated_log_triton_trace_pid_7_host_h_.unpacked.ndjson"
    assert command == f"zstd -dc {shlex.quote(str(trace))} > {shlex.quote(str(unpacked))}"
    subprocess.run(command, shell=True, check=True, timeout=60)  # the command as a user would paste it
    assert unpacked.read_bytes() == text
    read = without("zstandard", "dump", str(unpacked))
    assert read.returncode == 0 and "fused_op_kernel" in read.stderr, read.stderr


@pytest.mark.parametrize("dtype", [[], {}, ["float32"]], ids=["a list", "an object", "a list of a dtype"])
def test_a_trace_launch_whose_tensor_dtype_is_not_a_name_still_dumps(cli, tmp_path, dtype):
    import gzip

    events = [
        json.loads(line)
        for line in gzip.open(REPO / "samples" / "tritonparse" / "fused_op_kernel_mapped.ndjson.gz", "rt")
    ]
    launch = next(e for e in events if e["event_type"] == "launch")
    next(iter(launch["extracted_args"].values()))["dtype"] = dtype
    trace = tmp_path / "trace.ndjson"
    trace.write_text("".join(json.dumps(e) + "\n" for e in events))
    result = cli("dump", f"{trace}:fused_op_kernel")
    assert result.exit_code == 0, result.stderr
    assert "internal error" not in result.stderr


@pytest.mark.parametrize(
    "request_",
    [
        {"sweep": {"BLOCK_SIZE": 5}, "fixed": {}},
        {"sweep": {"BLOCK_SIZE": [[128]]}, "fixed": {}},
        {"sweep": {}, "fixed": {"BLOCK_SIZE": {}}},
        {"sweep": [], "fixed": {}},
        "x",
    ],
    ids=["values not a list", "a list value", "an object value", "sweep a list", "a string"],
)
def test_a_stored_sweep_request_of_the_wrong_shape_is_a_damaged_session(cli, tmp_path, request_):
    session = session_with(tmp_path, lambda data: data.__setitem__("request", request_))
    one_line_error(cli("sweep", str(session)), ExitCode.SESSION_ERROR, "the stored sweep request is malformed")


# What json reads but nothing can use (found by an outside review of issue 27)
UNUSABLE = {
    "a number past Python's 4,300 digits": lambda text: text.replace(
        '"registers": 36', '"registers": ' + "9" * 5000, 1
    ),
    "a lone surrogate": lambda text: text.replace('"square_kernel"', '"square\\udc80kernel"', 1),
    "nesting past the stack": lambda text: text.replace(
        '"variants":', '"deep": ' + "[" * 100_000 + "]" * 100_000 + ', "variants":', 1
    ),
}


@pytest.mark.parametrize(
    "command",
    [
        ("report", "-o", "{tmp}/r.html"),
        ("export", "-o", "{tmp}/r.ndjson"),
        ("diff", "-a", "BLOCK_SIZE=128", "-b", "BLOCK_SIZE=1024", "-c", "num_warps=4"),
    ],
    ids=["report", "export", "diff"],
)
@pytest.mark.parametrize("damage", sorted(UNUSABLE))
def test_json_that_parses_but_nothing_can_use_is_a_damaged_session(cli, tmp_path, damage, command):
    copy = tmp_path / "s"
    shutil.copytree(SESSION, copy)
    text = (copy / "session.json").read_text()
    damaged = UNUSABLE[damage](text)
    assert damaged != text, "the sample changed: the damage no longer applies"
    (copy / "session.json").write_text(damaged)
    args = [a.format(tmp=tmp_path) for a in command[1:]]
    one_line_error(cli(command[0], str(copy), *args), ExitCode.SESSION_ERROR, "corrupted")
