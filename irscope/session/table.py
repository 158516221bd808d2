"""The variants table, as data: one row per entry, the same columns in the CLI and the TUI."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from ..arch import Vendor, vendor_of
from ..records import Facts
from ..types import Status
from .store import Entry


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    numeric: bool = True
    vendor: Vendor | None = None  # a fact of this vendor's compiles only: shown where a row is one
    amd_title: str | None = None  # the title where every row is an AMD variant's


FACT_COLUMNS = [
    Column("status", "status", numeric=False),
    Column("registers", "regs", amd_title="vgprs"),
    Column("sgprs", "sgprs", vendor=Vendor.AMD),
    Column("spills", "spill B", vendor=Vendor.NVIDIA),
    Column("scratch", "scratch B", vendor=Vendor.AMD),
    Column("shared", "shared B", amd_title="LDS B"),
    Column("ldst", "ld/st B", numeric=False),
    Column("ptx_lines", "ptx lines", vendor=Vendor.NVIDIA),
    Column("amdgcn_lines", "amdgcn lines", vendor=Vendor.AMD),
    Column("compile_s", "compile s"),
]
FACTS = {f.name for f in fields(Facts)}
RUNTIME_COLUMNS = [
    Column("median_us", "median us"),
    Column("gbps", "GB/s"),
    Column("pct_copy", "% copy"),
]


def shown(columns: Sequence[Column], archs: Iterable[str]) -> list[Column]:
    """``columns`` as a table of variants for ``archs`` shows them: one vendor's facts only where a row is
    of that vendor (no PTX lines for gfx942, no AMDGCN lines for sm_90), AMD's names where every row is AMD's.
    The one rule of the CLI's table, the report's and the TUI's."""
    vendors = {vendor_of(arch) for arch in archs} or {Vendor.NVIDIA}
    amd_only = vendors == {Vendor.AMD}
    return [
        replace(c, title=c.amd_title) if amd_only and c.amd_title else c
        for c in columns
        if c.vendor is None or c.vendor in vendors
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
    if m is None:
        return ""
    if m.source == "measured" and m.timing:  # CUPTI and CUDA events differ by up to 2x on small kernels: say which
        return f"measured, {m.timing_name()}"
    return m.source
