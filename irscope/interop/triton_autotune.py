"""What Triton's autotuner left behind, read back: every config it timed, its figures, and its pick.

Two places hold it. With ``cache_results=True`` (or ``TRITON_CACHE_AUTOTUNING=1``) the autotuner
writes ``NAME.autotune.json`` into Triton's cache, one per kernel and tuning key: the key, and each
config with the figures its benchmark gave (``do_bench``: median, 20th and 80th percentile, in ms);
the pick is the config whose first figure is least, as the autotuner takes it. With
``TRITON_PRINT_AUTOTUNING=1`` it prints each config as it times it and then its pick
(``Triton autotuning for function NAME, with key as KEY, finished after Ns, best config selected:
CONFIG;``): Triton prints no figure per config, so a log gives the configs and the pick only.
(Triton 3.8 on also calls ``knobs.autotuning.listener`` with the same figures; a program's own
listener is its business: nothing of it is on disk to read.)

Both are data: JSON is checked field by field, a number must be finite (``types.json_number``), and
names and values are shown as text.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SessionError
from ..storage.files import contained, parse_json, read_text
from ..types import MAX_COUNT, json_number

SUFFIX = ".autotune.json"
OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")
MAX_RECORDS = 20_000
# Autotuning kernel clamp_kernel with config TILE: 128, num_warps: 2, num_ctas: 1, num_stages: 2, maxnreg: None
TRIED = re.compile(r"^Autotuning kernel (\w+) with config (.*)$")
# Triton autotuning for function clamp_kernel,\nwith key as (1000, 'torch.float16'),\nfinished after 0.52s,\n
# best config selected: TILE: 512, num_warps: 4, num_ctas: 1, num_stages: 3, maxnreg: None;
SUMMARY = re.compile(
    r"^Triton autotuning for function (\w+),\r?\nwith key as (.*),\r?\nfinished after ([\d.]+)s,\r?\n"
    r"best config selected: (.*);\r?$",
    re.M,
)
PAIR = re.compile(r"(\w+): ([^,]*)(?:, |$)")


@dataclass
class TunedRecord:
    """One autotuning decision: a kernel, a tuning key, the configs and what each took."""

    kernel: str
    key: str
    configs: list[dict[str, Any]]  # constexprs, then options (num_ctas 1 and no maxnreg left out)
    timings: list[tuple[float, ...] | None]  # per config, ms; None: not printed (a log)
    picked: int | None
    source: str  # where it was read
    seconds: float | None = None
    notes: list[str] = field(default_factory=list)


def read_autotuning(path: Path) -> tuple[list[TunedRecord], list[str]]:
    """Every decision under ``path`` (Triton's cache folder, one of its folders, or a printed log), and why each
    record left out was; a SessionError where none reads."""
    records: list[TunedRecord] = []
    skipped: list[str] = []
    if path.is_dir():
        for file in _record_files(path):
            try:
                records.append(_from_json(path, file))
            except (SessionError, ValueError, TypeError) as exc:
                skipped.append(f"{file}: {exc}")
    else:  # named as one: read whole (a program prints much else before it tunes)
        records, skipped = _from_log(path)
    if not records:
        why = f": {skipped[0]}" if skipped else ""
        raise SessionError(
            f"{path}: no autotuning record irscope can read (NAME{SUFFIX} or a TRITON_PRINT_AUTOTUNING log){why}"
        )
    return records, skipped


def _record_files(root: Path) -> list[str]:
    """``HASH/NAME.autotune.json`` (or ``NAME.autotune.json`` in one folder), relative to ``root``; links left out."""
    out: list[str] = []
    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        if entry.is_file(follow_symlinks=False) and entry.name.endswith(SUFFIX):
            out.append(entry.name)
        elif entry.is_dir(follow_symlinks=False):
            try:
                out += [
                    f"{entry.name}/{e.name}"
                    for e in os.scandir(entry.path)
                    if e.name.endswith(SUFFIX) and e.is_file(follow_symlinks=False)
                ]
            except OSError:
                continue
        if len(out) >= MAX_RECORDS:
            break
    return out


def _from_json(root: Path, relative: str) -> TunedRecord:
    kernel = Path(relative).name[: -len(SUFFIX)]
    if not kernel.isidentifier():
        raise ValueError(f"its kernel name {kernel[:60]!r} is not an identifier")
    path = contained(root, relative)
    data = parse_json(read_text(path), str(path))
    if not isinstance(data, dict) or not isinstance(data.get("configs_timings"), list):
        raise ValueError("no 'configs_timings' list: not an autotuner's record")
    configs, timings = [], []
    for item in data["configs_timings"]:
        if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], dict):
            raise ValueError("a 'configs_timings' entry is not [config, timings]")
        configs.append(_config_of_dict(item[0]))
        timings.append(_figures(item[1]))
    finite = [i for i, t in enumerate(timings) if t]
    picked = min(finite, key=lambda i: timings[i][0]) if finite else None  # type: ignore[index]
    return TunedRecord(kernel, _text(data.get("key")), configs, timings, picked, relative)


def _config_of_dict(data: dict[str, Any]) -> dict[str, Any]:
    kwargs = data.get("kwargs")
    values = {str(k): _value(v) for k, v in kwargs.items()} if isinstance(kwargs, dict) else {}
    for key in OPTIONS:
        v = data.get(key)
        if v is None or (key == "num_ctas" and v == 1):
            continue
        if isinstance(v, bool) or not isinstance(v, int) or not 0 < v < MAX_COUNT:
            raise ValueError(f"its {key} is {str(v)[:40]!r}, not a count")
        values[key] = v
    return values


def _figures(value: Any) -> tuple[float, ...] | None:
    """A config's figures (ms); None where it failed (Triton times a failed config as infinite)."""
    items = value if isinstance(value, list) else [value]
    figures = [json_number(v) for v in items[:8]]
    if not figures or any(f is None or f < 0 for f in figures):
        return None
    return tuple(f for f in figures if f is not None)


def _value(v: Any) -> Any:
    return v if isinstance(v, (int, float, str, bool)) or v is None else _text(v)


def _text(v: Any) -> str:
    text = str(v) if not isinstance(v, list) else "(" + ", ".join(map(repr, v)) + ")"
    return text[:200]


def _from_log(path: Path) -> tuple[list[TunedRecord], list[str]]:
    """Each summary of a printed log, with the configs it printed as it timed them before it."""
    text = read_text(path)
    records: list[TunedRecord] = []
    skipped: list[str] = []
    tried: dict[str, list[dict[str, Any]]] = {}
    at = 0
    for m in SUMMARY.finditer(text):
        for line in text[at : m.start()].splitlines():
            t = TRIED.match(line.strip())
            if t:
                tried.setdefault(t.group(1), []).append(_config_of_text(t.group(2)))
        at = m.end()
        kernel, key, best = m.group(1), m.group(2), _config_of_text(m.group(4))
        seconds = json_number(float(m.group(3))) if re.fullmatch(r"\d{1,12}(\.\d{1,12})?", m.group(3)) else None
        configs = tried.pop(kernel, [])
        if best not in configs:
            configs.append(best)
        number = text.count("\n", 0, m.start()) + 1
        records.append(
            TunedRecord(
                kernel, key[:200], configs, [None] * len(configs), configs.index(best), f"line {number}", seconds
            )
        )
    return records, skipped


def _config_of_text(text: str) -> dict[str, Any]:
    """``TILE: 128, num_warps: 2, num_ctas: 1, maxnreg: None`` (``triton.Config.__str__``) -> values."""
    values: dict[str, Any] = {}
    for name, raw in PAIR.findall(text.strip()):
        value: Any = raw.strip()
        if value == "None" or name in ("ir_override",):
            continue
        if re.fullmatch(r"-?\d{1,18}", value):
            value = int(value)
        elif value in ("True", "False"):
            value = value == "True"
        if name == "num_ctas" and value == 1:
            continue
        values[name] = value
    return values


__all__ = ["TunedRecord", "read_autotuning"]
