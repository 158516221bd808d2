"""One finding about a kernel: what it says, how serious, and the lines and facts it rests on."""

from __future__ import annotations

from dataclasses import dataclass

from ..types import Stage


@dataclass(frozen=True)
class Finding:
    kind: str  # vectorization, masking, spills, occupancy, shared-memory, lds-banks (AMD), async-copy, tma, tensor-cores, reduction, hot-lines
    severity: str  # "info" or "warn"
    title: str
    detail: str
    stage: Stage
    lines: tuple[int, ...] = ()  # 0-based lines of ``stage`` the finding points at
    evidence: tuple[str, ...] = ()  # the facts it rests on: instruction counts, resources, arguments
