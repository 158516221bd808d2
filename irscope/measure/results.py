"""Runtimes attached to variants: from a session, or from the samples recorded on real GPUs."""

from __future__ import annotations

from dataclasses import dataclass



@dataclass(frozen=True)
class Runtime:
    median_us: float
    device: str = ""
    source: str = ""


def runtime_for(variant, session) -> Runtime | None:
    if session is None:
        return None
    entry = session.find(variant.config, variant.arch)
    m = (entry.measurement or {}) if entry else {}
    if m.get("median_us") is None:
        return None
    return Runtime(float(m["median_us"]), str(m.get("device", "")), str(m.get("source", "")))


