"""irscope: see what the compiler did with your GPU kernel.

The Python API (api.py, docs/python-api.md)::

    import irscope
    v = irscope.capture("square_kernel", {"BLOCK_SIZE": 256}, arch="sm_90")
    v.listings["ptx"]
    d = irscope.diff(v, irscope.capture("square_kernel", {"BLOCK_SIZE": 1024}, arch="sm_90"))

The core (capturing, ir, diffing, annotating, measure, session) imports neither textual
nor torch at module level; the TUI and the GPU paths bring them in when used.
"""

import sys as _sys


def _run_module() -> str:
    """The module ``python -m`` was given (``""``: Python was not started with ``-m``), read from the
    interpreter's own options: ``-m irscope``, ``-mirscope``, ``-Bm irscope``."""
    args = iter(getattr(_sys, "orig_argv", ())[1:])
    for arg in args:
        if arg[:1] != "-" or arg in ("-", "--"):
            return ""  # a script, or stdin: options end there
        if arg.startswith("--"):
            if arg == "--check-hash-based-pycs":
                next(args, None)
            continue
        for at, flag in enumerate(arg[1:], 2):
            if flag in "cmWX":  # the options that take a value, here or in the next argument
                value = arg[at:] or next(args, "")
                if flag == "c":
                    return ""
                if flag == "m":
                    return value
                break
    return ""


# `python -m irscope` puts the working directory first on sys.path, and runpy imports this package
# before irscope/__main__.py runs: the working directory goes now, before the first import below
# (a dataclasses.py or subprocess.py there would otherwise run). Only sys (built in) and os (imported
# at Python's start) are used for it. What Python imports before this line (runpy, and what runpy
# imports that start-up did not) is beyond irscope's reach: docs/bad-input.md.
if _sys.argv[:1] == ["-m"] and _run_module().partition(".")[0] == __name__ and not getattr(_sys.flags, "safe_path", 0):
    import os as _os

    try:
        if _sys.path and _os.path.realpath(_sys.path[0] or _os.curdir) == _os.path.realpath(_os.curdir):
            del _sys.path[0]
    except OSError:  # a working directory since deleted: nothing can be imported from it
        pass

from .api import annotate, bench, capture, diff, html, open, sweep  # noqa: E402

__version__ = "0.1.0"
__all__ = ["annotate", "bench", "capture", "diff", "html", "open", "sweep"]
