"""The diff's native core, where it was built: C versions of its hottest loops, with the same results.

Each module is optional (setup.py builds it where a C compiler is at hand); where one is missing,
or ``IRSCOPE_PURE_PYTHON=1`` is set, irscope runs the Python version beside each call site. The
variable is read once, at import: a process runs one way throughout. The tests compare the two on
real listings.

- ``tokens``: PTX and SASS listings cleaned and split at their names (normalize.py, canonical.py)
- ``pairs``: the pairing rounds' per-line steps: signatures, votes, lines written (canonical.py)
- ``align``: the patience alignment (algorithm.py)
"""

from __future__ import annotations

import os

PURE_PYTHON = os.environ.get("IRSCOPE_PURE_PYTHON", "") not in ("", "0")

tokens = None
pairs = None
align = None
if not PURE_PYTHON:
    try:
        from . import _native_tokens as tokens
    except ImportError:
        tokens = None
    try:
        from . import _native_pairs as pairs
    except ImportError:
        pairs = None
    try:
        from . import _native_align as align
    except ImportError:
        align = None
