"""The diff's optional native core: C versions of its hottest loops, with the same output as the Python.

``tokens`` is irscope.diff._native_tokens (PTX and SASS listings cleaned and split at their names), or
None where it was not built (no C compiler at install time) or ``IRSCOPE_PURE_PYTHON=1`` asks for the
Python path. The variable is read once, at import: a process runs one way throughout.
"""

from __future__ import annotations

import os

PURE_PYTHON = os.environ.get("IRSCOPE_PURE_PYTHON") == "1"

tokens = None
if not PURE_PYTHON:
    try:
        from . import _native_tokens as tokens
    except ImportError:
        tokens = None
