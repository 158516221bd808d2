"""The resident parent's folder (irscope/processes/resident.py) and the files in it are never written through a link,
nor kept where another user could rename them; a parent serves only code that is on disk now; a fork's exit status
outlives its parent's idle time.

Run as root with another user's ``XDG_RUNTIME_DIR`` (``su`` without ``-``, ``sudo -E``), that user could rename root's
``irscope/`` folder, put a folder of their own in its place with a link to the parent's socket (which kept the
parent's check of its socket passing) and a ``status`` link to any folder: root's parent then wrote each fork's exit
status there. Each test below plays that user (a folder chowned to ``nobody``, skipped unless root) or plants the link
the parent would have written through, with a victim file or folder that must stay as it was.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from test_resident import _pool, _until
from test_resident import _run as _run_pool

from irscope.processes import resident

NOBODY = 65534
root_only = pytest.mark.skipif(os.getuid() != 0, reason="plays another user: needs root to chown")


def _run(jobs, preload=("resident_marker",), **env):
    """The answers, and the kind of the last worker that gave one."""
    answers, pool = _run_pool(jobs, preload=preload, **env)
    return answers, type(pool._processes[-1])


def _stop_parent(runtime: Path, parent: int) -> None:
    for sock in runtime.glob("*.sock"):
        sock.unlink()
    assert _until(lambda: not resident._alive(parent))


@root_only
def test_another_users_runtime_folder_keeps_no_parent_and_nothing_is_written_through_it(runtime, tmp_path):
    foreign = runtime.parent
    os.chown(foreign, NOBODY, NOBODY)  # XDG_RUNTIME_DIR is that user's: they may rename anything in it
    victim = tmp_path / "victim"
    victim.write_text("precious")  # root's file
    pool = _pool(preload=("resident_marker",))
    try:
        pool.submit(0, "who")
        ((_, who),) = list(pool.results(timeout=60))
        if runtime.exists():  # a parent serves from that user's folder: what the user does to it while a job runs
            (name,) = [p.name.removesuffix(".sock") for p in runtime.glob("*.sock")]
            runtime.rename(foreign / "old")
            (runtime / "status").mkdir(parents=True)
            (runtime / f"{name}.sock").symlink_to(foreign / "old" / f"{name}.sock")  # the parent's check still passes
            (runtime / "status" / str(who["pid"])).symlink_to(victim)
            for made in (runtime, runtime / "status"):
                os.chown(made, NOBODY, NOBODY)
        pool.submit(1, ("crash-after", 0.5))  # the command's job ends; its parent writes how
        ((_, crashed),) = list(pool.results(timeout=60))
        kind = type(pool._processes[-1])
    finally:
        pool.close()
    assert crashed[:2] == ("failed", "crashed")
    time.sleep(0.5)  # a parent writes a status as soon as it reaps its fork
    assert victim.read_text() == "precious"
    assert kind is subprocess.Popen and who["parent"] == os.getpid()  # no parent: a worker of the command's own
    assert not (foreign / "old").exists() and not runtime.exists()  # nothing was made in that user's folder


@pytest.fixture
def noisy(tmp_path, monkeypatch) -> str:
    """A preload that writes to the parent's stderr (its log) when imported."""
    site = tmp_path / "noisy-site"
    site.mkdir()
    (site / "noisy_marker.py").write_text("import sys\nsys.stderr.write('the parent wrote this\\n')\n")
    monkeypatch.syspath_prepend(str(site))
    return str(site)


