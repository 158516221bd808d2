"""The processes irscope starts: nothing imported from the working directory, gone with irscope, never more.

A folder just downloaded holds a ``pickle.py``, a ``json.py`` and a ``triton.py``, each
creating a canary when imported: irscope run there compiles its kernel and creates
none, while plain ``python -c`` there creates every one (the control). A sweep compiling
a ``.cu`` slow enough that nvcc's cicc is caught running is stopped with TERM, HUP or
KILL: within seconds no process it started is left. A kernel file that runs irscope's
own ``capture`` when it is imported, run as a script, starts one worker, not a tree of
them. A gzip trace that unpacks to gigabytes is refused in one line, its memory bounded.
Processes are found through ``/proc`` by a tag in their environment, which every
process irscope starts inherits; real compiles, no mocks.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import sysconfig
import time
import uuid
from pathlib import Path

import click
import pytest
from expect import one_line_error

from irscope.errors import ExitCode
from irscope.interop.tritonparse.events import MAX_TRACE_BYTES

REPO = Path(__file__).resolve().parents[2]
SHADOWS = ("pickle", "json", "triton")  # what irscope's workers and irscope itself import first
TAG = "IRSCOPE_TEST_PROCESS_TAG"
CONSOLE_SCRIPT = Path(sysconfig.get_path("scripts")) / "irscope"
COMPILERS = {"nvcc", "cicc", "ptxas", "cudafe++", "gcc", "cc1plus"}  # what nvcc runs, by /proc's comm

# Each Steps<1> is a load and a sine inlined: STEPS of them keep cicc busy for seconds (~15 s for 300).
SLOW_CU = """\
#ifndef STEPS
#define STEPS 300
#endif

template <int N> struct Steps {
    __device__ __forceinline__ static float run(float acc, const float* in, int n) {
        acc = Steps<N / 2>::run(acc, in, n);
        return Steps<N - N / 2>::run(acc, in, n);
    }
};

template <> struct Steps<1> {
    __device__ __forceinline__ static float run(float acc, const float* in, int n) {
        return acc * in[(threadIdx.x * 7 + (int)acc) % n] + __sinf(acc);
    }
};

__global__ void slow(float* out, const float* in, int n) {
    out[threadIdx.x] = Steps<STEPS>::run(0.0f, in, n);
}
"""

# A kernel file that runs irscope when it is imported: as a script, and again in the worker that imports it.
CAPTURES_ITSELF = """\
import os

import triton
import triton.language as tl

from irscope.capturing import capture


@triton.jit
def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)


try:
    outcome = capture(f"{{__file__}}:copy", arch="sm_90", signature="*fp32:16, *fp32:16, i32, 128").status.name
except Exception as exc:
    outcome = type(exc).__name__
with open({log!r}, "a") as log:
    log.write(f"{{os.environ.get('IRSCOPE_WORKER', 'script')}} {{outcome}}\\n")
"""


def tagged_environment(tmp_path: Path, tag: str) -> dict[str, str]:
    """A fresh cache (so that irscope really compiles), a private TMPDIR, and the tag its processes inherit."""
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return {**os.environ, "IRSCOPE_CACHE_DIR": str(tmp_path / "cache"), "TMPDIR": str(tmp_path / "tmp"), TAG: tag}


def tagged(tag: str) -> list[tuple[int, str]]:
    """(pid, command name) of every live process whose environment holds the tag (zombies show none)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            environ = Path(entry.path, "environ").read_bytes()
            comm = Path(entry.path, "comm").read_text().strip()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if f"{TAG}={tag}".encode() in environ.split(b"\0"):
            found.append((int(entry.name), comm))
    return found


def wait_for(condition, seconds: float, step: float = 0.1) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


# ---------------------------------------------------------------- the working directory


@pytest.fixture
def downloaded(tmp_path: Path) -> Path:
    """A folder whose pickle.py, json.py and triton.py each create ``canaries/<name>`` when imported."""
    folder, canaries = tmp_path / "download", tmp_path / "canaries"
    folder.mkdir()
    canaries.mkdir()
    for name in SHADOWS:
        (folder / f"{name}.py").write_text(f"open({str(canaries / name)!r}, 'w').write('ran')\n")
    return folder


def canaries(downloaded: Path) -> list[str]:
    return sorted(os.listdir(downloaded.parent / "canaries"))


def test_pythons_own_path_imports_each_shadow_from_that_folder(downloaded):
    for name in SHADOWS:
        subprocess.run([sys.executable, "-c", f"import {name}"], cwd=downloaded, capture_output=True, timeout=120)
    assert canaries(downloaded) == sorted(SHADOWS)


def test_the_worker_started_as_it_was_imports_pickle_from_that_folder(downloaded):
    # How workers.py started a compile worker before: `python -c` with the parent's path.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    subprocess.run(
        [sys.executable, "-c", "from irscope.capturing.worker import serve; serve()"],
        cwd=downloaded,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
    )
    assert "pickle" in canaries(downloaded)


