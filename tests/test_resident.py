"""GPU workers forked from a parent kept between commands (irscope/processes/resident.py), checked with CPU workers.

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

import pytest

from irscope.processes import resident
from irscope.processes.workers import WorkerPool

HERE = Path(__file__).parent
PRELOAD = ("resident_marker", "resident_marker:remember", "resident_marker:no_such_function")


def _pool(serve="flaky_worker:serve", timeout=20.0, preload=PRELOAD, workers=1, **env):
    return WorkerPool(
        workers,
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
        "import sys, time; from irscope.processes.workers import WorkerPool; "
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


@pytest.mark.serial  # timed: close() within 0.5 s
def test_closing_kills_the_forks_without_waiting_for_their_parent_to_say_how_they_ended(runtime):
    pool = _pool(workers=2)
    stopped = took = None
    try:
        pool.submit(0, "who")
        pool.submit(1, "who")
        answers: list = []
        deadline = time.monotonic() + 120
        while len(answers) < 2 and time.monotonic() < deadline:
            answers.extend(answer for _, answer in pool.results(timeout=10))
        assert len(answers) == 2, answers
        answer = answers[0]
        # Both from forks of one parent, not this process: a worker of the pool's own (no parent reached in
        # CONNECT_WAIT_S) would make the SIGSTOP below stop the test itself, a hang rather than a failure.
        assert [type(p) for p in pool._processes] == [resident.ResidentWorker] * 2, answers
        assert answers[1]["parent"] == answer["parent"] != os.getpid(), answers
        # A stopped parent reaps nothing and writes no status: the fork stays a zombie. Before, close
        # waited a second for that status; a GPU worker's CUDA teardown cost every bench up to 1 s so.
        os.kill(answer["parent"], signal.SIGSTOP)
        stopped = answer["parent"]
        # and one fork ended already (as a GPU worker does, once its connection closes), its status unwritten
        os.kill(answers[1]["pid"], signal.SIGKILL)
        _wait_until_gone(answers[1]["pid"])
        start = time.monotonic()
        pool.close()
        took = time.monotonic() - start
        # it read no status (none could be written) and waited for none: how each ended is the parent's to know
        assert [p.returncode for p in pool._processes] == [None, None]
    finally:
        if stopped is not None:
            os.kill(stopped, signal.SIGCONT)
        if took is None:
            pool.close()  # a failure above must not leave the forks (and so their parent) running
    assert took < 0.5, f"close took {took:.3f} s"
    # killed all the same (the other fork was seen dead before close: its pid may be another process's by now)
    _wait_until_gone(answer["pid"])
    (again,), _ = _run(["who"])  # and the parent serves the next command
    logs = {p.name: p.read_text(errors="replace")[-1500:] for p in runtime.glob("*.log")}
    assert again["parent"] == answer["parent"], (again, answer, _state(answer["parent"]), logs)


def _wait_until_gone(pid: int) -> None:
    """Fails unless ``pid`` ends within a minute (its fork killed). A minute, not 10 s: in CI-like runs (the serial
    group of a whole .ci/test) this test failed 2 times in 2, and once in 14 runs of the group alone, with
    the fork still "alive" after 10 s and gone once the message was read (2026-12-06); alone it always
    passed. The wait is not what is tested (close's speed is), so it may be long; a failure says what each
    look at the process saw, first and last."""
    seen: list[tuple[float, str, str]] = []

    def look() -> bool:
        try:
            os.kill(pid, 0)
            signalled = "kill 0: ok"
        except OSError as exc:
            signalled = f"kill 0: {type(exc).__name__}"
        seen.append((round(time.monotonic(), 2), signalled, _state(pid)[:90]))
        return not resident._alive(pid)

    assert _until(look, seconds=60), f"{len(seen)} looks, first {seen[:2]}, last {seen[-2:]}, now {_state(pid)}"


def _state(pid: int) -> str:
    """What /proc says of ``pid`` (for a failure's message): its stat line, or that there is none."""
    try:
        return Path(f"/proc/{pid}/stat").read_text()[:200]
    except OSError as exc:
        return f"no /proc/{pid}/stat: {exc}"


def test_a_status_is_kept_until_read_unless_its_client_let_go_and_a_new_fork_never_reads_an_old_one(runtime):
    status = runtime / "status"
    # Closing lets go of the forks: their parent keeps no status for them (nobody would read it).
    (answer,), _ = _run(["who"])
    assert _until(lambda: not resident._alive(answer["pid"]))
    assert _until(lambda: not list(status.iterdir()))
    # A fork that dies while its client still holds it: its status waits for the client, however long.
    pool = _pool()
    try:
        pool.submit(0, "who")
        ((_, held),) = list(pool.results(timeout=60))
        os.kill(held["pid"], signal.SIGKILL)
        assert _until(lambda: (status / str(held["pid"])).exists())
        time.sleep(2.5)  # two of the idle parent's ticks, where it removes what was let go of
        assert (status / str(held["pid"])).exists()
        assert pool._processes[0].poll() == -signal.SIGKILL  # read, then gone
        assert not (status / str(held["pid"])).exists()
    finally:
        pool.close()
    # A fork's status is cleared when it is forked: a pid used again never inherits an earlier status.
    (answer,), _ = _run(["who"])
    stale = status / str(answer["pid"] + 1)
    stale.write_text("-9")  # as if left there by an earlier process of the pid the next fork gets
    pool = _pool()
    try:
        pool.submit(0, "who")
        ((_, second),) = list(pool.results(timeout=60))
        if second["pid"] == answer["pid"] + 1:  # the usual case; another process may take that pid first
            assert not stale.exists() or stale.read_text() != "-9"
        assert pool._processes[0].poll() is None  # alive, whatever statuses lie there
    finally:
        pool.close()


def _keepers(runtime: Path) -> dict[int, str]:
    """The driver keepers of parents in ``runtime``: pid -> the lock it holds (from its command line)."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        locks = [a.decode() for a in args if a.startswith(str(runtime).encode()) and b".driver-" in a]
        if locks and resident._alive(int(proc.name)):
            found[int(proc.name)] = locks[0]
    return found


def _until(condition, seconds=10.0):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


def test_forks_given_a_gpu_keep_its_driver_started_in_one_keeper_per_gpu_that_leaves_with_the_parent(runtime):
    (a,), _ = _run(["who"], CUDA_VISIBLE_DEVICES="0")
    (b,), _ = _run(["who"], CUDA_VISIBLE_DEVICES="0")
    (c,), _ = _run(["who"], CUDA_VISIBLE_DEVICES="1")
    (d,), _ = _run(["who"], CUDA_VISIBLE_DEVICES="../../elsewhere")  # not a GPU name: no keeper, no file
    assert a["parent"] == b["parent"] == c["parent"] == d["parent"]  # the GPU is the command's, not the parent's
    assert _until(lambda: len(_keepers(runtime)) == 2)
    keepers = _keepers(runtime)
    assert len(set(keepers.values())) == 2  # one per GPU, however many forks used it
    assert all(Path(lock).parent == runtime for lock in keepers.values())
    assert not list(runtime.parent.glob("elsewhere*")) and len(list(runtime.glob("*.driver-*.lock"))) == 2
    for pid in keepers:
        assert os.getsid(pid) != os.getsid(a["parent"])  # its own session: no fork's end takes it along
        assert os.readlink(f"/proc/{pid}/cwd") == "/"  # holds no command's folder
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert all(v.startswith((b"CUDA_", b"NVIDIA_", b"LD_LIBRARY_PATH=")) for v in environ if v)
    for sock in runtime.glob("*.sock"):
        sock.unlink()  # the parent leaves within a second, and with it the keepers
    assert _until(lambda: not _keepers(runtime))
    assert _until(lambda: not list(runtime.glob("*.driver-*.lock")))


def test_a_keeper_leaves_when_its_parent_is_killed_outright(runtime):
    (answer,), _ = _run(["who"], CUDA_VISIBLE_DEVICES="3")
    assert _until(lambda: len(_keepers(runtime)) == 1)
    os.kill(answer["parent"], signal.SIGKILL)  # no idle exit, no cleanup: only its end of the lifeline closes
    assert _until(lambda: not _keepers(runtime))
