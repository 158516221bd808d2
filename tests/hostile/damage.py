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


def square_with_passes(out: Path) -> Path:
    """A session of ``square_kernel`` BLOCK_SIZE=128 swept with ``--passes``: one variant and its pass log."""
    return record(out, "square_kernel", "-c", "BLOCK_SIZE=128", "-c", "num_warps=4", "--passes")


def stored_passes(session: Path) -> tuple[Path, dict]:
    """The folder of ``session``'s first variant and its pass log as stored (``passes.json.gz``)."""
    import gzip
    import json

    variant = next((session / "variants").iterdir())
    return variant, json.loads(gzip.decompress((variant / "passes.json.gz").read_bytes()))


def store_passes(variant: Path, text: str) -> Path:
    """``text`` as ``variant``'s pass log, gzipped, its checksum in ``variant.json`` kept true."""
    import gzip
    import json

    raw = gzip.compress(text.encode())
    path = variant / "passes.json.gz"
    path.write_bytes(raw)
    record = json.loads((variant / "variant.json").read_text())
    record["sha256"]["passes.json.gz"] = hashlib.sha256(raw).hexdigest()
    (variant / "variant.json").write_text(json.dumps(record))
    return path
