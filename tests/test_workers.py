"""The worker pool survives workers that crash or hang: the job fails, the next one runs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

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


@pytest.mark.serial  # timed: close() within 3 s
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


def test_a_kept_pool_serves_call_after_call_from_one_worker_and_one_left_with_a_job_is_not_lent_again(monkeypatch):
    """``irscope inductor`` compiles each kernel of a log in a capture of its own through one KeptPoolExecutor:
    the calls share the worker; a call that returns with a job still out (a cancelled capture) closes the
    pool, so that job's answer reaches no later call; another environment is another pool."""
    from irscope.processes.executors.base import Work
    from irscope.processes.executors.local import KeptPoolExecutor

    monkeypatch.syspath_prepend(str(HERE))
    work = Work("flaky_worker:serve", run=print, result=(dict, tuple), failure=lambda kind, message: (kind, message))
    env = {"PYTHONPATH": os.pathsep.join([str(HERE), *sys.path])}
    executor = KeptPoolExecutor()

    def who(pool, tag=0):
        pool.submit(tag, "who")
        return _collect(pool, 1)[tag]

    try:
        first = executor.pool(work, 1, timeout=30, env=env)
        one = who(first)
        first.close()
        again = executor.pool(work, 1, timeout=30, env=env)
        assert who(again)["pid"] == one["pid"]  # the same worker, not a new one
        again.submit(1, "hang")
        again.close()  # returned with a job out: closed, its worker killed
        fresh = executor.pool(work, 1, timeout=30, env=env)
        answer = who(fresh, tag=2)
        assert answer["pid"] != one["pid"] and fresh.outstanding == 0
        other = executor.pool(work, 1, timeout=30, env={**env, "IRSCOPE_TEST_VALUE": "other"})
        moved = who(other)
        assert moved["env"] == "other" and moved["pid"] != answer["pid"]
    finally:
        executor.close()
    with pytest.raises(ProcessLookupError):  # close() killed and reaped the last worker
        os.kill(moved["pid"], 0)