@pytest.mark.parametrize("what", ["status", "log", "lock"])
def test_a_link_where_the_parent_keeps_a_file_is_never_written_through(runtime, tmp_path, noisy, what):
    (first,), kind = _run(["who"], preload=("noisy_marker",))
    assert kind is resident.ResidentWorker
    name = next(runtime.glob("*.sock")).name.removesuffix(".sock")
    _stop_parent(runtime, first["parent"])
    victim = tmp_path / "victim"
    victim.write_text("precious")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if what == "status":
        (runtime / "status").rename(tmp_path / "old-status")
        (runtime / "status").symlink_to(elsewhere)
    elif what == "log":
        (runtime / f"{name}.log").unlink()
        (runtime / f"{name}.log").symlink_to(victim)
    else:
        (runtime / f"{name}.lock").unlink()
        (runtime / f"{name}.lock").symlink_to(elsewhere / "made-by-the-parent")
    untouched = elsewhere.stat().st_mtime_ns  # a file made there and removed again still changes it
    answers, kind = _run(["who", "crash"], preload=("noisy_marker",))
    assert answers[0]["pid"] and answers[1][:2] == ("failed", "crashed")  # the jobs ran all the same
    time.sleep(0.3)  # a parent writes a status as soon as it reaps its fork
    assert victim.read_text() == "precious"
    assert not list(elsewhere.iterdir()) and elsewhere.stat().st_mtime_ns == untouched
    assert kind is subprocess.Popen  # that folder or file is not the parent's own: no parent was used


def test_a_keeper_lock_that_is_a_link_starts_no_keeper_and_creates_nothing(runtime, tmp_path):
    gpu = {"CUDA_VISIBLE_DEVICES": "7"}
    (first,), _ = _run(["who"], **gpu)
    name = next(runtime.glob("*.sock")).name.removesuffix(".sock")
    keeper = next(runtime.glob(f"{name}.driver-*.lock"))  # the keeper GPU 7's first fork started
    _stop_parent(runtime, first["parent"])
    assert _until(lambda: not keeper.exists())  # the parent took its keepers' locks with it
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    keeper.symlink_to(elsewhere / "made-by-a-keeper")
    (answer,), kind = _run(["who"], **gpu)
    assert kind is resident.ResidentWorker and answer["parent"] != first["parent"]
    time.sleep(0.5)  # a keeper opens its lock at once
    assert not list(elsewhere.iterdir())


def test_a_forks_exit_status_outlives_its_parents_idle_time_and_the_fork_holds_no_parent_lock(runtime, monkeypatch):
    monkeypatch.setenv(resident.KEEP_ENV, "1")
    pool = _pool(preload=("resident_marker",))
    try:
        pool.submit(0, "who")
        ((_, who),) = list(pool.results(timeout=60))
        lock = next(runtime.glob("*.lock"))
        held = {os.path.realpath(f"/proc/{who['pid']}/fd/{fd}") for fd in os.listdir(f"/proc/{who['pid']}/fd")}
        pool.submit(1, ("crash-after", 2.5))  # the parent's idle time (1 s) passes while it runs
        ((_, answer),) = list(pool.results(timeout=60))
    finally:
        pool.close()
    assert answer[:2] == ("failed", "crashed") and "exit 3" in answer[2], answer  # not "signal 9": the status came
    assert str(lock.resolve()) not in held  # else no new parent could start while this fork runs


def test_a_parent_is_not_reused_once_a_package_it_preloaded_is_installed_again(runtime, tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    module = site / "upgraded_marker.py"
    module.write_text("import os\nIMPORTED_BY = os.getpid()\nVERSION = 1\n")
    monkeypatch.syspath_prepend(str(site))
    (before,), _ = _run(["who"], preload=("upgraded_marker",))
    upgrade = site / "upgraded_marker.py.new"
    upgrade.write_text("import os\nIMPORTED_BY = os.getpid()\nVERSION = 2\n")
    os.replace(upgrade, module)  # as pip does: a new file in its place
    (after,), kind = _run(["who"], preload=("upgraded_marker",))
    assert kind is resident.ResidentWorker and after["parent"] != before["parent"]


def test_a_parents_identity_covers_all_of_irscope_not_only_its_own_folder():
    import irscope.types

    env = {"A": "1"}
    before = resident.identity(env, ("resident_marker",))
    path = Path(irscope.types.__file__)
    info = path.stat()
    try:
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))
        assert resident.identity(env, ("resident_marker",)) != before
    finally:
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
