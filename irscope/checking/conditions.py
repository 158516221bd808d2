"""The conditions a gate states, and each variant's verdict on each: passed, failed or skipped (with why).

Bounds are absolute (``--max-registers 128``) or relative to the baseline (``+8``: at most 8 more than
it had). Without options a baseline gates on what a change should never do unnoticed: spill more, lose
an occupancy step, narrow a global access, or raise a warning the baseline did not have.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from ..types import plural
from .facts import Facts

MAX_BOUND = 1 << 30  # registers, bytes: a bound past this is a typo
DEFAULT_ON = ("spills", "occupancy", "access-width", "findings")  # what a baseline alone gates on
CONDITIONS = ("compiles", "baseline", "registers", *DEFAULT_ON, "shared", "listing", "runtime")


class Verdict(str, enum.Enum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Bound:
    """At most ``value``; ``relative``: at most the baseline's plus ``value``."""

    value: int
    relative: bool = False

    def limit(self, baseline: int | None) -> int | None:
        if not self.relative:
            return self.value
        return None if baseline is None else baseline + self.value

    def __str__(self) -> str:
        return f"+{self.value}" if self.relative else str(self.value)


@dataclass(frozen=True)
class Conditions:
    """What ``irscope check`` was asked to gate on."""

    registers: Bound | None = None
    spills: Bound | None = None  # None with a baseline: +0
    shared: Bound | None = None
    unchanged: tuple[str, ...] = ()  # stages whose normalised listing must not change
    runtime_tolerance: float | None = None  # percent slower than the baseline that still passes
    ignore: frozenset[str] = field(default_factory=frozenset)

    def relative(self) -> list[str]:
        """The options that need a baseline to mean anything."""
        bounds = {"--max-registers": self.registers, "--max-spills": self.spills, "--max-shared": self.shared}
        named = [name for name, b in bounds.items() if b is not None and b.relative]
        return named + (["--unchanged"] if self.unchanged else []) + (["--runtime"] if self.runtime_tolerance else [])


@dataclass(frozen=True)
class Row:
    """One variant's verdict on one condition: what the baseline had, what it has now, and why."""

    kernel: str
    config: str
    arch: str
    condition: str
    verdict: Verdict
    baseline: str = ""
    current: str = ""
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {**vars(self), "verdict": self.verdict.value}


def _shown(value: Any, unit: str = "") -> str:
    if value is None:
        return "—"
    if isinstance(value, tuple):
        return "/".join(map(str, value)) + (f" {unit}" if value and unit else "") if value else "none"
    return f"{value}{unit}"


Judged = tuple[str, Verdict, str, str, str]  # (condition, verdict, baseline, current, detail)


def judge(
    now: Facts,
    before: Facts | None,
    conditions: Conditions,
    *,
    has_baseline: bool,
    gpu: bool,
) -> list[Judged]:
    """``(condition, verdict, baseline, current, detail)`` for each condition that applies to this variant.

    ``has_baseline``: one was given (``before`` is None: it lacks this variant). ``gpu``: runtimes can be
    compared here."""
    was = "ok" if before is None or before.ok else "failed"
    if not now.ok:
        return _kept([("compiles", Verdict.FAILED, was, "failed", now.error)], conditions)
    rows: list[Judged] = [("compiles", Verdict.PASSED, was, "ok", "")]
    if has_baseline and before is None:
        rows.append(("baseline", Verdict.FAILED, "—", "ok", "the baseline has no such variant: write it again"))
    base = before if before is not None and before.ok else None
    rows += _bound_rows(now, base, conditions, has_baseline)
    if base is None:
        return _kept(rows, conditions)
    rows += [_occupancy_row(now, base), _access_width_row(now, base), _findings_row(now, base)]
    # The listings' rows are left out by "listing" alone, not by their own names.
    listings = [] if "listing" in conditions.ignore else [_listing_row(now, base, s) for s in conditions.unchanged]
    runtime = [] if conditions.runtime_tolerance is None else [_runtime_row(now, base, conditions, gpu)]
    return _kept(rows, conditions) + listings + _kept(runtime, conditions)


def _kept(rows: list[Judged], conditions: Conditions) -> list[Judged]:
    return [row for row in rows if row[0] not in conditions.ignore]


