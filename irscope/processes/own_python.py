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


# torch imported where NumPy is not installed (pip install torch does not bring it) warns "Failed to initialize
# NumPy: No module named 'numpy'" from its C++ side, a UserWarning; irscope uses no NumPy through torch, and the
# line landed in the middle of irscope's output (a worker's stderr is shown where a job fails). Left out in
# irscope's own processes, not in the user's (a notebook, irscope run's program).
NUMPY_WARNING = "Failed to initialize NumPy"


def quiet_known_warnings() -> None:
    import warnings

    warnings.filterwarnings("ignore", message=NUMPY_WARNING, category=UserWarning)


def command(code: str, *args: str) -> list[str]:
    """``python -c code args...``, with nothing imported from the working directory, and torch's NumPy warning
    left out."""
    safe = ["-P"] if sys.version_info >= (3, 11) else []
    start = "import sys; sys.path[:] = [p for p in sys.path if p]; "
    start += f"import warnings; warnings.filterwarnings('ignore', message={NUMPY_WARNING!r}, category=UserWarning); "
    return [sys.executable, *safe, "-c", start + code, *args]


def environment(overrides: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment, with the import path it runs with (less the working directory) and the marker."""
    return {
        **os.environ,
        **bytecode_prefix(),
        "PYTHONPATH": os.pathsep.join(import_path()),
        WORKER_ENV: str(os.getpid()),
        **(overrides or {}),
    }


def bytecode_prefix() -> dict[str, str]:
    """Where a worker keeps the bytecode of what it imports, when Python would otherwise keep none.

    Where torch or Triton is installed without bytecode and Python may not write it beside them
    (``PYTHONDONTWRITEBYTECODE``, or a read-only install such as a container image built with
    --no-compile), every process compiles their ~1,000 modules from source on import: 3.1 s of a GPU
    worker's 4.3 s start-up on the lent H100 and H200 (cProfile: builtins.compile), on every bench.
    irscope's own workers then keep bytecode in irscope's cache (``PYTHONPYCACHEPREFIX``): the first
    worker writes it, later ones read it, and no ``__pycache__`` appears beside anyone's sources. Where
    their bytecode is there (Python reads it even when told to write none) or will be written, or the
    user chose a prefix, nothing changes: a prefix makes Python read only the prefix's bytecode, so
    setting one there would make the next worker compile everything again. Nor where the folder is not
    this user's alone (bytecode is code: another user must not plant it).
    """
    # Imported here: ``python -m irscope`` imports this module to take the working directory off the
    # path, and anything imported before that could come from a folder just downloaded.
    from ..paths import BYTECODE, cache_dir
    from ..storage.files import private_folder

    if os.environ.get("PYTHONPYCACHEPREFIX") or sys.pycache_prefix:
        return {}
    writes = not (sys.flags.dont_write_bytecode or os.environ.get("PYTHONDONTWRITEBYTECODE"))
    if not any(_compiles_from_source(package, writes) for package in ("torch", "triton")):
        return {}
    folder = cache_dir() / BYTECODE
    if not private_folder(folder):
        return {}
    return {"PYTHONPYCACHEPREFIX": str(folder), "PYTHONDONTWRITEBYTECODE": ""}


def _compiles_from_source(package: str, writes: bool) -> bool:
    """Whether importing ``package`` compiles it from source every time: no bytecode beside it, and
    none will be written there (``writes``: Python may write bytecode; the folder must allow it too)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return False
    origin = getattr(spec, "origin", None)
    if not origin or not origin.endswith(".py"):
        return False
    compiled = importlib.util.cache_from_source(origin)
    if os.path.exists(compiled):
        return False
    return not (writes and os.access(os.path.dirname(os.path.dirname(compiled)), os.W_OK))


def import_path() -> list[str]:
    """``sys.path`` without the working directory, unless it holds the script the user ran (their program's own)."""
    here = _real(os.curdir)
    main = sys.modules.get("__main__")
    # A script run as `python script.py` has no __spec__; `-m` and the console script's do not count as the user's.
    script = getattr(main, "__file__", None) if getattr(main, "__spec__", None) is None else None
    users = _real(os.path.dirname(script)) if script and script.endswith(".py") else None
    path = [p for p in sys.path if p and (_real(p) != here or _real(p) == users)]
    # The folder this irscope is imported from (the one holding the irscope package: three levels above this
    # file, irscope/processes/own_python.py); a checkout run without installing needs it in its workers.
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return path if root in path else path + [root]


def _real(path: str) -> str | None:
    try:
        return os.path.realpath(path or os.curdir)
    except OSError:  # a working directory since deleted
        return None
