"""One finding about a kernel: what it says, how serious, and the lines and facts it rests on."""

from __future__ import annotations

from dataclasses import dataclass

from ..types import Stage


@dataclass(frozen=True)
class Finding:
    # vectorization, masking, spills, occupancy, shared-memory, bank-conflicts, lds-banks (AMD), async-copy, tma,
    # tensor-cores, reduction, atomics, redundant-threads, tensor-memory, cluster, warp-specialization,
    # global-scratch, gluon-layouts, hot-lines
    kind: str
    severity: str  # "info" or "warn"
    title: str
    detail: str
    stage: Stage
    lines: tuple[int, ...] = ()  # 0-based lines of ``stage`` the finding points at
    evidence: tuple[str, ...] = ()  # the facts it rests on: instruction counts, resources, arguments
