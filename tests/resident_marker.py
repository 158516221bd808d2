"""Imported by a resident parent before it forks (the tests' stand-in for torch): records which process imported it."""

import os

IMPORTED_BY = os.getpid()

CALLED_IN = None


def remember() -> None:
    """A preload entry ``resident_marker:remember`` calls this in the parent (as Triton's triton_key is)."""
    global CALLED_IN
    CALLED_IN = os.getpid()
