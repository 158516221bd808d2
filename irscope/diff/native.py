"""The diff's native core, where it was built: C versions of its hottest loops, with the same results.

Each module is optional (setup.py builds it where a C compiler is at hand); where one is missing,
or ``IRSCOPE_PURE_PYTHON=1`` is set, irscope runs the Python version beside each call site. The
tests compare the two on real listings."""

from __future__ import annotations

import os

PURE_PYTHON = os.environ.get("IRSCOPE_PURE_PYTHON", "") not in ("", "0")

pairs = None  # canonical.py's pairing steps: signatures, lines touched, lines written, greedy pairing
if not PURE_PYTHON:
    try:
        from . import _native_pairs as pairs
    except ImportError:
        pass
