"""``run.json`` read as typed records: the run's index, one row per kernel, ranked by GPU time.

collect.py writes the index; everything that reads it back (the front door, the report, ``irscope run``'s
table, the trace's links) reads these records, converted from the JSON here and nowhere else. The file is
data: ``RunIndex.from_json`` checks every field it keeps (a wrong kind is damage, SessionError, exit 5) and
every session a row names stays a folder inside the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import SessionError
from ...storage.files import contained, safe_name
from ...types import MAX_COUNT, json_number
from . import INDEX_FORMAT

SESSION_FOLDERS = ("kernels", "inductor", "load_inline")  # where a run's sessions may be


def unique_session_name(kernel: str, used: set[str]) -> str:
    """A session folder's name for ``kernel`` that no other kernel of the run has (``name-2``, ...); taken."""
    name, n = kernel, 2
    while name in used:
        name, n = f"{kernel}-{n}", n + 1
    used.add(name)
    return name


def compiled_variant_row(config: Any, gpu: list[dict[str, Any]], entry: str | None = None) -> dict[str, Any]:
    """A variant row (``RunVariantRow``'s JSON) of a kernel irscope compiled itself (a ``load_inline`` kernel's, a
    CuTe DSL or TileLang kernel's): no JIT hash, launches or autotuner; its GPU time the profile's ``gpu`` items."""
    calls, total = sum(g["calls"] for g in gpu), sum(g["total_us"] for g in gpu)
    return {
        "entry": entry,
        "config": config.values(),
        "label": config.label(),
        "hash": None,
        "cache_hit": None,
        "launches": [],
        "calls": None,
        "gpu": gpu,
        "gpu_calls": calls,
        "gpu_total_us": round(total, 3),
        "autotuner_ms": None,
        "picked_by_autotuner": False,
    }


def _number(value: Any) -> float | None:
    # 10**400 is none (math.isfinite(10**400) raises OverflowError); an int stays one: a count prints as 3, not 3.0
    return None if json_number(value) is None else value


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class RunVariantRow:
    """One config of a kernel as the program compiled it: its session entry, launches and GPU time."""

    entry: str | None = None
    label: str = ""
    calls: float | None = None  # launches recorded
    picked_by_autotuner: bool = False
    gpu: tuple[dict[str, Any], ...] = ()  # the profile's entries for it: name, grid, block, calls, total_us

    @classmethod
    def from_json(cls, data: Any) -> RunVariantRow:
        if not isinstance(data, dict):
            return cls()
        gpu = data.get("gpu")
        return cls(
            _text(data.get("entry")),
            str(data.get("label") or ""),
            _number(data.get("calls")),
            data.get("picked_by_autotuner") is True,
            tuple(g for g in gpu if isinstance(g, dict)) if isinstance(gpu, list) else (),
        )


@dataclass(frozen=True)
class RunKernelRow:
    """One kernel of the run: its session (a folder of the run) or why it has none, and its share of GPU time."""

    name: str
    session: str | None = None
    why: str | None = None
    inductor: bool = False
    gpu_calls: float | None = None
    gpu_total_us: float | None = None
    gpu_share_pct: float | None = None
    variants: tuple[RunVariantRow, ...] = ()
    shared_gpu: tuple[dict[str, Any], ...] = ()  # GPU time that fits several of its variants
    # "triton", "gluon", "helion", "cute", "tilelang", "cuda" (load_inline); "": a run.json written before
    # rows of Triton's JIT named their language (Triton's or Gluon's)
    frontend: str = ""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunKernelRow:
        variants, shared = data.get("variants"), data.get("shared_gpu")
        return cls(
            str(data.get("name", "?")),
            _text(data.get("session")),
            _text(data.get("why")),
            data.get("inductor") is True,
            _number(data.get("gpu_calls")),
            _number(data.get("gpu_total_us")),
            _number(data.get("gpu_share_pct")),
            tuple(map(RunVariantRow.from_json, variants)) if isinstance(variants, list) else (),
            tuple(g for g in shared if isinstance(g, dict)) if isinstance(shared, list) else (),
            _text(data.get("frontend")) or "",
        )


