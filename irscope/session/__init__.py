"""Sessions: sweeps of variants stored on disk as data."""

from .store import Entry, Session
from .sweep import SweepResult, parse_sweep, run_sweep, sweep_configs

__all__ = ["Entry", "Session", "SweepResult", "parse_sweep", "run_sweep", "sweep_configs"]
