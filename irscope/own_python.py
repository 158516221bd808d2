"""Python processes irscope starts for its own work: compile and GPU workers, ncu's target, the report reader.

``python -c`` and ``python -m`` put the working directory first on ``sys.path``, so a
``pickle.py`` in a folder just downloaded would run inside a worker the moment it read
its first job. These processes get the parent's path without the working directory, and
Python is told not to add it: ``-P`` from 3.11, and before that the command's first
statement takes it out, before anything is imported. A program the user asked irscope
to run (``irscope run PROG``) is not started here: its own folder is its to import from.
"""

from __future__ import annotations

import os
import sys

# Set in every process started here, to the pid of the irscope that started it: a worker
# watches for that parent to go, and never starts workers of its own (workers.WorkerPool).
WORKER_ENV = "IRSCOPE_WORKER"


def command(code: str, *args: str) -> list[str]:
    """``python -c code args...``, with nothing imported from the working directory."""
    safe = ["-P"] if sys.version_info >= (3, 11) else []
    return [sys.executable, *safe, "-c", f"import sys; sys.path[:] = [p for p in sys.path if p]; {code}", *args]


def environment(overrides: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment, with the import path it runs with (less the working directory) and the marker."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(import_path()),
        WORKER_ENV: str(os.getpid()),
        **(overrides or {}),
    }


def import_path() -> list[str]:
    """``sys.path`` without the working directory, unless it holds the script the user ran (their program's own)."""
    here = _real(os.curdir)
    main = sys.modules.get("__main__")
    # A script run as `python script.py` has no __spec__; `-m` and the console script's do not count as the user's.
    script = getattr(main, "__file__", None) if getattr(main, "__spec__", None) is None else None
    users = _real(os.path.dirname(script)) if script and script.endswith(".py") else None
    path = [p for p in sys.path if p and (_real(p) != here or _real(p) == users)]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # where this irscope is imported from
    return path if root in path else path + [root]


def drop_working_directory() -> None:
    """For ``python -m irscope``: take out the working directory Python put first, before irscope imports anything."""
    if sys.path and not getattr(sys.flags, "safe_path", False) and _real(sys.path[0] or os.curdir) == _real(os.curdir):
        del sys.path[0]


def _real(path: str) -> str | None:
    try:
        return os.path.realpath(path or os.curdir)
    except OSError:  # a working directory since deleted
        return None
