"""A cache folder in use: compiles hold it (a shared lock on its ``.in-use`` file), and a trim leaves it alone.

Triton writes a compile's files into its cache folder one by one and, at the end, reads every one of them
back (``CompiledKernel`` reads each file its group names). A trim that renamed the entry away in between
failed the compile with FileNotFoundError: 1-2 of 21 variants of a sweep run beside ``irscope cache --clear``
in a loop (Triton 3.6-3.9). Renaming first is enough for irscope's own entries, which are written whole
and then renamed in; it is not for Triton's, so irscope's compiles say which folder of Triton's cache they
are writing, and a trim skips it until they are done (the next trim takes it).

Both sides are best effort in one direction only: a compile that cannot take the lock (a read-only cache,
a link or a FIFO planted at the lock's name) compiles unprotected rather than failing, and a trim treats a
lock file that is not a plain file as no lock (no writer could have taken it).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

IN_USE = ".in-use"  # hidden: cache listings skip names that start with a dot
WAIT_S = 5.0  # the longest a compile waits for a trim's removal of one entry


@contextlib.contextmanager
def holding(folder: Path) -> Iterator[None]:
    """Hold ``folder`` in use for the block; any number of holders at once. Waits out a trim removing
    from it now, for WAIT_S at most."""
    fd = None
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / IN_USE, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
        if not stat.S_ISREG(os.fstat(fd).st_mode) or not _shared(fd):
            os.close(fd)
            fd = None
    try:
        yield
    finally:
        if fd is not None:
            os.close(fd)


def _shared(fd: int) -> bool:
    """Take the lock shared, waiting out a trim (it holds it for one entry's removal); False after
    WAIT_S: whoever holds it that long (another user of a shared cache, a stopped trim) is not a trim
    at work, and the compile goes on unprotected rather than hang."""
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)


@contextlib.contextmanager
def unless_held(folder_fd: int) -> Iterator[bool]:
    """Yield True, holding the folder (a descriptor of it) against new holders for the block, when no
    one holds it in use; False while someone does."""
    try:
        fd = os.open(IN_USE, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder_fd)
    except OSError:  # no lock file (nothing ever held it), or a link there: no writer's
        yield True
        return
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
        yield True
    finally:
        os.close(fd)