@dataclass(frozen=True)
class OtherGpuWork:
    """GPU work of the run that is no kernel irscope keeps (torch's own kernels, copies)."""

    name: str
    calls: float | None = None
    total_us: float | None = None
    gpu_share_pct: float | None = None

    @classmethod
    def from_json(cls, data: Any) -> OtherGpuWork | None:
        if not isinstance(data, dict):
            return None
        return cls(
            str(data.get("name", "?")),
            _number(data.get("calls")),
            _number(data.get("total_us")),
            _number(data.get("gpu_share_pct")),
        )


@dataclass(frozen=True)
class RunIndex:
    """What ``irscope run`` recorded of a program, as its ``run.json`` says."""

    command: tuple[str, ...] = ()
    exit_code: int | None = None
    wall_s: float | None = None
    mode: str = ""  # "gpu", or "ahead-of-time (no GPU)"
    device: str | None = None
    kernels: tuple[RunKernelRow, ...] = ()
    other_gpu_work: tuple[OtherGpuWork, ...] = field(default_factory=tuple)

    @property
    def where(self) -> str:
        """The GPU it ran on, else how it was recorded."""
        return self.device or self.mode

    @classmethod
    def from_json(cls, data: Any, where: str, run_dir: Path | None = None) -> RunIndex:
        """The index ``data`` (read from ``where``), checked; ``run_dir``: every session it names must be a folder
        of it (kernels/, inductor/ or load_inline/)."""
        if not isinstance(data, dict) or data.get("format") != INDEX_FORMAT:
            raise SessionError(f"{where} is not an irscope run")
        kernels = data.get("kernels")
        if not isinstance(kernels, list) or not all(isinstance(k, dict) for k in kernels):
            raise SessionError(f"{where} is malformed: 'kernels' must be a list of objects")
        for n, k in enumerate(kernels):  # numbers the report and the TUI format and add: counts, and finite amounts
            calls = k.get("gpu_calls")
            if calls is not None and (type(calls) is not int or not 0 <= calls < MAX_COUNT):
                raise SessionError(
                    f"{where} is malformed: kernels[{n}].gpu_calls must be a count, not {str(calls)[:20]}"
                )
            for name in ("gpu_total_us", "gpu_share_pct"):
                value = k.get(name)
                if value is not None and (json_number(value) is None or value < 0):
                    raise SessionError(
                        f"{where} is malformed: kernels[{n}].{name} must be a finite amount, not {str(value)[:20]}"
                    )
        rows = tuple(map(RunKernelRow.from_json, kernels))
        for k in kernels:
            if k.get("session") is not None and run_dir is not None:
                session = k["session"]
                folder, _, name = session.partition("/") if isinstance(session, str) else ("", "", "")
                if folder not in SESSION_FOLDERS:
                    raise SessionError(
                        f"{where}: session {session!r} is not a folder of the run's kernels/, inductor/ or load_inline/"
                    )
                contained(run_dir, Path(folder) / safe_name(name, f"{where}: session"))
        command, device = data.get("command"), data.get("device")
        if command is not None and not (isinstance(command, list) and all(isinstance(c, str) for c in command)):
            raise SessionError(f"{where} is malformed: 'command' must be a list of strings")
        if device is not None and not isinstance(device, str):
            raise SessionError(f"{where} is malformed: 'device' must be a string")
        exit_code, others = data.get("exit_code"), data.get("other_gpu_work")
        return cls(
            tuple(command or ()),
            exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None,
            _number(data.get("wall_s")),
            str(data.get("mode") or ""),
            device,
            rows,
            tuple(o for o in map(OtherGpuWork.from_json, others) if o is not None) if isinstance(others, list) else (),
        )


__all__ = ["SESSION_FOLDERS", "OtherGpuWork", "RunIndex", "RunKernelRow", "RunVariantRow"]
