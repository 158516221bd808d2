"""The variants table, as data: one row per entry, the same columns in the CLI and the TUI."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from ..records import Facts
from ..types import Status
from .store import Entry


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    numeric: bool = True


FACT_COLUMNS = [
    Column("status", "status", numeric=False),
    Column("registers", "regs"),
    Column("spills", "spill B"),
    Column("shared", "shared B"),
    Column("ldst", "ld/st B", numeric=False),
    Column("ptx_lines", "ptx lines"),
    Column("compile_s", "compile s"),
]
FACTS = {f.name for f in fields(Facts)}
RUNTIME_COLUMNS = [
    Column("median_us", "median us"),
    Column("gbps", "GB/s"),
    Column("pct_copy", "% copy"),
]


def varying(entries: Sequence[Entry]) -> list[str]:
    """Config names (a heuristic's too) whose value differs between entries (all of them if only one entry)."""
    if not entries:
        return []
    # Every entry's names, in first-seen order: a later config may set one the first does not
    # (an autotuner's maxnreg on one config only).
    names = list(dict.fromkeys(n for e in entries for n in e.settings()))
    if len(entries) == 1:
        derived = entries[0].facts.heuristics or {}
        return [
            n for n in names if n in entries[0].config.constexprs or n in derived or n in ("num_warps", "num_stages")
        ]
    out = [n for n in names if len({repr(e.value(n)) for e in entries}) > 1]
    if len({e.arch for e in entries}) > 1:
        out.append("arch")
    return out


def cell(entry: Entry, key: str) -> Any:
    """The raw value of column ``key`` for ``entry`` (None where unknown)."""
    f, m = entry.facts, entry.measurement
    if key == "status":
        return entry.status.value
    if key == "arch":
        return entry.arch
    if key in ("spills", "ldst"):
        return getattr(f, key)
    if key in ("median_us", "gbps", "pct_copy", "pct_datasheet", "p20_us", "p80_us", "min_us", "tflops"):
        return None if m is None else getattr(m, key)
    if key in FACTS:
        return getattr(f, key)
    return entry.value(key)


def text(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"
    return str(value)


def note(entry: Entry) -> str:
    """Why a row is not OK (or where its runtime came from)."""
    m = entry.measurement
    if entry.status is not Status.OK:
        return entry.error or (m.error if m is not None else None) or ""
    return "" if m is None else m.source
