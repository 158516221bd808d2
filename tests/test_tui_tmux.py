"""The real `irscope tui square_kernel`, in a real terminal (tmux), read back from the screen."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid

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
