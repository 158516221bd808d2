"""Runtimes recorded on real GPUs, shipped in ``samples/runtimes/`` for machines without one.

A sample file holds, for one kernel and one device, each measured config with its
measurement. A variant gets a sample's runtime only when kernel source (Triton's
dependency hash), config and arch all match, and the runtime is always shown
with the device and date it was recorded on. Files are JSON, read as data.
"""

from __future__ import annotations

import datetime
import functools
import json
from pathlib import Path
from typing import Any, Iterable

from ..paths import runtime_samples_dir
from ..records import Measurement
from ..store import atomic_write
from ..types import Config, KernelId

SAMPLES_FORMAT = "irscope.samples/1"
SAMPLES_DIR = runtime_samples_dir()  # the repository's samples/runtimes, shipped in irscope.samples


@functools.lru_cache(maxsize=4)
def _index(directory: str) -> dict[tuple[str, str, str, str], Measurement]:
    index: dict[tuple[str, str, str, str], Measurement] = {}
    for path in sorted(Path(directory).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict) or data.get("format") != SAMPLES_FORMAT:
            continue
        device = data.get("device", {})
        label = f"{device.get('name', '?')} sample, {data.get('recorded', '?')}"
        for row in data.get("variants", []):
            try:
                config = Config.from_json(row["config"])
                m = Measurement.from_json({**row["measurement"], "source": label})
            except (KeyError, TypeError, ValueError):
                continue
            key = (data.get("kernel", ""), data.get("source_hash", ""), config.key(), row.get("arch", ""))
            index.setdefault(key, m)  # files sort by name: the first recording of a key wins
    return index


def sample_measurement(kernel: KernelId, config: Config, arch: str, directory: Path = SAMPLES_DIR) -> Measurement | None:
    """The recorded measurement of this exact variant, if samples/ has one."""
    return _index(str(directory)).get((kernel.name, kernel.source_hash, config.key(), arch))


def write_samples(path: Path, kernel: KernelId, repo_root: Path, device: dict[str, Any],
                  rows: Iterable[tuple[Config, str, Measurement]]) -> None:
    """Record measurements as a sample file: compact, and without the recording machine's paths."""
    try:
        file = str(Path(kernel.file).resolve().relative_to(repo_root.resolve()))
    except ValueError:
        file = Path(kernel.file).name
    keep = ("status", "median_us", "p20_us", "p80_us", "min_us", "repetitions", "method", "gbps", "tflops",
            "pct_copy", "pct_datasheet", "max_abs_error", "max_rel_error", "error", "ncu")
    variants = []
    for config, arch, m in rows:
        data = {k: v for k, v in m.to_json().items() if k in keep}
        variants.append({"config": config.to_json(), "arch": arch, "measurement": _rounded(data)})
    payload = {
        "format": SAMPLES_FORMAT, "kernel": kernel.name, "file": file, "source_hash": kernel.source_hash,
        "device": {k: device.get(k) for k in ("name", "capability", "driver", "torch", "triton", "copy_gbps",
                                               "datasheet_gbps")},
        "recorded": datetime.date.today().isoformat(), "variants": variants,
    }
    atomic_write(path, json.dumps(payload, indent=1))
    _index.cache_clear()


def _rounded(data: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in data.items():
        if isinstance(v, float):
            out[k] = float(f"{v:.5g}")
        elif isinstance(v, dict):
            out[k] = _rounded(v)
        else:
            out[k] = v
    return out