ENTRY_POINTS = {"python -m irscope": [sys.executable, "-m", "irscope"], "the console script": [str(CONSOLE_SCRIPT)]}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
@pytest.mark.parametrize(
    "command",
    [
        ("dump", "square_kernel", "--stage", "ptx"),
        ("sweep", "square_kernel", "-s", "num_warps=1,2", "-j", "2", "--json"),
    ],
)
def test_irscope_in_that_folder_compiles_and_imports_nothing_from_it(downloaded, tmp_path, entry, command):
    if not Path(ENTRY_POINTS[entry][0]).exists():
        pytest.skip("no console script installed beside this Python")
    env = tagged_environment(tmp_path, uuid.uuid4().hex)
    result = subprocess.run(
        [*ENTRY_POINTS[entry], *command], cwd=downloaded, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert ".visible .entry square_kernel" in result.stdout or '"status": "ok"' in result.stdout
    assert canaries(downloaded) == []


def test_a_script_of_the_users_keeps_its_own_folder_for_the_workers_it_starts(tmp_path):
    # The user ran their own program: its folder holds their modules, as in their own process.
    script = tmp_path / "mine.py"
    script.write_text(
        "import json; from irscope.processes.own_python import import_path; print(json.dumps(import_path()))"
    )
    as_script = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    as_command = subprocess.run(
        [sys.executable, "-c", script.read_text()], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert str(tmp_path) in json.loads(as_script.stdout)
    assert str(tmp_path) not in json.loads(as_command.stdout) and "" not in json.loads(as_command.stdout)


def test_the_ncu_report_reader_imports_nothing_from_the_working_directory(downloaded, monkeypatch):
    from irscope.errors import UsageError
    from irscope.measure.ncu_report import NcuReportUnavailable, read_report

    monkeypatch.chdir(downloaded)
    with pytest.raises((NcuReportUnavailable, UsageError)):
        read_report(downloaded / "missing.ncu-rep")
    assert canaries(downloaded) == []


# ---------------------------------------------------------------- stopped from outside


def start_slow_sweep(tmp_path: Path, tag: str) -> subprocess.Popen:
    """``irscope sweep`` of SLOW_CU, returned once one of nvcc's tools is seen running for it."""
    kernel = tmp_path / "slow.cu"
    kernel.write_text(SLOW_CU)
    proc = subprocess.Popen(
        [sys.executable, "-m", "irscope", "sweep", f"{kernel}:slow", "-j", "1", "-o", str(tmp_path / "s")],
        cwd=REPO,
        env=tagged_environment(tmp_path, tag),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    if not wait_for(lambda: proc.poll() is not None or any(c in COMPILERS for _, c in tagged(tag)), 120):
        proc.kill()
        pytest.fail("nvcc never started")
    if proc.poll() is not None:
        pytest.fail(f"the sweep ended before it was stopped: {proc.communicate()[1]}")
    return proc


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: s.name)
def test_killing_irscope_leaves_no_worker_nvcc_or_cicc_running(tmp_path, signum):
    tag = uuid.uuid4().hex
    proc = start_slow_sweep(tmp_path, tag)
    try:
        proc.send_signal(signum)  # to irscope alone, as `kill PID` sends it
        _, err = proc.communicate(timeout=60)
        assert wait_for(lambda: not tagged(tag), 10), f"still running: {tagged(tag)}"
    finally:
        for pid, _ in tagged(tag):
            os.kill(pid, signal.SIGKILL)
    if signum == signal.SIGKILL:
        return
    assert proc.returncode == 128 + signum, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("irscope: interrupted after"), err
    assert os.listdir(tmp_path / "tmp") == []  # irscope's temporary folder went with it


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_stopping_irscope_run_stops_the_program_it_runs_and_keeps_the_run(tmp_path, signum):
    tag, started = uuid.uuid4().hex, tmp_path / "started"
    program = f"import pathlib, time; pathlib.Path({str(started)!r}).touch(); time.sleep(120)"
    proc = subprocess.Popen(
        [sys.executable, "-m", "irscope", "run", "-o", str(tmp_path / "out"), "--", sys.executable, "-c", program],
        cwd=tmp_path,
        env=tagged_environment(tmp_path, tag),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert wait_for(started.exists, 120), "the program never started"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
        assert wait_for(lambda: not tagged(tag), 10), f"still running: {tagged(tag)}"
    finally:
        for pid, _ in tagged(tag):
            os.kill(pid, signal.SIGKILL)
    assert f"the program exited with status {-signum}" in err, err
    assert json.loads((tmp_path / "out" / "run.json").read_text())["exit_code"] == -signum


def test_a_signal_already_ignored_stays_ignored_and_the_others_are_caught():
    from irscope.cli import _stop_once

    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    try:
        with _stop_once():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert callable(signal.getsignal(signal.SIGTERM))
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_a_kernel_file_that_runs_irscope_when_imported_starts_one_worker_not_a_tree(tmp_path):
    log, script, tag = tmp_path / "outcomes", tmp_path / "captures_itself.py", uuid.uuid4().hex
    script.write_text(CAPTURES_ITSELF.format(log=str(log)))
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=tagged_environment(tmp_path, tag),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    most = 0
    try:
        deadline = time.monotonic() + 180
        while proc.poll() is None and time.monotonic() < deadline:
            most = max(most, len(tagged(tag)))
            time.sleep(0.05)
        assert proc.poll() is not None, f"still running after 180 s with {len(tagged(tag))} processes"
    finally:
        for pid, _ in tagged(tag):
            os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 0, proc.stderr.read()
    assert most <= 3, most  # the script, its worker, a moment's nvdisasm
    outcomes = log.read_text().split()
    # The capture ran in the worker too (the payload was reached there) and was refused, not obeyed.
    assert "NestedWorkers" in outcomes and outcomes.count("OK") >= 1


# ---------------------------------------------------------------- numbers that would wait for ever


@pytest.mark.parametrize("value", ["inf", "nan", "-inf", "1e300", "0", "-1"])
@pytest.mark.parametrize(
    "args",
    [
        ("dump", "square_kernel", "--compile-timeout"),
        ("sweep", "square_kernel", "--compile-timeout"),
        ("bench", "square_kernel", "--timeout"),
        ("bench", "square_kernel", "--min-time"),
        ("compare", "square_kernel", "--min-time"),
    ],
)
def test_a_time_that_is_not_a_finite_positive_number_is_one_line_and_exit_2(cli, args, value):
    one_line_error(cli(*args, value), ExitCode.USAGE, args[-1], "is not in the range")


def test_every_number_option_of_every_command_has_both_limits_and_refuses_nan():
    from irscope.cli import COMMANDS, main

    ctx = click.Context(main)
    numbers = [
        (name, p)
        for name in COMMANDS
        for p in main.get_command(ctx, name).params
        if isinstance(p.type, (click.types.IntParamType, click.types.FloatParamType))
    ]
    counts = ("context", "top")  # lines or rows to show: any number is a fair way to ask for all of them
    assert [(name, p.name) for name, p in numbers if p.type.max is None and p.name not in counts] == []
    for _name, param in numbers:
        if isinstance(param.type, click.types.FloatParamType):
            with pytest.raises(click.BadParameter):
                param.type.convert("nan", param, ctx)


def test_a_compile_timeout_that_is_not_a_finite_positive_number_is_refused_before_any_compile(tmp_path):
    """The timeout is a parameter now (no environment variable a worker or a stray shell could set):
    a library caller's nan, inf, 1e300 or 0 would wait for ever or overflow select(), so it is refused."""
    from irscope.capturing import capture_many
    from irscope.errors import UsageError
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import resolve_config

    kernel = resolve_kernel("square_kernel")
    config = resolve_config(kernel, {})
    for value in (float("inf"), float("nan"), 1e300, 0.0, -5.0):
        with pytest.raises(UsageError, match="compile timeout"):
            next(iter(capture_many(kernel, [config], "sm_90", compile_timeout=value, use_cache=False)))


# ---------------------------------------------------------------- unpacking


def gzip_bomb(path: Path, unpacked: int) -> Path:
    """``unpacked`` bytes of newlines in gzip: one 16 MiB member written again and again, as tritonparse appends."""
    member = gzip.compress(b"\n" * (16 << 20), compresslevel=9)
    with path.open("wb") as out:
        for _ in range(-(-unpacked // (16 << 20))):
            out.write(member)
    return path


def zstd_bomb(path: Path, unpacked: int) -> Path:
    """``unpacked`` bytes of newlines in zstd: one 16 MiB frame written again and again, as tritonparse appends."""
    zstandard = pytest.importorskip("zstandard")
    frame = zstandard.ZstdCompressor(level=19).compress(b"\n" * (16 << 20))
    with path.open("wb") as out:
        for _ in range(-(-unpacked // (16 << 20))):
            out.write(frame)
    return path


BOMBS = {"gzip": (gzip_bomb, "bomb.ndjson.gz"), "zstd": (zstd_bomb, "bomb.bin.ndjson")}


@pytest.mark.parametrize("packing", BOMBS)
@pytest.mark.parametrize("command", ["dump", "sweep"])
def test_a_packed_trace_that_unpacks_to_gigabytes_is_refused_in_one_line_in_bounded_memory(tmp_path, command, packing):
    make, name = BOMBS[packing]
    bomb = make(tmp_path / name, 8 << 30)
    assert bomb.stat().st_size < 16 << 20
    proc = subprocess.Popen(
        [sys.executable, "-m", "irscope", command, str(bomb)],
        cwd=REPO,
        env=tagged_environment(tmp_path, uuid.uuid4().hex),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode()
    assert os.waitstatus_to_exitcode(status) == ExitCode.SESSION_ERROR, err
    assert err.strip().splitlines() == [
        f"irscope: error: {bomb} unpacks to more than {MAX_TRACE_BYTES >> 20} MB: not a trace irscope reads"
    ]
    assert usage.ru_maxrss * 1024 < MAX_TRACE_BYTES + (1 << 30)  # the limit and the interpreter, not 8 GiB