def _bound_rows(now: Facts, base: Facts | None, conditions: Conditions, has_baseline: bool) -> list[Judged]:
    """Registers, spills (none new, by default, against a baseline) and shared memory against their bounds."""
    rows: list[Judged] = []
    for name, bound, attr, unit in (
        ("registers", conditions.registers, "registers", ""),
        ("spills", conditions.spills or (Bound(0, True) if has_baseline else None), "spills", " B"),
        ("shared", conditions.shared, "shared", " B"),
    ):
        if bound is None:
            continue
        value, had = getattr(now, attr), getattr(base, attr, None)
        limit = bound.limit(had)
        shown = (_shown(had, unit), _shown(value, unit))
        if value is None or limit is None:
            rows.append((name, Verdict.SKIPPED, *shown, "not known for this variant"))
        elif value > limit:
            rows.append((name, Verdict.FAILED, *shown, f"above the bound {limit}{unit} ({bound})"))
        else:
            rows.append((name, Verdict.PASSED, *shown, f"bound {limit}{unit} ({bound})"))
    return rows


def _occupancy_row(now: Facts, base: Facts) -> Judged:
    if now.warps_per_sm is None or base.warps_per_sm is None:
        return ("occupancy", Verdict.SKIPPED, _shown(base.warps_per_sm), _shown(now.warps_per_sm), "not known")
    shown = (f"{base.warps_per_sm} warps/SM", f"{now.warps_per_sm} warps/SM")
    if now.warps_per_sm < base.warps_per_sm:
        return ("occupancy", Verdict.FAILED, *shown, "fewer warps fit on an SM")
    return ("occupancy", Verdict.PASSED, *shown, "")


def _access_width_row(now: Facts, base: Facts) -> Judged:
    narrower = [
        f"{kind}s {_shown(b, 'B')} -> {_shown(c, 'B')}"
        for kind, b, c in (("load", base.load_widths, now.load_widths), ("store", base.store_widths, now.store_widths))
        if b and c and (c[0] < b[0] or c[-1] < b[-1])
    ]
    widths = f"ld {_shown(base.load_widths, 'B')}, st {_shown(base.store_widths, 'B')}"
    current = f"ld {_shown(now.load_widths, 'B')}, st {_shown(now.store_widths, 'B')}"
    if narrower:
        return ("access-width", Verdict.FAILED, widths, current, "narrower global " + "; ".join(narrower))
    return ("access-width", Verdict.PASSED, widths, current, "")


def _findings_row(now: Facts, base: Facts) -> Judged:
    shown = (plural(len(base.findings), "warning"), plural(len(now.findings), "warning"))
    appeared = sorted(set(now.findings) - set(base.findings))
    if appeared:
        return ("findings", Verdict.FAILED, *shown, "new: " + "; ".join(appeared))
    return ("findings", Verdict.PASSED, *shown, "")


def _listing_row(now: Facts, base: Facts, stage: str) -> Judged:
    name = f"listing:{stage}"
    b, c = base.listings.get(stage), now.listings.get(stage)
    if b is None or c is None:
        return (name, Verdict.SKIPPED, _shown(b and b[:12]), _shown(c and c[:12]), f"no {stage} on one side")
    if b != c:
        compilers = f" ({base.compiler} -> {now.compiler})" if base.compiler != now.compiler else ""
        return (
            name,
            Verdict.FAILED,
            b[:12],
            c[:12],
            f"the normalised {stage} changed{compilers}: irscope diff shows how",
        )
    return (name, Verdict.PASSED, b[:12], c[:12], "")


def _runtime_row(now: Facts, base: Facts, conditions: Conditions, gpu: bool) -> Judged:
    had, has = _shown(base.runtime_us, " us"), _shown(now.runtime_us, " us")
    if not gpu:
        return ("runtime", Verdict.SKIPPED, had, "—", "no GPU here")
    if base.runtime_us is None or now.runtime_us is None:
        return ("runtime", Verdict.SKIPPED, had, has, "no runtime on one side")
    tolerance = conditions.runtime_tolerance or 0.0
    limit_us = base.runtime_us * (1 + tolerance / 100)
    verdict = Verdict.FAILED if now.runtime_us > limit_us else Verdict.PASSED
    return (
        "runtime",
        verdict,
        f"{base.runtime_us:.2f} us",
        f"{now.runtime_us:.2f} us",
        f"bound {limit_us:.2f} us (+{tolerance:g}%)",
    )
