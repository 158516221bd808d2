"""The typed records of a session's header (``session.json`` beside its variants): what made the session.

Each converts to and from its JSON itself, here and nowhere else: a session read from disk is data, so
``from_json`` checks every field and gives None for a record it cannot vouch for (the caller says why).
``Session`` (store.py) keeps them under ``request``, ``trace`` and ``autotuner``; no other module reads or
writes the header's JSON by key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


def _value(v: Any) -> bool:
    return isinstance(v, (str, int, float, bool))


@dataclass(frozen=True)
class SweepRequest:
    """The sweep that made a session (``irscope sweep -s/-c --arch``, ``irscope.sweep``), kept to resume it."""

    sweep: Mapping[str, list[Any]] = field(default_factory=dict)  # -s: name -> the values, as typed
    fixed: Mapping[str, Any] = field(default_factory=dict)  # -c: name -> value
    arch: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"sweep": {n: list(vs) for n, vs in self.sweep.items()}, "fixed": dict(self.fixed), "arch": self.arch}

    @classmethod
    def from_json(cls, data: Any) -> SweepRequest | None:
        """A stored request as sweep writes it (each swept name a list of values, each fixed one a value),
        else None."""
        if not (isinstance(data, dict) and isinstance(data.get("sweep"), dict) and isinstance(data.get("fixed"), dict)):
            return None
        sweep, fixed, arch = data["sweep"], data["fixed"], data.get("arch")
        if not all(isinstance(vs, list) and all(map(_value, vs)) for vs in sweep.values()):
            return None
        if not all(map(_value, fixed.values())) or not (arch is None or isinstance(arch, str)):
            return None
        return cls({str(n): list(vs) for n, vs in sweep.items()}, {str(n): v for n, v in fixed.items()}, arch)


@dataclass(frozen=True)
class TraceOrigin:
    """Where a session read from a tritonparse trace came from, and what reading it noted."""

    trace: str  # the trace file
    digest: str  # of its contents: the session is the trace's as long as this matches
    notes: tuple[str, ...] = ()
    mapping_check: Mapping[str, Any] = field(default_factory=dict)  # tritonparse's source maps against irscope's
    launch_events: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "trace": self.trace,
            "digest": self.digest,
            "notes": list(self.notes),
            "mapping_check": dict(self.mapping_check),
            "launch_events": self.launch_events,
        }

    @classmethod
    def from_json(cls, data: Any) -> TraceOrigin | None:
        if not isinstance(data, dict):
            return None
        notes, check, events = data.get("notes") or [], data.get("mapping_check") or {}, data.get("launch_events", 0)
        return cls(
            str(data.get("trace", "")),
            str(data.get("digest", "")),
            tuple(n for n in notes if isinstance(n, str)) if isinstance(notes, list) else (),
            dict(check) if isinstance(check, dict) else {},
            events if isinstance(events, int) and not isinstance(events, bool) else 0,
        )


__all__ = ["SweepRequest", "TraceOrigin"]
