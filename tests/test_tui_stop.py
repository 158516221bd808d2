"""`irscope tui` told to stop from outside (irscope/tui/stopping.py): a real TUI in a real pseudo-terminal,
its exit status read from the process, its terminal's last bytes read from the terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import threading
import time
from pathlib import Path

import pytest

from irscope.tui.stopping import STOP_GRACE_S

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "sessions" / "square_kernel"
LEAVE_ALT_SCREEN = b"\x1b[?1049l"  # what a terminal textual drew on gets back when it is restored


class Terminal:
    """A program in a pseudo-terminal of 120 x 36 (its controlling terminal), everything it drew kept."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.pid, self.master = pty.fork()
        if self.pid == 0:  # the child: size the terminal, then become the program (never a second pytest)
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.output = bytearray()
        self.status: int | None = None
        self._hanging_up = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while not self._hanging_up.is_set():
            if not select.select([self.master], [], [], 0.05)[0]:
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.output += data

    def hang_up(self) -> None:
        """Close the terminal, as a window shut or an ssh connection lost does (the kernel then hangs up the
        program's side: HUP, and reads and writes fail). The reader stops first: a read in progress would
        keep the terminal open."""
        self._hanging_up.set()
        self._reader.join()
        os.close(self.master)
        self.master = -1

    def until_drawn(self, *texts: bytes, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while not all(t in self.output for t in texts):
            assert time.monotonic() < deadline and self.running(), bytes(self.output[-2000:])
            time.sleep(0.02)

    def running(self) -> bool:
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
        return self.status is None

    def wait(self, seconds: float) -> int | None:
        """The exit status (a signal that ended it: negative), or None if it still runs after ``seconds``;
        once it has ended, everything it wrote is in ``output``."""
        deadline = time.monotonic() + seconds
        while self.running() and time.monotonic() < deadline:
            time.sleep(0.02)
        if self.status is not None and self.master >= 0:
            self._reader.join(timeout=5)  # it ends on the terminal's end, after the last byte
        return self.status

    def close(self) -> None:
        if self.running():  # a test that failed leaves no TUI (nor its workers) spinning on CI's two cores
            os.killpg(self.pid, signal.SIGKILL)
            self.wait(10)
        self._hanging_up.set()
        self._reader.join()
        if self.master >= 0:
            os.close(self.master)


@pytest.fixture
def terminal(tmp_path):
    """Start ``irscope tui ARGS`` (or ``python -c CODE``) in its own terminal, its temporary folder and caches
    in ``tmp_path``; every one is killed at the end, however the test went."""
    started: list[Terminal] = []
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {
        **os.environ,
        "TMPDIR": str(temp),
        "IRSCOPE_CACHE_DIR": str(tmp_path / "cache"),
        "TRITON_CACHE_DIR": str(tmp_path / "triton"),
        "TERM": "xterm-256color",
    }

    def start(*args: str, code: str | None = None) -> Terminal:
        argv = [sys.executable, "-c", code] if code else [sys.executable, "-m", "irscope", "tui", *args]
        started.append(Terminal(argv, env))
        return started[-1]

    start.temp = temp  # where the tests look for leftovers
    yield start
    for each in started:
        each.close()


def leftovers(temp: Path) -> list[str]:
    """irscope's private temporary folders still in ``temp`` (each command removes its own as it ends)."""
    return [p.name for p in temp.iterdir() if p.name.startswith("irscope-")]


@pytest.mark.parametrize("signame", ["TERM", "HUP", "INT"])
def test_a_stop_signal_ends_the_tui_as_q_does_and_exits_as_the_shell_reports_it(terminal, signame):
    """kill's TERM, a HUP while the terminal is still there, an INT from outside (Ctrl-C is a key here):
    the screen is given back (the terminal leaves the alternate screen), the temporary folder removed, and
    the status 128 + the signal (Ctrl-C's 130 for INT)."""
    tui = terminal(str(SAMPLE))
    tui.until_drawn(b"BLOCK_SIZE", b".version")
    drawn = len(tui.output)
    os.kill(tui.pid, getattr(signal, f"SIG{signame}"))
    assert tui.wait(STOP_GRACE_S + 10) == 128 + getattr(signal, f"SIG{signame}"), bytes(tui.output[-500:])
    assert LEAVE_ALT_SCREEN in tui.output[drawn:]
    assert b"irscope: interrupted" in tui.output[drawn:]  # the command's own way out, not the grace's
    assert leftovers(terminal.temp) == []


def test_a_terminal_that_goes_away_ends_the_tui_whenever_it_goes(terminal):
    """The terminal closed under it (a window shut, an ssh connection gone: HUP, and every read and write
    after fails), as the TUI starts or after its first paint: it ends, within STOP_GRACE_S, and leaves no
    temporary folder."""
    for drawn_first in (False, True):
        for delay in (0.0, 0.2, 0.4) if not drawn_first else (0.0,):
            tui = terminal(str(SAMPLE))
            if drawn_first:
                tui.until_drawn(b"BLOCK_SIZE", b".version")
            else:
                tui.until_drawn(b"\x1b[", seconds=30)  # its first escape: Python and irscope are up
                time.sleep(delay)
            tui.hang_up()
            status = tui.wait(STOP_GRACE_S + 10)
            assert status == 128 + signal.SIGHUP, f"{status} (delay {delay}, drawn {drawn_first})"
            tui.close()
    assert leftovers(terminal.temp) == []


def test_a_stop_signal_mid_sweep_cancels_the_sweep_and_ends_at_once(terminal):
    """A sweep compiling in the background (an empty cache) stops with the app: the process ends the clean way
    (the command's own message and exit, its temporary folder removed), not after the sweep nor by the grace."""
    tui = terminal("square_kernel", "-s", "BLOCK_SIZE=128,256,512,1024,2048,4096,8192", "-s", "num_warps=1,2,4,8")
    tui.until_drawn(b"BLOCK_SIZE", b"escape cancels")
    os.kill(tui.pid, signal.SIGTERM)
    assert tui.wait(STOP_GRACE_S + 10) == 128 + signal.SIGTERM
    assert b"irscope: interrupted" in tui.output  # the command's own way out, not the grace's
    assert leftovers(terminal.temp) == []


def test_a_program_that_runs_the_app_itself_and_catches_the_interrupt_goes_on(terminal):
    """The app run from Python (not the command): an INT from outside ends the app and arrives as the
    KeyboardInterrupt the program expects once it has ended; nothing ends the program after it."""
    code = f"""
import sys, time
from irscope.tui.factory import make_app
try:
    make_app({str(SAMPLE)!r}).run()
except KeyboardInterrupt:
    print("caught", flush=True)
time.sleep({STOP_GRACE_S + 1})
print("still here", flush=True)
"""
    program = terminal(code=code)
    program.until_drawn(b"BLOCK_SIZE", b".version")
    os.kill(program.pid, signal.SIGINT)
    assert program.wait(STOP_GRACE_S + 15) == 0, bytes(program.output[-500:])
    assert b"caught" in program.output and b"still here" in program.output
