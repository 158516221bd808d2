"""The resident parent's socket (irscope/processes/resident.py) is a new way into irscope's processes: only this user
gets in, junk on it ends at most one fork, and a folder others could touch is never used."""

from __future__ import annotations

import os
import pickle
import socket
import struct
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from irscope.processes import resident
from irscope.processes.workers import WorkerPool

TESTS = Path(__file__).resolve().parent.parent
PRELOAD = ("resident_marker",)


def _who():
    pool = WorkerPool(
        1,
        "flaky_worker:serve",
        lambda kind, message: ("failed", kind, message),
        timeout=20,
        env={"PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])},
        resident_preload=PRELOAD,
    )
    try:
        pool.submit(0, "who")
        (_, answer), *_ = list(pool.results(timeout=60))
    finally:
        pool.close()
    return answer, type(pool._processes[0])


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722])
def test_a_folder_others_can_write_is_never_used_and_the_job_still_runs(runtime, mode):
    runtime.mkdir(parents=True)
    runtime.chmod(mode)
    answer, kind = _who()
    assert kind is subprocess.Popen and answer["parent"] == os.getpid()
    assert not list(runtime.iterdir())  # no socket, lock or log was made there


def test_a_folder_that_is_a_link_is_never_used(runtime, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    runtime.parent.mkdir(exist_ok=True)
    runtime.symlink_to(elsewhere)
    answer, kind = _who()
    assert kind is subprocess.Popen and not list(elsewhere.iterdir())


def _socket(runtime) -> Path:
    _who()  # a parent is listening now
    (path,) = runtime.glob("*.sock")
    return path


def _raw(path: Path, data: bytes, fds: list[int] | None = None) -> bytes:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(15)
    sock.connect(str(path))
    if fds is not None:
        socket.send_fds(sock, [b"E"], fds)
    try:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        return sock.recv(64)
    except (ConnectionResetError, BrokenPipeError):
        return b""  # the fork gave up on the junk before reading all of it
    finally:
        sock.close()


@pytest.mark.parametrize(
    "junk,with_fd",
    [
        (b"\x00" * 1000, False),  # no stderr sent
        (struct.pack("!I", 0xFFFFFFFF) + b"x" * 100, True),  # claims a 4 GB hello
        (struct.pack("!I", 5) + b"junk!", True),  # not a pickle
        (struct.pack("!I", 30) + pickle.dumps({"serve": "not a name"})[:30], True),
        (b"", False),  # connects and hangs up
    ],
    ids=["no-stderr", "4GB-hello", "not-a-pickle", "cut-pickle", "hang-up"],
)
def test_junk_on_the_socket_ends_at_most_its_own_fork_and_the_parent_serves_on(runtime, junk, with_fd):
    path = _socket(runtime)
    before, _ = _who()
    with tempfile.TemporaryFile() as errors:
        _raw(path, junk, [errors.fileno()] if with_fd else None)
    after, kind = _who()
    assert kind is resident.ResidentWorker and after["parent"] == before["parent"]


def test_a_hello_naming_a_serve_that_is_not_a_function_name_runs_nothing(runtime, tmp_path):
    path = _socket(runtime)
    marker = tmp_path / "ran"
    hello = pickle.dumps({"serve": f"os:system('touch {marker}')", "env": dict(os.environ), "cwd": "/"})
    with tempfile.TemporaryFile() as errors:
        _raw(path, struct.pack("!I", len(hello)) + hello, [errors.fileno()])
    time.sleep(0.5)
    assert not marker.exists()


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to connect as another user")
def test_another_user_is_refused_even_where_the_socket_lets_them_connect(runtime):
    path = _socket(runtime)
    runtime.chmod(0o711)  # still private (no one else may write), now reachable
    runtime.parent.chmod(0o711)
    path.chmod(0o666)
    code = textwrap.dedent(
        """
        import os, socket, sys
        os.setgid(65534)
        os.setuid(65534)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(sys.argv[1])
        try:
            socket.send_fds(s, [b"E"], [2])
            s.sendall(b"\\x00\\x00\\x00\\x01x")
            print(repr(s.recv(64)))
        except (BrokenPipeError, ConnectionResetError):
            print("refused")
        """
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr  # it connected: the socket's mode let it
    assert done.stdout.strip() in ("refused", "b''")  # closed without a fork: no pid came back
    runtime.chmod(0o700)
    path.chmod(0o600)
    _, kind = _who()
    assert kind is resident.ResidentWorker


@pytest.mark.parametrize(
    "name,preload",
    [("../../../tmp/x", ""), ("0" * 24, "os;import sys"), ("zz" * 12, "json")],
    ids=["path", "module", "hex"],
)
def test_a_parent_started_with_bad_arguments_binds_nothing(runtime, name, preload):
    runtime.mkdir(parents=True, mode=0o700)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from irscope.processes.resident import serve_parent; serve_parent()",
            name,
            "5",
            preload,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr
    assert not list(runtime.iterdir())
