"""A sweep: the cartesian product of parameter values (or a kernel's own list of configs), captured into a session.

``run_sweep`` is a generator of results, so the CLI's progress bar and the TUI's
worker drive it the same way; every variant is in the session before it is
yielded, and variants the session already holds are not compiled again.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from types import EllipsisType
from typing import Any, Iterator, Mapping, Sequence

from ..capture import capture_many, choose_target
from ..errors import ParameterError
from ..frontends import Kernel
from ..kernel import config_from_table, listed_configs, parse_value
from ..spec import LAUNCH_OPTIONS
from ..types import Config, Variant
from .store import Entry, Session


def parse_sweep(pairs: Sequence[str]) -> dict[str, list[str]]:
    """``["BLOCK_SIZE=128,256", "num_warps=4,8"]`` -> ``{"BLOCK_SIZE": ["128", "256"], ...}``."""
    out: dict[str, list[str]] = {}
    for pair in pairs:
        name, sep, values = pair.partition("=")
        items = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not name.strip() or not items:
            raise ParameterError(f"expected NAME=V1,V2,..., got {pair!r}")
        out[name.strip()] = items
    return out


def sweep_configs(table: Mapping[str, Mapping[str, Any]], kernel: str, sweep: Mapping[str, Sequence[Any]],
                  fixed: Mapping[str, Any]) -> list[Config]:
    """Every config of the sweep, in order; ``sweep`` empty means the ranges the kernel declares.

    A kernel that lists its configs (an autotuner's: ``listed_configs``) declares
    exactly those, in its order, not the product of their values. A name in
    ``fixed`` is taken out of the declared ranges: ``-c num_warps=8`` alone sweeps
    the rest at 8 warps. Only a name given both ways by the user is refused.
    """
    listed = None if sweep else listed_configs(table)
    if listed is not None:
        columns, count = listed
        configs, seen = [], set()
        for i in range(count):
            chosen = {n: column[i] for n, column in columns.items() if n not in fixed}
            config = config_from_table(table, {**fixed, **chosen}, kernel)
            if config.key() not in seen:
                seen.add(config.key())
                configs.append(config)
        return configs
    if not sweep:
        sweep = {n: p["sweep"] for n, p in table.items()
                 if p["kind"] != "size" and len(p.get("sweep") or []) > 1 and n not in fixed}
    for name in sweep:
        if name in fixed:
            raise ParameterError(f"{name} is both swept (-s) and fixed (-c)")
    names = list(sweep)
    values = []
    for name in names:
        if name not in table and name not in LAUNCH_OPTIONS:
            raise ParameterError(f"unknown parameter {name!r} for {kernel}; parameters: {', '.join(table)}")
        default = table.get(name, {}).get("default")
        values.append([parse_value(name, v, default) if isinstance(v, str) else v for v in sweep[name]])
    configs, seen = [], set()
    for combo in itertools.product(*values):
        config = config_from_table(table, {**fixed, **dict(zip(names, combo))}, kernel)
        if config.key() not in seen:
            seen.add(config.key())
            configs.append(config)
    return configs


@dataclass(frozen=True)
class SweepResult:
    """One finished variant of a sweep."""

    index: int  # position in the configs swept
    entry: Entry | None  # its row in the session (None when no session is kept)
    variant: Variant
    reused: bool  # already in the session (or the cache): not compiled this time


def run_sweep(ref: Kernel, configs: Sequence[Config], arch: str | None, session: Session | None, *,
              jobs: int | None = None, cancel: threading.Event | None = None,
              compile_timeout: float | None | EllipsisType = ..., passes: bool = False) -> Iterator[SweepResult]:
    """Capture ``configs`` of ``ref`` into ``session``; variants the session has are reused.

    ``passes``: keep every compiler pass of each variant too; one the session holds without
    them is compiled again.

    Except those that failed for a reason outside the kernel (a full disk, a killed
    compiler, a timeout: ``Entry.retry``): those are compiled again.
    """
    target = choose_target(arch)
    todo: list[int] = []
    for i, config in enumerate(configs):
        entry = session.find(config, target.arch) if session else None
        stored = session.variant(entry) if entry is not None and not entry.retry else None
        if stored is not None and not (passes and stored.ok and stored.passes is None):
            yield SweepResult(i, entry, stored, True)
        else:
            todo.append(i)
    for captured in capture_many(ref, [configs[i] for i in todo], arch, jobs=jobs, cancel=cancel,
                                 compile_timeout=compile_timeout, passes=passes):
        entry = session.add(captured.variant) if session else None
        yield SweepResult(todo[captured.index], entry, captured.variant, captured.cached)
