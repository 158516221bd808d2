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
        time.sleep(0.5)
        screen = _screen(session)
        assert ".version" in screen or ".target sm_90a" in screen, screen
        subprocess.run(["tmux", "send-keys", "-t", session, "6"], check=True)
        time.sleep(1)
        assert "//## File" in _screen(session) or "LDC" in _screen(session)
        subprocess.run(["tmux", "send-keys", "-t", session, "q"], check=True)
        time.sleep(1)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
