"""GPU workers forked from a parent kept between commands (irscope/resident.py), checked with CPU workers.

The parent is generic: it imports what it is told to preload (here tests/resident_marker.py stands in for
torch) and forks one worker per connection; tests/resident_worker.py reports which process it is.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from irscope import resident
from irscope.workers import WorkerPool

HERE = Path(__file__).parent
PRELOAD = ("resident_marker", "resident_marker:remember", "resident_marker:no_such_function")


def _pool(serve="flaky_worker:serve", timeout=20.0, preload=PRELOAD, **env):
    return WorkerPool(
        1,
        serve,
        lambda kind, message: ("failed", kind, message),
        timeout=timeout,
        env={"PYTHONPATH": os.pathsep.join([str(HERE), *sys.path]), **env},
        resident_preload=preload,
    )


def _run(jobs, **kwargs):
    pool = _pool(**kwargs)
    try:
        for tag, job in enumerate(jobs):
            pool.submit(tag, job)
        got: list = []
        while len(got) < len(jobs):
            got.extend(pool.results(timeout=60))
    finally:
        pool.close()
    return [answer for _, answer in sorted(got)], pool


def test_workers_of_two_commands_fork_from_one_parent_that_imported_the_preload(runtime):
    (first,), pool_a = _run(["who"])
    (second,), _ = _run(["who"])
    assert type(pool_a._processes[0]) is resident.ResidentWorker
    assert first["parent"] == second["parent"] != os.getpid()  # one parent, kept between the two
    assert first["pid"] != second["pid"]  # a fresh fork each time: nothing of one command reaches the next
    assert first["marker_imported_by"] == first["parent"]  # imported once, in the parent, before the fork
    assert first["marker_called_in"] == first["parent"]  # and its function called there (a missing one skipped)
    assert first["cwd"] == os.getcwd()


def test_a_fork_takes_the_commands_environment_and_another_environment_gets_another_parent(runtime, monkeypatch):
    monkeypatch.setenv("TMPDIR", "/tmp/not-the-parents")
    (a,), _ = _run(["who"], IRSCOPE_TEST_VALUE="one")
    (b,), _ = _run(["who"], IRSCOPE_TEST_VALUE="two")
    assert (a["env"], b["env"]) == ("one", "two")
    assert a["parent"] != b["parent"]  # torch and Triton read some variables on import: never shared across them
    assert a["tmpdir"] == "/tmp/not-the-parents"  # what differs per command is the command's own
    monkeypatch.setenv("TMPDIR", "/tmp/another-command")
    (c,), _ = _run(["who"], IRSCOPE_TEST_VALUE="one")
    assert c["parent"] == a["parent"] and c["tmpdir"] == "/tmp/another-command"


def test_a_crash_a_hang_and_an_abort_cost_their_own_job_as_with_any_worker(runtime):
    results, pool = _run(["ok", "crash", "ok", "hang", "ok", "abort", "ok"], serve="flaky_worker:serve", timeout=5)
    assert all(type(p) is resident.ResidentWorker for p in pool._processes)
    assert results[0] == ("done", "ok")
    assert results[1][:2] == ("failed", "crashed") and "exit 3" in results[1][2] and "about to crash" in results[1][2]
    assert results[3][:2] == ("failed", "timeout")
    assert results[5][:2] == ("failed", "crashed") and "signal 6" in results[5][2]
    assert results[2] == results[4] == results[6] == ("done", "ok")


def test_a_fork_ends_when_its_command_is_killed_even_mid_job(runtime):
    script = (
        "import sys, time; from irscope.workers import WorkerPool; "
        "pool = WorkerPool(1, 'flaky_worker:serve', lambda k, m: (k, m), "
        f"env={{'PYTHONPATH': {os.pathsep.join([str(HERE), *sys.path])!r}}}, resident_preload=('resident_marker',)); "
        "pool.submit(0, 'who'); pid = next(iter(pool.results(timeout=60)))[1]['pid']; "
        "print(pid, flush=True); pool.submit(1, 'hang'); time.sleep(3600)"
    )
    client = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=os.environ)
    try:
        pid = int(client.stdout.readline())
        time.sleep(0.5)  # the fork is in its hanging job now
        assert resident._alive(pid)
    finally:
        client.send_signal(signal.SIGKILL)
        client.wait()
    deadline = time.monotonic() + 10
    while resident._alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not resident._alive(pid)


def test_an_idle_parent_leaves_and_takes_its_socket_with_it(runtime, monkeypatch):
    monkeypatch.setenv(resident.KEEP_ENV, "1")
    (answer,), _ = _run(["who"])
    sockets = list(runtime.glob("*.sock"))
    assert len(sockets) == 1
    deadline = time.monotonic() + 15
    while resident._alive(answer["parent"]) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not resident._alive(answer["parent"]) and not sockets[0].exists()


def test_nothing_is_kept_where_it_is_turned_off(runtime, monkeypatch):
    for value in ("0", "soon", "-5"):
        monkeypatch.setenv(resident.KEEP_ENV, value)
        (answer,), pool = _run(["who"])
        assert type(pool._processes[0]) is subprocess.Popen and answer["parent"] == os.getpid()
    assert not runtime.exists() or not list(runtime.glob("*.sock"))
