"""Sessions: sweeps of variants stored on disk as data."""

from typing import Any

from .store import Entry, Session

__all__ = ["Entry", "Session", "SweepResult", "run_sweep"]


def __getattr__(name: str) -> Any:
    """``run_sweep`` and ``SweepResult``, imported when first asked for: sweeping imports capture, which
    opening a session (``irscope tui DIR``, a report) does not need."""
    if name in ("SweepResult", "run_sweep"):
        from . import sweep

        return getattr(sweep, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
