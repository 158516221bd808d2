"""Runtimes recorded on real GPUs, shipped in ``samples/runtimes/`` for machines without one.

A sample file holds, for one kernel and one device, each measured config with its
measurement. A variant gets a sample's runtime only when kernel source (Triton's
dependency hash), config and arch all match, and the runtime is always shown
with the device and date it was recorded on. Files are JSON, read as data.

Several GPUs can have recorded the same variant (an H100 and an H200 are both
sm_90), so every device's recording is kept and one GPU's is chosen: the one whose
name contains ``$IRSCOPE_SAMPLE_GPU`` (``--sample-gpu``), case-insensitively, else
an H100's. A variant the chosen GPU did not record shows another GPU's recording,
whose label names that GPU.
"""

from __future__ import annotations

import datetime
import functools
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..paths import runtime_samples_dir
from ..records import Measurement
from ..storage.files import atomic_write
from ..types import Config, KernelId

SAMPLES_FORMAT = "irscope.samples/1"
SAMPLES_DIR = runtime_samples_dir()  # the repository's samples/runtimes, shipped in irscope.samples
SAMPLE_GPU_ENV = "IRSCOPE_SAMPLE_GPU"
DEFAULT_SAMPLE_GPU = "H100"

# (kernel name, source hash, config key, arch) -> {device name: measurement}, devices in file-name order
_Index = dict[tuple[str, str, str, str], dict[str, Measurement]]


@functools.lru_cache(maxsize=4)
def _index(directory: str) -> _Index:
    index: _Index = {}
    for path in sorted(Path(directory).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict) or data.get("format") != SAMPLES_FORMAT:
            continue
        device = data.get("device")
        name = device.get("name") if isinstance(device, dict) else None
        name = name if isinstance(name, str) and name.strip() else "?"
        label = f"{name} sample, {data.get('recorded', '?')}"
        for row in data.get("variants", []):
            try:
                config = Config.from_json(row["config"])
                m = Measurement.from_json({**row["measurement"], "source": label})
            except (KeyError, TypeError, ValueError):
                continue
            key = (data.get("kernel", ""), data.get("source_hash", ""), config.key(), row.get("arch", ""))
            index.setdefault(key, {}).setdefault(name, m)  # of one device, the first file by name wins
    return index


@functools.lru_cache(maxsize=4)
def _kernels(directory: str) -> frozenset[tuple[str, str]]:
    """(kernel name, source hash) of every kernel recorded: most variants asked about have none, and the
    answer is then known without working out the variant's config key (a table of thousands asks per row)."""
    return frozenset(key[:2] for key in _index(directory))


def chosen_gpu(gpu: str | None = None) -> str:
    """Whose samples to show: ``gpu``, else ``$IRSCOPE_SAMPLE_GPU``, else an H100's."""
    return gpu or os.environ.get(SAMPLE_GPU_ENV) or DEFAULT_SAMPLE_GPU


def _recorded_on(choice: str, device: str) -> bool:
    return bool(choice.strip()) and choice.strip().casefold() in device.casefold()


def sample_measurement(
    kernel: KernelId, config: Config, arch: str, gpu: str | None = None, directory: Path | None = None
) -> Measurement | None:
    """The recorded measurement of this exact variant, if samples/ has one: the chosen GPU's, else another's."""
    where = str(directory or SAMPLES_DIR)
    if (kernel.name, kernel.source_hash) not in _kernels(where):
        return None
    recorded = _index(where).get((kernel.name, kernel.source_hash, config.key(), arch))
    if not recorded:
        return None
    choice = chosen_gpu(gpu)
    return next((m for device, m in recorded.items() if _recorded_on(choice, device)), next(iter(recorded.values())))


def sample_gpus(kernel: KernelId | None = None, directory: Path | None = None) -> list[str]:
    """The GPUs samples were recorded on (those that recorded ``kernel``'s exact source, if given), by name."""
    index = _index(str(directory or SAMPLES_DIR))
    return sorted(
        {
            device
            for key, recorded in index.items()
            if kernel is None or key[:2] == (kernel.name, kernel.source_hash)
            for device in recorded
            if device != "?"
        }
    )


def check_sample_gpu(gpu: str, directory: Path | None = None) -> str:
    """``gpu`` if samples were recorded on a GPU it names; otherwise ParameterError (exit 2) listing them."""
    known = sample_gpus(directory=directory)
    if not any(_recorded_on(gpu, device) for device in known):
        raise ParameterError(
            f"no runtime samples were recorded on a GPU named {gpu!r}; "
            f"samples/ has them for: {', '.join(known) or 'no GPU'}"
        )
    return gpu


def samples_label(kernels: Iterable[KernelId], gpu: str | None = None, directory: Path | None = None) -> str | None:
    """Whose samples these kernels' variants show, in words ("H100 80GB HBM3 samples"); None if none were recorded."""
    recorded = sorted({device for k in kernels for device in sample_gpus(k, directory)})
    if not recorded:
        return None
    choice = chosen_gpu(gpu)
    chosen = [device for device in recorded if _recorded_on(choice, device)]
    if chosen:
        return f"{', '.join(chosen)} samples"
    return f"{', '.join(recorded)} samples (none recorded on {choice})"


def write_samples(
    path: Path,
    kernel: KernelId,
    repo_root: Path,
    device: dict[str, Any],
    rows: Iterable[tuple[Config, str, Measurement]],
) -> None:
    """Record measurements as a sample file: compact, and without the recording machine's paths."""
    try:
        file = str(Path(kernel.file).resolve().relative_to(repo_root.resolve()))
    except ValueError:
        file = Path(kernel.file).name
    keep = (
        "status",
        "median_us",
        "p20_us",
        "p80_us",
        "min_us",
        "repetitions",
        "method",
        "timing",
        "gbps",
        "tflops",
        "pct_copy",
        "pct_ceiling",
        "pct_datasheet",
        "pct_flops",
        "bound",
        "kernels",
        "max_abs_error",
        "max_rel_error",
        "error",
        "ncu",
    )
    variants = []
    for config, arch, m in rows:
        data = {k: v for k, v in m.to_json().items() if k in keep}
        variants.append({"config": config.to_json(), "arch": arch, "measurement": _rounded(data)})
    payload = {
        "format": SAMPLES_FORMAT,
        "kernel": kernel.name,
        "file": file,
        "source_hash": kernel.source_hash,
        "device": {
            k: device.get(k) for k in ("name", "capability", "driver", "torch", "triton", "copy_gbps", "datasheet_gbps")
        },
        "recorded": datetime.date.today().isoformat(),
        "variants": variants,
    }
    atomic_write(path, json.dumps(payload, indent=1))
    _index.cache_clear()
    _kernels.cache_clear()


def _rounded(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in data.items():
        if isinstance(v, float):
            out[k] = float(f"{v:.5g}")
        elif isinstance(v, dict):
            out[k] = _rounded(v)
        else:
            out[k] = v
    return out
