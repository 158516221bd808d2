"""The run's timeline where kernel engineers already read one: torch.profiler's Chrome trace (Perfetto,
chrome://tracing), copied beside ``run.json`` with each kernel event that irscope has a session for
carrying that session's path and variant in its ``args``.

The trace is data the program's process wrote: read with the size bound every JSON irscope reads has
(a longer run's trace keeps its raw copy and goes unlinked, with a note), its events taken only where
they have the shape Chrome's format gives them, and the paths added are the index's own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...errors import SessionError
from ...storage.files import atomic_write, contained, read_json
from . import INDEX
from .hook import TRACE
from .index import RunIndex

SESSION_ARG = "irscope session"  # relative to the run folder, as run.json names it
VARIANT_ARG = "irscope variant"


def link_trace(out: Path, raw: Path, index: dict[str, Any], note: Callable[[str], None]) -> str | None:
    """Write ``out/trace.json`` from ``raw/trace.json`` with its kernels linked; its name, or None."""
    if not os.path.lexists(raw / TRACE):  # a link is not skipped: contained() refuses it with a note
        return None
    try:
        trace = read_json(contained(raw, TRACE))
    except SessionError as exc:
        note(f"the run's Chrome trace is kept in raw/ but not linked: {exc}")
        return None
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list):
        note("the run's Chrome trace has no traceEvents: kept in raw/, not linked")
        return None
    where = _sessions_by_launch(index)
    linked = 0
    for event in events:
        if not isinstance(event, dict) or event.get("cat") != "kernel" or not isinstance(event.get("name"), str):
            continue
        args = event.get("args")
        args = args if isinstance(args, dict) else {}
        found = where.get((event["name"], _dims(args.get("grid")), _dims(args.get("block")))) or where.get(
            (event["name"], None, None)
        )
        if found is None:
            continue
        session, entry = found
        event["args"] = {**args, SESSION_ARG: session, **({VARIANT_ARG: entry} if entry else {})}
        linked += 1
    try:
        atomic_write(out / TRACE, json.dumps(trace))
    except SessionError as exc:  # something the program left at out/trace.json: never written through
        note(f"the run's Chrome trace is kept in raw/ but not linked: {exc}")
        return None
    index["trace"] = {"file": TRACE, "kernel_events_linked": linked}
    return TRACE


def _sessions_by_launch(index: dict[str, Any]) -> dict[tuple, tuple[str, str | None]]:
    """(GPU kernel name, grid, block) -> (session, variant entry) from run.json's rows; (name, None,
    None) -> the session where the name alone tells (one session has GPU time by that name)."""
    exact: dict[tuple, tuple[str, str | None]] = {}
    by_name: dict[str, set[str]] = {}
    for row in RunIndex.from_json(index, INDEX).kernels:
        session = row.session
        if session is None:
            continue
        entries: list[tuple[str | None, tuple[dict[str, Any], ...]]] = [(v.entry, v.gpu) for v in row.variants]
        entries.append((None, row.shared_gpu))
        for entry, gpu in entries:
            for g in gpu:
                if not isinstance(g, dict) or not isinstance(g.get("name"), str):
                    continue
                exact[(g["name"], _dims(g.get("grid")), _dims(g.get("block")))] = (
                    session,
                    entry if isinstance(entry, str) else None,
                )
                by_name.setdefault(g["name"], set()).add(session)
    for name, sessions in by_name.items():
        if len(sessions) == 1:
            exact.setdefault((name, None, None), (sessions.pop(), None))
    return exact


def _dims(value: Any) -> tuple[int, ...] | None:
    if isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return tuple(value)
    return None
