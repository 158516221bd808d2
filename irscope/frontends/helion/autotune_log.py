"""Helion's autotune log (``HELION_AUTOTUNE_LOG=/tmp/run`` -> ``/tmp/run.csv``) as a kernel's list of configs.

Helion writes one row as it starts timing a config (status ``started``) and one when done (``ok``,
``error``, ``timeout``...), with the columns of ``_AUTOTUNE_CSV_FIELDS`` in helion/autotuner/logger.py:
``run_id, timestamp_s, config_id, generation, status, perf_ms, compile_time_s, config``, ``config`` being
``str(helion.Config)``: ``Config(block_sizes=[64, 64], num_warps=4)``. Runs that share a base path
append to one file; the last run in it is read (the latest autotune). Each config's last row is its
result; the winner is the fastest ``ok`` config, as Helion picks it.

The file is data: read with ``csv`` (at most ``MAX_BYTES``), each config through ``configs.config_fields``
(literals only); a file that is not Helion's is one line (``SessionError``: exit 5).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import ParameterError, SessionError
from ...storage.files import read_text
from .configs import config_fields, field_text

FIELDS = ("run_id", "timestamp_s", "config_id", "generation", "status", "perf_ms", "compile_time_s", "config")
MAX_BYTES = 16 << 20  # a 10-minute autotune's 1,520 configs write ~1 MB
MAX_ROWS = 100_000


@dataclass(frozen=True)
class Tried:
    """One config of an autotune run, as its last row says."""

    fields: dict[str, Any]
    status: str
    perf_ms: float | None
    compile_s: float | None


@dataclass(frozen=True)
class Listed:
    """A kernel's configs as table columns: each field's text per config, and the marks (status, time, winner)."""

    fields: dict[str, list[str]]
    marks: dict[str, list[Any]]


def _number(text: str, what: str, where: str) -> float | None:
    if not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        raise SessionError(f"{where}: {what} {text[:40]!r} is not a number") from None
    return value if math.isfinite(value) else None


def read_log(path: Path) -> list[Tried]:
    """The configs of the last run in Helion's autotune CSV ``path``, in the order first tried."""
    text = read_text(path, MAX_BYTES)
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or tuple(rows[0]) != FIELDS:
        raise SessionError(f"{path} is not a Helion autotune log (its header is not {','.join(FIELDS)})")
    if len(rows) > MAX_ROWS:
        raise SessionError(f"{path} has {len(rows)} rows, more than the {MAX_ROWS} irscope reads")
    body = [r for r in rows[1:] if r]
    for n, row in enumerate(body, 2):
        if len(row) != len(FIELDS):
            raise SessionError(f"{path}:{n}: {len(row)} columns, not Helion's {len(FIELDS)}")
    if not body:
        return []
    last_run = body[-1][0]
    results: dict[str, Tried] = {}
    for n, row in enumerate(body, 2):
        run_id, _, config_id, _, status, perf, compile_s, config = row
        if run_id != last_run:
            continue
        where = f"{path}:{n}"
        try:
            fields = config_fields(config)
        except ParameterError as exc:
            raise SessionError(f"{where}: {exc}") from None
        key = config_id or config
        if status == "started" and key in results:
            continue
        results[key] = Tried(
            fields, status[:40], _number(perf, "perf_ms", where), _number(compile_s, "compile_time_s", where)
        )
    return list(results.values())


def autotune_log_path(helion_kernel: Any) -> Path | None:
    """The CSV the kernel's settings name (``autotune_log=`` or ``HELION_AUTOTUNE_LOG``, as Helion reads it)."""
    base = getattr(getattr(helion_kernel, "settings", None), "autotune_log", None)
    if not base:
        return None
    path = Path(base).with_suffix(".csv")
    return path if path.exists() else None


def listed_columns(helion_kernel: Any, names: Sequence[str]) -> Listed | None:
    """The kernel's configs as columns: its autotune log's where its settings name one that exists, else
    its own ``configs=[...]``; None for neither."""
    path = autotune_log_path(helion_kernel)
    if path is not None:
        tried = read_log(path)
    else:
        tried = [Tried(dict(c.config), "", None, None) for c in getattr(helion_kernel, "configs", None) or ()]
    if not tried:
        return None
    every = list(dict.fromkeys([*names, *(n for t in tried for n in t.fields)]))
    fields = {n: [field_text(t.fields[n]) if n in t.fields else "" for t in tried] for n in every}
    if path is None:
        return Listed(fields, {})
    timed = [(t.perf_ms, i) for i, t in enumerate(tried) if t.status == "ok" and t.perf_ms is not None]
    winner = min(timed)[1] if timed else None
    marks: dict[str, list[Any]] = {
        "autotune_status": [t.status for t in tried],
        "autotune_ms": [t.perf_ms for t in tried],
        "autotune_winner": [i == winner for i in range(len(tried))],
    }
    return Listed(fields, marks)
