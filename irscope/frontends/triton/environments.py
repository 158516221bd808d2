"""A Triton other than the running one, for ``-c triton=3.8.0``: a private folder of it under irscope's cache.

A variant names the Triton that compiles it as a config option (``triton``); a version
other than the one imported here compiles in worker processes whose import path starts
with a folder holding only that Triton (``pip install --no-deps --target``: Triton
wheels depend on nothing irscope does not already have). Everything else (irscope,
torch, numpy) is the running environment's, so the two compiles differ in Triton alone.

The folders are ``$IRSCOPE_TRITONS/<version>`` if that is set (prepared by hand, say on a
machine without a package index), else ``<cache>/tritons/<version>``, made on first use
with pip from the user's own configured index (a progress line says so: a wheel is a
170-290 MB download, 0.6-1.0 GB installed as du counts it: 3.5.1 594 MB, 3.9.0 999 MB). A folder is complete or absent: pip writes into a temporary folder that is
renamed into place, under a lock, so two irscopes never install into one folder; a folder
irscope did not complete is someone else's, and is refused, never removed. What a killed
install left (its temporary folder) is removed by the next install of that version, and by
``irscope cache --trim``; its pip dies with it.

A private Triton is code: it is imported only from folders that no one but this user and root
can change (every folder from ``/`` down, and everything in the version's folder: no link, nothing
another user owns or may write), so a folder planted in a shared cache never runs. A version named
by data (a session's stored sweep request) is only ever used, never installed (``install=False``).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from ...errors import UsageError
from ...paths import TRITONS, cache_dir
from ...processes import own_python
from ...storage.files import TEMP_MARK, trusted_chain
from .options import check_triton_version

FOLDERS_ENV = "IRSCOPE_TRITONS"


def running_version() -> str:
    import triton

    return triton.__version__


def tritons_dir() -> Path:
    """Where the private Tritons live: ``$IRSCOPE_TRITONS``, else ``<cache>/tritons``."""
    root = os.environ.get(FOLDERS_ENV)
    return Path(root) if root else cache_dir() / TRITONS


def site_for(version: str, note: Callable[[str], None] | None = None, install: bool = True) -> str | None:
    """The folder to put first on a worker's import path for ``version``; None for the running Triton.

    Made on first use (pip, from the configured index) where ``install``; a version pip cannot
    find, or no index, is one line naming the folder to prepare by hand. ``install=False`` (the
    version came from data): a folder that is not there already is one line saying how to make it.
    """
    check_triton_version(version)
    if version == running_version():
        return None
    root = _trusted_root(install)
    folder = root / version
    if _complete(folder, version):
        return _trusted(folder)
    if not install:
        raise UsageError(
            f"triton {version} has no private copy here ({folder}), and irscope installs one only when you name "
            f"the version yourself (-c triton={version}), never because a session or trace does; or install it "
            f"with: pip install --no-deps --target {folder} triton=={version}"
        )
    with _install_lock(root, version):
        if _complete(folder, version):
            return _trusted(folder)
        if os.path.lexists(folder):
            # irscope's own installs are renamed into place whole, so this one is someone else's: never removed.
            raise UsageError(
                f"{folder} is there but holds no complete triton {version} (its package and "
                f"triton-{version}.dist-info); remove it, or finish it with "
                f"pip install --no-deps --target {folder} triton=={version}"
            )
        remove_leftovers(root, version)  # a killed install's: the lock says none is running
        (note or _stderr)(
            f"triton {version}: installing a private copy into {folder} (once; a 170-290 MB download, 0.6-1.0 GB on disk)"
        )
        temporary = root / f".{version}{TEMP_MARK}{os.getpid()}"
        try:
            proc = _pip(temporary, version)
            if proc.returncode != 0 or not _complete(temporary, version):
                last = (proc.stderr.strip().splitlines() or ["pip failed"])[-1]
                raise UsageError(
                    f"triton {version} could not be installed ({last}); install it by hand with "
                    f"pip install --no-deps --target {folder} triton=={version}"
                )
            os.replace(temporary, folder)
        finally:
            shutil.rmtree(temporary, ignore_errors=True)  # anything but a finished install (Ctrl-C, a failure)
    return _trusted(folder)


def _pip(target: Path, version: str) -> subprocess.CompletedProcess:
    """``pip install --no-deps --target target triton==version``, in a process group that dies with irscope
    (killed with KILL, irscope cleans up nothing itself: pip would go on for half a minute)."""
    pip = (
        "from irscope.processes.workers import die_with_parent; die_with_parent(); "
        "import runpy; sys.argv[0] = 'pip'; runpy.run_module('pip', run_name='__main__', alter_sys=True)"
    )
    args = ["install", "--quiet", "--disable-pip-version-check", "--no-deps", "--target", str(target)]
    return subprocess.run(
        own_python.command(pip, *args, f"triton=={version}"),
        env=own_python.environment(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        start_new_session=True,  # its own group, which die_with_parent kills
    )


def _trusted_root(create: bool) -> Path:
    """The private Tritons' folder, links resolved, if only this user and root can change it (and every folder
    above it); else one line (exit 2) naming it."""
    root = tritons_dir()
    if create:
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot make {root} for a private Triton: {exc.strerror or exc}") from None
    if not os.path.lexists(root):
        return root
    real = trusted_chain(root)
    if real is None:
        raise UsageError(
            f"{root} (or a folder above it) can be changed by another user: a private Triton is code, imported only "
            f"from folders that only you or root can change; set {FOLDERS_ENV} to such a folder"
        )
    return real


def _trusted(folder: Path) -> str:
    """``folder`` if everything in it is this user's or root's and no one else may change it; else exit 2."""
    me = os.getuid()
    stack = [str(folder)]
    while stack:
        here = stack.pop()
        with os.scandir(here) as entries:
            for entry in entries:
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISLNK(info.st_mode) or info.st_uid not in (me, 0) or info.st_mode & 0o022:
                    raise UsageError(
                        f"{entry.path} is a link, another user's, or writable by others: the private triton in "
                        f"{folder} is code, and is not imported; remove the folder and irscope installs it again"
                    )
                if stat.S_ISDIR(info.st_mode):
                    stack.append(entry.path)
    return str(folder)


class _install_lock:
    """``.<version>.lock`` beside the folders, held while a version is installed; a link, FIFO or folder
    there is refused (one line, exit 2), never followed or waited on."""

    def __init__(self, root: Path, version: str, wait: bool = True) -> None:
        self.path = root / f".{version}.lock"
        self.wait = wait
        self.fd: int | None = None

    def __enter__(self) -> bool:
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            self.fd = os.open(self.path, flags, 0o600)
        except OSError as exc:
            raise UsageError(f"{self.path} cannot be the install lock ({exc.strerror or exc}): remove it") from None
        if not stat.S_ISREG(os.fstat(self.fd).st_mode):
            raise UsageError(f"{self.path} is not a plain file, so it cannot be the install lock: remove it")
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX if self.wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # another irscope is installing this version
        return True

    def __exit__(self, *_: object) -> None:
        if self.fd is not None:
            os.close(self.fd)


def remove_leftovers(root: Path, version: str) -> int:
    """Remove the temporary folders of killed installs of ``version`` (call with its lock held); how many."""
    removed = 0
    prefix = f".{version}{TEMP_MARK}"
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.name.startswith(prefix) and entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed += 1
    return removed


def _complete(folder: Path, version: str) -> bool:
    """A folder holding exactly this Triton: its package and the dist-info pip wrote beside it (none a link)."""
    return not folder.is_symlink() and (
        (folder / "triton" / "__init__.py").is_file() and (folder / f"triton-{version}.dist-info").is_dir()
    )


def _stderr(line: str) -> None:
    print(f"irscope: {line}", file=sys.stderr, flush=True)
