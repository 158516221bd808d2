"""Hostile input on the command line: one line and the documented exit code, never LLVM's noise.

Archs the compiler cannot target, launch options out of range, numbers a command
cannot use; a sweep's failures in its exit code; Ctrl-C, once or twice, during a
real parallel compile, leaving neither a traceback nor a temporary file behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import click
import pytest
from expect import one_line_error

from irscope import arch
from irscope.errors import ExitCode
from irscope.frontends.config import sweep_configs
from irscope.nvidia.device import has_gpu
from irscope.records import Measurement
from irscope.types import Status

REPO = Path(__file__).resolve().parents[2]
LOGS = REPO / "samples" / "inductor"


# ---------------------------------------------------------------- archs


@pytest.mark.parametrize(
    "args",
    [
        ("dump", "square_kernel", "--arch", "sm_12"),
        ("annotate", "square_kernel", "--arch", "sm_999"),
        ("diff", "square_kernel", "-a", "BLOCK_SIZE=128", "-b", "arch=sm_12"),
        ("diff", "square_kernel", "-a", "BLOCK_SIZE=128", "-b", "BLOCK_SIZE=256", "--arch", "sm_12"),
    ],
)
def test_an_arch_the_compiler_cannot_target_is_bad_input_naming_those_it_can(cli, args):
    result = cli(*args)
    one_line_error(result, ExitCode.USAGE, "unknown arch", "sm_80, sm_86", "sm_90")
    assert "not a recognized processor" not in result.stderr


def test_a_sweep_for_an_unknown_arch_writes_no_session(cli, tmp_path):
    one_line_error(
        cli("sweep", "square_kernel", "--arch", "sm_12", "-o", str(tmp_path / "s")), 2, "unknown arch 'sm_12'"
    )
    assert not (tmp_path / "s").exists()


def test_the_supported_archs_are_those_tritons_own_ptxas_lists():
    import triton.knobs

    listed = subprocess.run([triton.knobs.nvidia.ptxas.path, "--help"], capture_output=True, text=True).stdout
    supported = arch.supported_capabilities()
    assert 90 in supported and 80 in supported and 12 not in supported
    assert all(f"'sm_{c}'" in listed for c in supported if c < arch.BLACKWELL)


def test_the_newest_supported_arch_really_compiles(cli):
    newest = arch.arch_name(max(arch.supported_capabilities()))
    result = cli("dump", "square_kernel", "--arch", newest)
    assert result.exit_code == 0, result.stderr
    assert f".target {newest}" in result.stdout


def test_without_a_ptxas_to_ask_a_fixed_table_is_used(monkeypatch, tmp_path):
    monkeypatch.setattr(arch, "_triton_bin", lambda: tmp_path)  # a folder with no ptxas in it
    arch.supported_capabilities.cache_clear()
    try:
        assert arch.supported_capabilities() == arch.FALLBACK_CAPABILITIES
        assert arch.parse_arch("sm_90a") == 90
    finally:
        arch.supported_capabilities.cache_clear()


# ---------------------------------------------------------------- launch options


@pytest.mark.parametrize(
    "assignment, fragment",
    [
        ("num_warps=64", "num_warps must be a power of two from 1 to 32"),
        ("num_warps=0", "num_warps must be"),
        ("num_stages=-1", "num_stages must be an integer from 0 to 32"),
        ("num_stages=1000000", "num_stages must be"),
        ("num_ctas=3", "num_ctas must be 1, 2, 4, 8 or 16"),
        ("num_ctas=32", "num_ctas must be"),
        ("num_ctas=true", "num_ctas must be"),
        ("maxnreg=0", "maxnreg must be an integer from 1 to 255"),
        ("maxnreg=256", "maxnreg must be"),
        ("maxnreg=-1", "maxnreg must be"),
        ("maxnreg=2.5", "maxnreg must be"),
    ],
)
def test_a_launch_option_out_of_range_is_refused_from_c_and_from_s(cli, tmp_path, assignment, fragment):
    name, value = assignment.split("=")
    one_line_error(cli("dump", "square_kernel", "-c", assignment), ExitCode.USAGE, fragment)
    one_line_error(
        cli("sweep", "square_kernel", "-s", f"{name}=1,{value}", "-o", str(tmp_path / "s")), ExitCode.USAGE, fragment
    )
    assert not (tmp_path / "s").exists()


def test_launch_options_at_their_limits_compile(cli):
    result = cli(
        "dump", "square_kernel", "-c", "num_warps=32", "-c", "num_stages=0", "-c", "num_ctas=16", "-c", "maxnreg=255"
    )
    assert result.exit_code == 0, result.stderr
    assert ".reqntid 1024" in result.stdout and ".maxnreg 255" in result.stdout


# ---------------------------------------------------------------- numeric options


@pytest.mark.parametrize(
    "args, option",
    [
        (("diff", "square_kernel", "-a", "BLOCK_SIZE=128", "-b", "BLOCK_SIZE=256", "-U", "-5"), "'--context' / '-U'"),
        (("sweep", "square_kernel", "-j", "0"), "'--jobs' / '-j'"),
        (("bench", "square_kernel", "--min-time", "0"), "'--min-time'"),
        (("bench", "square_kernel", "--timeout", "-1"), "'--timeout'"),
    ],
)
def test_a_number_option_out_of_range_is_one_line_and_exit_2(cli, args, option):
    one_line_error(cli(*args), ExitCode.USAGE, option, "is not in the range", f"{args[0]} -h)")


def test_every_number_option_of_every_command_has_a_range():
    from irscope.cli import COMMANDS, main

    ctx = click.Context(main)
    unbounded = [
        (name, p.name)
        for name in COMMANDS
        for p in main.get_command(ctx, name).params
        if isinstance(p.type, (click.types.IntParamType, click.types.FloatParamType))
        and not isinstance(p.type, (click.IntRange, click.FloatRange))
    ]
    assert not unbounded


# ---------------------------------------------------------------- swept and fixed

SQUARE_TABLE = {
    "BLOCK_SIZE": {"default": 1024, "sweep": [128, 256, 512], "kind": "constexpr"},
    "num_warps": {"default": 4, "sweep": [1, 4, 8], "kind": "option"},
    "num_stages": {"default": 3, "sweep": [3], "kind": "option"},
    "n_cols": {"default": 781, "sweep": [781], "kind": "size"},
}


def test_a_fixed_name_is_taken_out_of_the_kernels_declared_sweep():
    configs = sweep_configs(SQUARE_TABLE, "square_kernel", {}, {"num_warps": "8"})
    assert [(c.constexprs["BLOCK_SIZE"], c.options["num_warps"]) for c in configs] == [(128, 8), (256, 8), (512, 8)]


def test_the_cli_sweeps_the_declared_ranges_with_a_fixed_name(cli):
    result = cli("sweep", "square_kernel", "-c", "BLOCK_SIZE=128", "-c", "n_cols=1024", "--json")
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["num_warps"] for r in rows] == [1, 4, 8]
    assert "BLOCK_SIZE" not in rows[0]  # it did not vary


def test_a_name_both_swept_and_fixed_by_the_user_is_refused(cli):
    one_line_error(
        cli("sweep", "square_kernel", "-s", "num_warps=4,8", "-c", "num_warps=8"),
        ExitCode.USAGE,
        "num_warps is both swept (-s) and fixed (-c)",
    )


# ---------------------------------------------------------------- exit codes of work that partly failed


def test_a_sweep_with_a_failed_variant_prints_everything_then_exits_1(cli):
    result = cli("sweep", "square_kernel", "-s", "BLOCK_SIZE=1000,128", "-c", "n_cols=1024", "--json")
    assert result.exit_code == ExitCode.FAILURE, result.stderr
    assert [json.loads(line)["status"] for line in result.stdout.splitlines()] == ["failed", "ok"]
    assert "2 variants: 1 ok, 1 failed" in result.stderr and "Traceback" not in result.stderr


def test_bench_exits_1_after_its_table_when_a_variant_is_not_ok(capsys):
    from irscope.cli.bench import exit_if_any_failed

    row = lambda status: SimpleNamespace(measurement=Measurement(status))  # noqa: E731
    exit_if_any_failed([row(Status.OK), row(Status.OK)])
    with pytest.raises(SystemExit) as caught:
        exit_if_any_failed([row(Status.OK), row(Status.WRONG), row(Status.CRASHED), row(Status.FAILED)])
    assert caught.value.code == ExitCode.FAILURE
    assert capsys.readouterr().err.strip() == "3 of 4 variants not ok: 1 crashed, 1 failed, 1 wrong"


def test_inductor_exits_1_when_a_kernel_did_not_compile(cli, tmp_path):
    log = tmp_path / "broken.log"
    text = (LOGS / "square.log").read_text()
    assert "tl.arange(0, XBLOCK)" in text
    log.write_text(text.replace("tl.arange(0, XBLOCK)", "tl.arange(0, 1000)"))
    result = cli("inductor", "--log", str(log))
    assert result.exit_code == ExitCode.FAILURE, result.stderr
    assert "triton_poi_fused_pow_0" in result.stdout  # the table came first


def test_a_bug_in_irscope_exits_70_not_1(cli, monkeypatch):
    import irscope.frontends

    def broken():
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(irscope.frontends, "builtin_kernels", broken)
    result = cli("list")
    assert result.exit_code == ExitCode.INTERNAL == 70
    assert result.stderr.strip().splitlines() == [
        "irscope: internal error: ZeroDivisionError: division by zero (rerun with --debug for the traceback)"
    ]


@pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU")
def test_bench_of_a_wrong_variant_exits_1_on_a_gpu(run_irscope):
    buggy = f"{REPO / 'tests' / 'gpu' / 'buggy_kernels.py'}:buggy_copy_kernel"
    result = run_irscope("bench", buggy, "-s", "BUG=0,1", "--min-time", "20")
    assert result.returncode == ExitCode.FAILURE, result.stderr
    assert "wrong" in result.stdout and "1 of 2 variants not ok: 1 wrong" in result.stderr


# ---------------------------------------------------------------- Ctrl-C and temporary files


def _start_long_sweep(tmp_path: Path) -> tuple[subprocess.Popen, Path, Path]:
    """A real parallel sweep (fresh cache: it compiles), started once its first variant is in."""
    tmp, out = tmp_path / "tmp", tmp_path / "session"
    tmp.mkdir()
    sizes = ",".join(str(n) for n in range(1024, 1024 + 40 * 16, 16))
    env = {**os.environ, "IRSCOPE_CACHE_DIR": str(tmp_path / "cache"), "TMPDIR": str(tmp)}
    # Its own process group, as a terminal's foreground job: Ctrl-C goes to the whole group.
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "irscope",
            "sweep",
            "square_kernel",
            "-s",
            "num_warps=1,2,4,8",
            "-s",
            f"n_cols={sizes}",
            "-j",
            "2",
            "-o",
            str(out),
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while not ((out / "variants").is_dir() and any((out / "variants").iterdir())):
        if proc.poll() is not None or time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail(f"the sweep never got going: {proc.communicate()[1]}")
        time.sleep(0.02)
    return proc, tmp, out


def _interrupt(proc: subprocess.Popen, *gaps: float) -> tuple[int, str]:
    """Ctrl-C, then again after each of ``gaps`` seconds while the process lives."""
    try:
        os.killpg(proc.pid, signal.SIGINT)
        for gap in gaps:
            time.sleep(gap)
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return proc.returncode, err


def test_ctrl_c_stops_a_sweep_with_one_line_and_leaves_no_temporary_file(tmp_path):
    proc, tmp, out = _start_long_sweep(tmp_path)
    private = os.listdir(tmp)
    assert len(private) == 1 and private[0].startswith("irscope-")  # every temporary file goes in there
    code, err = _interrupt(proc)
    assert code == ExitCode.INTERRUPTED, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("irscope: interrupted after") and f"saved in {out}" in lines[0]
    assert os.listdir(tmp) == []


def test_more_ctrl_cs_while_irscope_cleans_up_are_ignored(tmp_path):
    proc, tmp, _ = _start_long_sweep(tmp_path)
    code, err = _interrupt(proc, *[0.002] * 100)  # the first lands in the sweep, the rest in its cleanup
    assert code == ExitCode.INTERRUPTED, err
    assert "Traceback" not in err and "Exception ignored" not in err
    assert len(err.strip().splitlines()) == 1 and err.startswith("irscope: interrupted after")
    assert os.listdir(tmp) == []


def test_a_diff_sides_own_signature_is_read_never_run(cli, tmp_path):
    """``-b signature=TYPES`` (the other language's -S): text read by its frontend's parser; a payload is one
    line and exit 2, and nothing of it runs (no nvidia-cutlass-dsl needed: it is refused before any compile)."""
    marker = tmp_path / "ran"
    payload = f"signature=__import__('os').system('touch {marker}')"
    twin = f"kernel={REPO / 'examples' / 'cute_kernels.py'}:row_sum"
    result = cli("diff", str(REPO / "examples" / "row_sum.py") + ":row_sum_kernel", "-b", twin, "-b", payload)
    one_line_error(result, 2, "cannot read")
    assert not marker.exists()
