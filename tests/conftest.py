"""Shared fixtures: a private irscope cache per test session, and a CLI runner.

Tests compile real kernels with the real Triton; the cache keeps a session's
repeated captures of one variant from compiling twice.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory):
    root = tmp_path_factory.mktemp("irscope-cache")
    old = os.environ.get("IRSCOPE_CACHE_DIR")
    os.environ["IRSCOPE_CACHE_DIR"] = str(root)
    yield root
    if old is None:
        os.environ.pop("IRSCOPE_CACHE_DIR", None)
    else:
        os.environ["IRSCOPE_CACHE_DIR"] = old


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
    import time

    from irscope.processes import resident

    root = Path(tempfile.mkdtemp(prefix="irs", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(root))
    monkeypatch.setenv(resident.KEEP_ENV, "30")
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    yield root / "irscope"
    for sock in (root / "irscope").glob("*.sock"):
        sock.unlink()
    time.sleep(1.5)  # a parent checks its socket every second
    shutil.rmtree(root, ignore_errors=True)
