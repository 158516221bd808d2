"""The variants table, as data: one row per entry, the same columns in the CLI and the TUI."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

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
RUNTIME_COLUMNS = [
    Column("median_us", "median us"),
    Column("gbps", "GB/s"),
    Column("pct_copy", "% copy"),
]


def varying(entries: Sequence[Entry]) -> list[str]:
    """Config names whose value differs between entries (all of them if only one entry)."""
    if not entries:
        return []
    names = list(entries[0].config.values())
    if len(entries) == 1:
        return [n for n in names if n in entries[0].config.constexprs or n in ("num_warps", "num_stages")]
    out = [n for n in names if len({repr(e.value(n)) for e in entries}) > 1]
    if len({e.arch for e in entries}) > 1:
        out.append("arch")
    return out


def cell(entry: Entry, key: str) -> Any:
    """The raw value of column ``key`` for ``entry`` (None where unknown)."""
    f, m = entry.facts, entry.measurement or {}
    if key == "status":
        return entry.status.value
    if key == "arch":
        return entry.arch
    if key == "spills":
        if f.get("spill_stores") is None:
            return None
        return (f.get("spill_stores") or 0) + (f.get("spill_loads") or 0)
    if key == "ldst":
        if f.get("load_bytes") is None and f.get("store_bytes") is None:
            return None
        return f"{f.get('load_bytes') or '-'}/{f.get('store_bytes') or '-'}"
    if key in ("median_us", "gbps", "pct_copy", "pct_datasheet", "p20_us", "p80_us", "min_us", "tflops"):
        return m.get(key)
    if key in f:
        return f[key]
    return entry.value(key)


def text(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"
    return str(value)


def note(entry: Entry) -> str:
    """Why a row is not OK (or where its runtime came from)."""
    if entry.status is not Status.OK:
        return entry.error or (entry.measurement or {}).get("error") or ""
    m = entry.measurement or {}
    return m.get("source", "")
