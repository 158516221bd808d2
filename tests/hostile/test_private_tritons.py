"""A private Triton (``-c triton=X``, frontends/triton/environments.py) is code: only a folder no one else can change
is imported, data never has one installed, its lock is never followed or waited on, and a killed install leaves
neither pip nor its temporary folder behind.

Each planted Triton here is a canary: its ``triton/__init__.py`` creates a file when imported. Before these checks a
folder another user put in a shared cache ran on ``-c triton=3.8.0``; a session whose stored sweep request named
``triton=3.8.0`` started a 170-290 MB pip install on ``irscope sweep SESSION``; a link at ``tritons/.3.8.0.lock``
made its target outside the cache and a FIFO there hung the command; and a KILL mid-install left pip running and
its temporary folder for good.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import triton
from expect import one_line_error
from test_report import SESSION
from test_resident import _until

from irscope.errors import UsageError
from irscope.frontends.triton import environments
from irscope.frontends.triton.environments import site_for

OTHER = "3.8.0" if triton.__version__ != "3.8.0" else "3.7.1"
NOBODY = 65534


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "cache"
    root.mkdir()
    monkeypatch.setenv("IRSCOPE_CACHE_DIR", str(root))
    monkeypatch.delenv(environments.FOLDERS_ENV, raising=False)
    return root


def _plant(cache: Path, canary: Path) -> Path:
    """A complete-looking private Triton whose import creates ``canary``."""
    folder = cache / "tritons" / OTHER
    (folder / "triton").mkdir(parents=True)
    (folder / f"triton-{OTHER}.dist-info").mkdir()
    (folder / "triton" / "__init__.py").write_text(f"open({str(canary)!r}, 'w').write('ran')\n")
    return folder


@pytest.fixture
def index(monkeypatch):
    """A package index that takes connections and never answers: how many pip made, and pip kept waiting."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.setblocking(False)
    monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{server.getsockname()[1]}/simple")
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)  # not the machine's own index or extra indexes
    monkeypatch.setenv("PIP_NO_INPUT", "1")
    monkeypatch.setenv("PIP_TIMEOUT", "2")  # a pip that was started gives up soon (one that must not start: the test)
    monkeypatch.setenv("PIP_RETRIES", "0")
    held: list[socket.socket] = []

    def connections() -> int:
        while True:
            try:
                held.append(server.accept()[0])
            except BlockingIOError:
                return len(held)

    yield connections
    for conn in held:
        conn.close()
    server.close()


@pytest.mark.skipif(os.getuid() != 0, reason="plays another user: needs root to chown")
def test_a_triton_another_user_planted_in_a_shared_cache_never_runs(cache, tmp_path, run_irscope):
    canary = tmp_path / "canary"
    folder = _plant(cache, canary)
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, NOBODY, NOBODY)
    result = run_irscope("dump", "square_kernel", "-c", f"triton={OTHER}", "--arch", "sm_90", "--stage", "ttir")
    assert not canary.exists()
    assert result.returncode == 2 and "another user's" in result.stderr, result.stderr
    assert folder.exists()  # someone else's: refused, never removed


@pytest.mark.parametrize("where", ["package", "cache"])
def test_a_triton_others_may_write_to_never_runs(cache, tmp_path, where):
    canary = tmp_path / "canary"
    folder = _plant(cache, canary)
    (folder / "triton" if where == "package" else cache).chmod(0o777)  # anyone could have put code there
    with pytest.raises(UsageError, match="another user|writable by others"):
        site_for(OTHER)
    assert not canary.exists() and folder.exists()


def test_a_triton_holding_a_link_never_runs(cache, tmp_path):
    canary = tmp_path / "canary"
    folder = _plant(cache, canary)
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text("x = 1\n")
    (folder / "triton" / "language.py").symlink_to(elsewhere)
    with pytest.raises(UsageError, match="is a link"):
        site_for(OTHER)


def test_a_triton_of_the_users_own_is_used(cache, tmp_path):
    folder = _plant(cache, tmp_path / "canary")
    assert site_for(OTHER) == str(folder.resolve())  # the control: the same folder, the user's, is taken


