"""The real `irscope tui square_kernel`, in a real terminal (tmux), read back from the screen."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def _screen(session: str) -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout


def _screen_until(session: str, shown, seconds: float = 10, gone: bool = False) -> str:
    """The screen once ``shown(screen)`` holds (polled), or as it is after ``seconds``; ``gone``: stop once
    the session has ended."""
    deadline = time.monotonic() + seconds
    while True:
        screen = _screen(session)
        if shown(screen) or time.monotonic() > deadline:
            return screen
        if gone and subprocess.run(["tmux", "has-session", "-t", session], capture_output=True).returncode:
            return screen
        time.sleep(0.05)


def test_irscope_tui_square_kernel_shows_the_variants_and_ptx(tmp_path):
    session = f"irscope-{uuid.uuid4().hex[:8]}"
    command = f"{sys.executable} -m irscope tui square_kernel"
    env = ["-e", f"IRSCOPE_CACHE_DIR={tmp_path}/cache", "-e", f"TRITON_CACHE_DIR={tmp_path}/triton"]
    for _ in range(3):  # a tmux server that is still going down refuses the first try
        if (
            subprocess.run(
                ["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "36", *env, command]
            ).returncode
            == 0
        ):
            break
        time.sleep(0.5)
    try:
        deadline = time.time() + 180
        screen = ""
        while time.time() < deadline and "21/21 variants" not in screen:
            time.sleep(0.5)
            screen = _screen(session)
        assert "BLOCK_SIZE" in screen and "num_warps" in screen, screen
        assert "21/21 variants" in screen, screen
        subprocess.run(["tmux", "send-keys", "-t", session, "5"], check=True)
        screen = _screen_until(session, lambda s: ".version" in s or ".target sm_90a" in s)
        assert ".version" in screen or ".target sm_90a" in screen, screen
        subprocess.run(["tmux", "send-keys", "-t", session, "6"], check=True)
        screen = _screen_until(session, lambda s: "//## File" in s or "LDC" in s)
        assert "//## File" in screen or "LDC" in screen
        subprocess.run(["tmux", "send-keys", "-t", session, "q"], check=True)
        _screen_until(session, lambda s: False, seconds=1, gone=True)  # q ends the TUI, and with it the session
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


@pytest.mark.parametrize("signame", ["HUP", "TERM"])
def test_a_stop_signal_ends_the_tui_in_its_loop_with_the_shells_status_however_early(tmp_path, signame):
    """A closed terminal (HUP) or a ``kill`` (TERM) ends the TUI as ``q`` does, then exits 128 + the signal,
    whenever it comes: while the app starts its threads or after the first paint. Raised into the main
    thread wherever it was, it once left an import lock held that the annotations' thread waited on: the
    app never ended, deaf to every later signal, at 90% of a core once its terminal was gone."""
    number = getattr(signal, f"SIG{signame}")
    sample = Path(__file__).resolve().parent.parent / "samples" / "sessions" / "square_kernel"
    for delay in (0.3, 0.6, None):  # None: once the table and the PTX are on screen
        session = f"irscope-{uuid.uuid4().hex[:8]}"
        status = tmp_path / f"status-{delay}"
        command = f"{sys.executable} -m irscope tui {sample}; echo $? > {status}; sleep 5"
        for _ in range(3):  # a tmux server that is still going down refuses the first try
            if (
                subprocess.run(
                    ["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "36", command]
                ).returncode
                == 0
            ):
                break
            time.sleep(0.5)
        try:
            if delay is None:
                _screen_until(session, lambda s: "BLOCK_SIZE" in s and ".version" in s, seconds=30)
            else:
                time.sleep(delay)
            pane = subprocess.run(
                ["tmux", "list-panes", "-t", session, "-F", "#{pane_pid}"], capture_output=True, text=True
            ).stdout.split()
            tui = subprocess.run(["pgrep", "-P", pane[0]], capture_output=True, text=True).stdout.split()
            assert tui, f"no irscope under the pane's shell (delay {delay})"
            os.kill(int(tui[0]), number)
            deadline = time.monotonic() + 20
            while not status.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert status.exists(), f"irscope tui still running 20 s after {signame} (delay {delay})"
            assert status.read_text().strip() == str(128 + number), (delay, _screen(session))
        finally:
            subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_a_terminal_that_goes_away_ends_the_tui_within_seconds_however_early(tmp_path):
    """tmux's kill-session closes the terminal (HUP, and every read and write after it fails): the TUI ends
    whenever it came, at the latest STOP_GRACE_S after (textual's own shutdown could block on writes to the
    closed terminal; before, the TUI was then left running for good, reading its input's end in a loop)."""
    from irscope.tui.app import STOP_GRACE_S

    sample = Path(__file__).resolve().parent.parent / "samples" / "sessions" / "square_kernel"
    for delay in (0.3, 0.35, 0.4, 0.6, None):  # None: once the table and the PTX are on screen
        session = f"irscope-{uuid.uuid4().hex[:8]}"
        for _ in range(3):
            if (
                subprocess.run(
                    ["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "36"]
                    + [sys.executable, "-m", "irscope", "tui", str(sample)]
                ).returncode
                == 0
            ):
                break
            time.sleep(0.5)
        if delay is None:
            _screen_until(session, lambda s: "BLOCK_SIZE" in s and ".version" in s, seconds=30)
        else:
            time.sleep(delay)
        pid = subprocess.run(
            ["tmux", "list-panes", "-t", session, "-F", "#{pane_pid}"], capture_output=True, text=True
        ).stdout.split()
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
        assert pid, f"no pane (delay {delay})"
        deadline = time.monotonic() + STOP_GRACE_S + 10
        while _running(int(pid[0])) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(int(pid[0])), f"irscope tui still running after its terminal went (delay {delay})"


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended and not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"
