"""What the hostile tests share: a fingerprint of a directory, to prove a read changed nothing."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path


def fingerprint(root: Path) -> dict[str, str]:
    """Every entry under ``root`` (not following symlinks, never opening a FIFO or a device): its kind, and a file's hash.

    The session's ``.lock`` is left out: writers create it, and it holds nothing.
    """
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.name == ".lock":
            continue
        if path.is_symlink():
            out[rel] = "link:" + os.readlink(path)
        elif path.is_fifo():
            out[rel] = "fifo"
        elif path.is_char_device() or path.is_block_device() or path.is_socket():
            out[rel] = "special"  # never read: /dev/zero has no end
        elif path.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def copy_of(session: Path, tmp_path: Path) -> Path:
    """``tmp_path/session``: a test's own copy of a module's recorded session, its links kept as links."""
    copy = tmp_path / "session"
    shutil.copytree(session, copy, symlinks=True)
    return copy


def record(out: Path, *sweep_args: str) -> Path:
    """``irscope sweep *sweep_args -o out``, in-process: a real session to damage."""
    from click.testing import CliRunner

    from irscope.cli import main

    result = CliRunner().invoke(main, ["sweep", *sweep_args, "-o", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out
