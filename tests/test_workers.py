"""The worker pool survives workers that crash or hang: the job fails, the next one runs."""

from __future__ import annotations

import sys
from pathlib import Path

from irscope.workers import WorkerPool

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
