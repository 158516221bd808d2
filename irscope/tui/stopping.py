"""How the terminal UI ends when told to from outside: a stop signal (TERM, a closed terminal's HUP, an INT
sent by ``kill``: Ctrl-C is a key here) ends the app as ``q`` does, and the process within ``STOP_GRACE_S``
whatever the screen's library does.

Not the command's own handler (cli/__init__.py ``_stop_once``), which raises KeyboardInterrupt wherever the
main thread is: inside a running app that can land in an import one of the app's threads is also making,
leave that module's lock held, and the app's shutdown waiting for the thread forever. Here a signal is only
written down; a thread of this module's asks the app to end, in the app's own loop, and gives it
``STOP_GRACE_S``: textual's goodbye to a terminal that hung up can block for good (its writer thread dies on
the first write that fails, and the writes after it wait on its full queue), so a process still there then
ends without it. Once the app has ended, the signal goes to the handler there was before (the command's:
``irscope: interrupted``, exit 128 + the signal), where no thread of the app is at work. A signal already
ignored (``nohup``) stays ignored.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import stat
import threading
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import STOP_SIGNALS
from ..paths import private_temp_folder

# Seconds a stopped app has to end (textual ends in under a second, or never: see the module's text).
STOP_GRACE_S = 5.0


@contextlib.contextmanager
def stop_signals_end(stop: Callable[[int], None]) -> Iterator[list[int]]:
    """While inside: each stop signal not ignored calls ``stop(signum)`` from a thread of its own (once, for
    the first), and ends the process ``STOP_GRACE_S`` later unless the block has been left. Yields the
    signals caught; leaving delivers the first again to the handler there was before. Off the main thread
    (where Python runs no signal handler) it does nothing."""
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    previous = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    taken = [s for s, handler in previous.items() if handler is not signal.SIG_IGN and handler is not None]
    noted: list[int] = []  # by the Python handler: a signal whose byte the watch never read is not lost
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    ended = threading.Event()

    def note(signum: int, frame: Any) -> None:
        noted.append(signum)

    # The signal's number reaches the watch through the wakeup fd, written by Python's C-level handler in
    # whichever thread the kernel picked: a Python handler runs only when the main thread runs Python, and an
    # idle app's main thread waits in select() for as long as nothing else happens.
    for signum in taken:
        signal.signal(signum, note)
    wakeup = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    if noted:  # came before the wakeup fd was ours
        os.write(write_end, bytes(noted[:1]))
    watch = threading.Thread(
        target=_watch, args=(read_end, set(taken), stop, ended, caught, wakeup), name="irscope-stop", daemon=True
    )
    watch.start()
    try:
        yield caught
    finally:
        ended.set()
        signal.set_wakeup_fd(wakeup)
        for signum in taken:
            signal.signal(signum, previous[signum])
        os.close(write_end)  # the watch ends
        watch.join(timeout=1)
        if not watch.is_alive():
            os.close(read_end)
        first = caught[:1] or noted[:1]
        if first:  # to the handler there was before, now that the app has ended
            signal.raise_signal(first[0])


def _watch(
    read_end: int,
    stops: set[int],
    stop: Callable[[int], None],
    ended: threading.Event,
    caught: list[int],
    passed_on: int,
) -> None:
    """Wait for a stop signal's number, then end the app, then the process if the app has not ended
    ``STOP_GRACE_S`` later. Other signals' numbers (textual's SIGWINCH, say) go on to the wakeup fd there was
    before, if any."""
    while True:
        data = os.read(read_end, 64)
        if not data or ended.is_set():
            return
        signum = next((n for n in data if n in stops), None)
        if signum is not None:
            break
        if passed_on >= 0:
            with contextlib.suppress(OSError):
                os.write(passed_on, bytes(n for n in data if n not in stops))
    caught.append(signum)
    try:
        if signum == signal.SIGHUP:
            let_a_hung_up_terminal_go()
        stop(signum)
    finally:  # whatever failed above, the process still ends
        if not ended.wait(STOP_GRACE_S):
            _remove_private_temp_folder()
            os._exit(128 + signum)


def let_a_hung_up_terminal_go() -> None:
    """Point stdin, stdout and stderr at /dev/null where they are the terminal textual draws on (stderr) and it
    has hung up: it takes no more writes and gives no more reads (textual's input thread would read its end
    in a loop). A HUP sent to a TUI whose terminal is still there (``kill -HUP``) leaves it as it is, so
    textual restores it on the way out."""
    try:
        terminal = os.fstat(2)
    except OSError:
        return
    if not stat.S_ISCHR(terminal.st_mode):
        return
    try:
        os.write(2, b"")
        return  # still there
    except OSError as exc:
        if exc.errno not in (errno.EIO, errno.ENXIO):
            return
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in (0, 1, 2):
            with contextlib.suppress(OSError):
                info = os.fstat(fd)
                if stat.S_ISCHR(info.st_mode) and info.st_rdev == terminal.st_rdev:
                    os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _remove_private_temp_folder() -> None:
    """What the command's own exit would have removed: the private temporary folder it made (paths.py)."""
    folder = private_temp_folder()
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
