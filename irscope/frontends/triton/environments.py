"""A Triton other than the running one, for ``-c triton=3.8.0``: a private folder of it under irscope's cache.

A variant names the Triton that compiles it as a config option (``triton``); a version
other than the one imported here compiles in worker processes whose import path starts
with a folder holding only that Triton (``pip install --no-deps --target``: Triton
wheels depend on nothing irscope does not already have). Everything else (irscope,
torch, numpy) is the running environment's, so the two compiles differ in Triton alone.

The folders are ``$IRSCOPE_TRITONS/<version>`` if that is set (prepared by hand, say on a
machine without a package index), else ``<cache>/tritons/<version>``, made on first use
with pip from the user's own configured index (a progress line says so: a wheel is
170-290 MB). A folder is complete or absent: pip writes into a temporary folder that is
renamed into place, under a lock, so two irscopes never install into one folder; a folder
irscope did not complete is someone else's, and is refused, never removed.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from ...errors import UsageError
from ...paths import TRITONS, cache_dir
from .options import check_triton_version

FOLDERS_ENV = "IRSCOPE_TRITONS"


def running_version() -> str:
    import triton

    return triton.__version__


def tritons_dir() -> Path:
    """Where the private Tritons live: ``$IRSCOPE_TRITONS``, else ``<cache>/tritons``."""
    root = os.environ.get(FOLDERS_ENV)
    return Path(root) if root else cache_dir() / TRITONS


def site_for(version: str, note: Callable[[str], None] | None = None) -> str | None:
    """The folder to put first on a worker's import path for ``version``; None for the running Triton.

    Made on first use (pip, from the configured index); a version pip cannot find, or no
    index, is one line naming the folder to prepare by hand.
    """
    check_triton_version(version)
    if version == running_version():
        return None
    folder = tritons_dir() / version
    if _complete(folder, version):
        return str(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f".{version}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another irscope may be installing the same version
        if _complete(folder, version):
            return str(folder)
        if os.path.lexists(folder):
            # irscope's own installs are renamed into place whole, so this one is someone else's: never removed.
            raise UsageError(
                f"{folder} is there but holds no complete triton {version} (its package and "
                f"triton-{version}.dist-info); remove it, or finish it with "
                f"pip install --no-deps --target {folder} triton=={version}"
            )
        (note or _stderr)(f"triton {version}: installing a private copy into {folder} (once; 170-290 MB)")
        temporary = folder.parent / f".{version}.irscope-tmp-{os.getpid()}"
        shutil.rmtree(temporary, ignore_errors=True)
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "--target",
                str(temporary),
                f"triton=={version}",
            ],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0 or not _complete(temporary, version):
            shutil.rmtree(temporary, ignore_errors=True)
            last = (proc.stderr.strip().splitlines() or ["pip failed"])[-1]
            raise UsageError(
                f"triton {version} could not be installed ({last}); install it by hand with "
                f"pip install --no-deps --target {folder} triton=={version}"
            )
        os.replace(temporary, folder)
    return str(folder)


def _complete(folder: Path, version: str) -> bool:
    """A folder holding exactly this Triton: its package and the dist-info pip wrote beside it."""
    return (folder / "triton" / "__init__.py").is_file() and (folder / f"triton-{version}.dist-info").is_dir()


def _stderr(line: str) -> None:
    print(f"irscope: {line}", file=sys.stderr, flush=True)
