"""Sessions: sweeps of variants stored on disk as data."""

from .store import Entry, Session
from .sweep import SweepResult, run_sweep

__all__ = ["Entry", "Session", "SweepResult", "run_sweep"]