def test_a_sessions_stored_request_never_installs_a_triton(cache, tmp_path, index, cli):
    session = tmp_path / "session"
    shutil.copytree(SESSION, session)
    data = json.loads((session / "session.json").read_text())
    data["request"] = {"sweep": {"triton": [OTHER]}, "fixed": {}, "arch": "sm_90"}
    (session / "session.json").write_text(json.dumps(data))
    before = (session / "session.json").read_text()
    result = cli("sweep", str(session))
    one_line_error(result, 2, f"triton {OTHER} has no private copy here", "never because a session")
    time.sleep(0.2)
    assert index() == 0  # pip never asked the index for anything
    assert not (cache / "tritons").exists() or not list((cache / "tritons").iterdir())
    assert (session / "session.json").read_text() == before


def test_a_sessions_stored_request_uses_a_triton_that_is_there(cache, tmp_path):
    folder = _plant(cache, tmp_path / "canary")
    assert site_for(OTHER, install=False) == str(folder.resolve())


def test_a_half_made_triton_is_refused_never_removed_or_made_again(cache, tmp_path, index):
    # irscope renames its installs into place whole, so a folder without dist-info is someone else's (issue 41,
    # point 14: the docs said it was made again).
    canary = tmp_path / "canary"
    folder = _plant(cache, canary)
    shutil.rmtree(folder / f"triton-{OTHER}.dist-info")
    with pytest.raises(UsageError, match=f"holds no complete triton {OTHER}.*pip install --no-deps --target"):
        site_for(OTHER)
    assert index() == 0  # no pip started
    assert (folder / "triton" / "__init__.py").exists() and not canary.exists()
    assert not list((cache / "tritons").glob(f".{OTHER}.irscope-tmp-*"))


@pytest.mark.parametrize("kind", ["link", "fifo", "folder"])
def test_the_install_lock_is_never_followed_or_waited_on(cache, tmp_path, kind):
    tritons = cache / "tritons"
    tritons.mkdir()
    lock = tritons / f".{OTHER}.lock"
    outside = tmp_path / "made-outside"
    if kind == "link":
        lock.symlink_to(outside)
    elif kind == "fifo":
        os.mkfifo(lock)
    else:
        lock.mkdir()
    code = f"from irscope.frontends.triton.environments import site_for; site_for({OTHER!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert not outside.exists()
    assert done.returncode != 0 and "install lock" in done.stderr, done.stderr
    assert not list(tritons.glob(f".{OTHER}.irscope-tmp-*"))  # nothing was installed


def _pips(marker: str) -> list[int]:
    """The pip processes whose command line names ``marker`` (their --target)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                args = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in args and b"pip" in args:
                found.append(int(proc.name))
    return found


def test_a_killed_install_leaves_no_pip_running_and_its_leftovers_are_removed(cache, index, monkeypatch):
    monkeypatch.setenv("PIP_TIMEOUT", "60")  # pip waits on the index that never answers until it is killed
    tritons = cache / "tritons"
    tritons.mkdir()
    leftover = tritons / f".{OTHER}.irscope-tmp-1"  # a full install a KILL left: 170-290 MB nothing removed
    (leftover / "triton").mkdir(parents=True)
    code = f"from irscope.frontends.triton.environments import site_for; site_for({OTHER!r})"
    installer = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE)
    marker = f".{OTHER}.irscope-tmp-{installer.pid}"
    try:
        assert _until(lambda: bool(_pips(marker)) and index() > 0, 60), "pip never started"
        removed = not leftover.exists()  # the install removed what a killed one left, under the lock
        pips = _pips(marker)
        installer.send_signal(signal.SIGKILL)
        installer.wait()
        assert _until(lambda: not any(_alive(p) for p in pips), 5)  # pip dies with irscope (before: ~30 s on)
        assert removed
    finally:
        installer.kill()
        for pid in _pips(marker):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def test_cache_trim_removes_a_killed_installs_leftovers_but_not_a_running_ones(cache, cli):
    tritons = cache / "tritons"
    (tritons / OTHER / "triton").mkdir(parents=True)  # a finished private Triton: never trimmed
    dead = tritons / f".{OTHER}.irscope-tmp-1"
    (dead / "triton").mkdir(parents=True)
    running = tritons / ".3.9.0.irscope-tmp-2"
    (running / "triton").mkdir(parents=True)
    held = os.open(tritons / ".3.9.0.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(held, fcntl.LOCK_EX)  # an install of 3.9.0 is running now
    try:
        result = cli("cache", "--trim", "0")
    finally:
        os.close(held)
    assert result.exit_code == 0, result.stderr
    assert not dead.exists() and running.exists() and (tritons / OTHER).exists()
