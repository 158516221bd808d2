"""Shared fixtures: one irscope cache for the whole test run, a cold one for the tests that need it, a CLI runner.

Tests compile real kernels with the real Triton; the cache keeps the run's repeated
captures of one variant from compiling twice, across pytest-xdist's workers too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

REPO = Path(__file__).resolve().parent.parent


# The irscope cache CI keeps between runs (.ci/run sets it to a folder named by what can change a capture:
# irscope's capture code, the Tritons, nvcc, ptxas, nvdisasm, numba-cuda). Unset: a fresh cache per run.
CACHE_ENV = "IRSCOPE_TEST_CACHE_DIR"


def run_dir(tmp_path_factory) -> Path:
    """A folder of this test run's own that every pytest-xdist worker shares (each worker's basetemp is a
    folder of the run's)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def shared_cache_dir(tmp_path_factory) -> Path:
    """The irscope cache every test of this run shares, whichever pytest-xdist worker runs it.

    One cache for the run, not one per worker: a variant one worker compiled is a hit for the
    other (irscope's cache is written atomically and is safe under concurrent writers:
    tests/hostile/test_writes_lose_nothing.py races two captures of the same variants). Each
    xdist worker's basetemp is a folder of the run's own, so the run's cache sits beside them.
    """
    kept = os.environ.get(CACHE_ENV)
    return Path(kept) if kept else run_dir(tmp_path_factory) / "irscope-cache"


@pytest.fixture(scope="session", autouse=True)
def _shared_cache(tmp_path_factory):
    root = shared_cache_dir(tmp_path_factory)
    root.mkdir(parents=True, exist_ok=True)
    # Triton's cache too is the run's own: `irscope cache --clear` trims irscope's folder in Triton's cache, and
    # a test clearing its cache must never empty the user's ~/.triton/cache/irscope (or another run's).
    triton_cache = run_dir(tmp_path_factory) / "triton-cache"
    old = {name: os.environ.get(name) for name in ("IRSCOPE_CACHE_DIR", "TRITON_CACHE_DIR")}
    os.environ.update({"IRSCOPE_CACHE_DIR": str(root), "TRITON_CACHE_DIR": str(triton_cache)})
    yield root
    for name, value in old.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture
def cold_cache(tmp_path, monkeypatch) -> Path:
    """An empty irscope cache of this test's own, for a test about compiling or caching itself: what
    another test (or an earlier CI run) cached must not turn its compile into a hit."""
    root = tmp_path / "cold-irscope-cache"
    root.mkdir()
    monkeypatch.setenv("IRSCOPE_CACHE_DIR", str(root))
    return root


@pytest.fixture(scope="session")
def once_per_run(tmp_path_factory):
    """``once_per_run(name, record) -> folder``: what ``record(folder)`` writes there, recorded once per
    test run, by whichever pytest-xdist worker asks first; the other waits for it and reads the same
    folder. Tests only read it: one that changes what it holds works on a copy."""
    import fcntl
    import shutil

    root = run_dir(tmp_path_factory) / "recorded"
    root.mkdir(exist_ok=True)

    def get(name: str, record) -> Path:
        folder = root / name
        with open(root / f"{name}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (folder / ".recorded").exists():
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                record(folder)
                (folder / ".recorded").touch()
        return folder

    return get


@dataclass(frozen=True)
class InductorCapture:
    folder: Path  # what -o wrote
    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture(scope="session")
def inductor_capture(once_per_run):
    """``inductor_capture("reduction")``: ``irscope inductor --log samples/inductor/reduction.log -o FOLDER --json``,
    run once per test run (each capture compiles every kernel of the log, ~30 s) for the tests that read it."""
    import json

    def get(log: str) -> InductorCapture:
        def record(folder: Path) -> None:
            from irscope.cli import main

            log_file = REPO / "samples" / "inductor" / f"{log}.log"
            args = ["inductor", "--log", str(log_file), "-o", str(folder / "capture"), "--json"]
            result = CliRunner().invoke(main, args, catch_exceptions=False)
            outcome = {"exit_code": result.exit_code, "stdout": result.stdout, "stderr": result.stderr}
            (folder / "result.json").write_text(json.dumps(outcome))

        folder = once_per_run(f"inductor-{log}", record)
        return InductorCapture(folder / "capture", **json.loads((folder / "result.json").read_text()))

    return get


@pytest.fixture
def cli():
    """Invoke the click app in-process: ``cli("dump", "square_kernel")`` -> Result."""
    from irscope.cli import main

    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(main, list(args), catch_exceptions=False)

    return invoke


@pytest.fixture
def run_irscope():
    """Run the real console entry point in a subprocess: ``run_irscope("dump", ...)``."""

    def run(
        *args: str, cwd: Path | None = None, timeout: float = 300, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "irscope", *args],
            capture_output=True,
            text=True,
            cwd=cwd or REPO,
            timeout=timeout,
            env={**os.environ, **(env or {})},
        )

    return run


@pytest.fixture
def no_gpu(monkeypatch):
    """As on a machine without a GPU, whatever this one has: a kernel file is imported with the stand-in driver."""
    from irscope.nvidia.device import gpu_capability

    monkeypatch.setenv("IRSCOPE_NO_GPU", "1")
    gpu_capability.cache_clear()
    yield
    gpu_capability.cache_clear()


@pytest.fixture
def runtime(monkeypatch):
    """A private folder for resident GPU-worker parents (irscope/processes/resident.py), short because a socket's path
    is limited to ~104 bytes; the parents started there leave once their sockets are gone."""
    import shutil
    import tempfile

    from irscope.processes import resident

    root = Path(tempfile.mkdtemp(prefix="irs", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(root))
    monkeypatch.setenv(resident.KEEP_ENV, "30")
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    yield root / "irscope"
    for sock in (root / "irscope").glob("*.sock"):
        sock.unlink()
    _wait_for_parents_to_leave(root / "irscope")
    shutil.rmtree(root, ignore_errors=True)


def _wait_for_parents_to_leave(folder: Path, timeout: float = 10.0) -> None:
    """Until every resident parent of ``folder`` has left: each holds its ``<name>.lock`` locked for its
    whole life, and leaves within a second of its socket going (it checks once a second)."""
    import fcntl
    import time

    deadline = time.monotonic() + timeout
    for lock in folder.glob("*.lock"):
        with open(lock, "a") as held:
            while True:
                try:
                    fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        return
                    time.sleep(0.05)


@pytest.fixture(scope="session")
def triton_folders(once_per_run):
    """What Triton writes as a program compiles two kernels (tests/triton_folders.py), once per test run."""
    from triton_folders import triton_folders_in, write_triton_folders

    folder = once_per_run(f"triton-folders-{_triton_version()}", write_triton_folders)
    return triton_folders_in(folder)


def _triton_version() -> str:
    from importlib.metadata import version

    return version("triton")


@pytest.fixture(scope="session")
def triton_autotuning(once_per_run):
    """What Triton's autotuner writes and prints for a program (tests/triton_folders.py), once per test run."""
    from triton_folders import autotuning_in, write_autotuning

    return autotuning_in(once_per_run(f"triton-autotuning-{_triton_version()}", write_autotuning))
