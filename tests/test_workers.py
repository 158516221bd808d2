"""The worker pool survives workers that crash or hang: the job fails, the next one runs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from irscope.processes.workers import WorkerPool

HERE = Path(__file__).parent


def _collect(pool, n, timeout=60):
    got = []
    while len(got) < n:
        got.extend(pool.results(timeout=timeout))
    return dict(got)


def test_a_crashing_or_hanging_worker_fails_only_its_job(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    pool = WorkerPool(
        1,
        "flaky_worker:serve",
        lambda kind, message: ("failed", kind, message),
        timeout=5,
        env={"PYTHONPATH": str(HERE) + ":" + ":".join(sys.path)},
    )
    try:
        for tag, job in enumerate(["ok", "crash", "ok", "hang", "ok", "abort", "ok"]):
            pool.submit(tag, job)
        results = _collect(pool, 7)
    finally:
        pool.close()
    assert results[0] == ("done", "ok")
    assert results[1][:2] == ("failed", "crashed") and "exit 3" in results[1][2] and "about to crash" in results[1][2]
    assert results[2] == ("done", "ok")
    assert results[3][:2] == ("failed", "timeout")
    assert results[4] == ("done", "ok")
    assert results[5][:2] == ("failed", "crashed") and "signal 6" in results[5][2]
    assert results[6] == ("done", "ok")


def test_a_worker_that_starts_after_close_is_killed_and_close_waits_for_none(monkeypatch):
    """close() can come while a worker is still starting (an early error, Ctrl-C): the worker started after
    close() killed the others is killed too, not left running while close waits for it."""
    import subprocess
    import time

    from irscope.processes import resident

    monkeypatch.setenv(resident.KEEP_ENV, "0")  # a process of the pool's own
    pool = WorkerPool(
        1,
        "flaky_worker:serve",
        lambda kind, message: ("failed", kind, message),
        timeout=20,
        env={"PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), *sys.path])},
    )
    spawn = pool._spawn

    def slow_spawn(k):
        time.sleep(1.0)  # close() runs meanwhile
        return spawn(k)

    pool._spawn = slow_spawn
    pool.submit(0, "ok")
    time.sleep(0.3)
    start = time.monotonic()
    pool.close()
    took = time.monotonic() - start
    assert took < 3.0  # the rest of its start-up (0.7 s), not its job nor close's 5 s wait
    (proc,) = pool._processes
    assert type(proc) is subprocess.Popen and proc.poll() is not None
