"""Runtimes recorded on real GPUs, shipped in ``samples/runtimes/`` for machines without one.

A sample file holds, for one kernel and one device, each measured config with its
measurement. A variant is offered a sample only when kernel source (Triton's
dependency hash), config and arch all match; and the sample is that variant's own
runtime only when it was measured on the same code: the PTX that ran (its
``ptx_sha256``, recorded since irscope.samples rows carry it) is the variant's PTX.
Otherwise the same source compiled to other code (another Triton, another
option), and the runtime is labelled with the build, timing method and date it
came from ("H100 80GB HBM3 sample of other code: Triton 3.6.0, CUPTI, 2026-11-22");
a row recorded before the hash was kept says its code is unverified, never that it
is the same. Files are JSON, read as data.

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
from dataclasses import replace
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
        triton = device.get("triton") if isinstance(device, dict) else None
        recorded = data.get("recorded")
        for row in data.get("variants", []):
            try:
                config = Config.from_json(row["config"])
                m = Measurement.from_json({**row["measurement"], "source": f"{name} sample"})
            except (KeyError, TypeError, ValueError):
                continue
            m = replace(  # a row without its own build and date has the file's (samples before rows kept them)
                m,
                device=name,
                triton=m.triton or (triton if isinstance(triton, str) else ""),
                date=m.date or (recorded if isinstance(recorded, str) else ""),
            )
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
    kernel: KernelId,
    config: Config,
    arch: str,
    gpu: str | None = None,
    directory: Path | None = None,
    ptx_sha256: str | None = None,
) -> Measurement | None:
    """The recorded measurement of this variant, if samples/ has one: the chosen GPU's, else another's.

    ``ptx_sha256``: the variant's PTX hash (``records.code_hash``; ``Facts.ptx_sha256``). Its ``source`` says
    whether the sample ran this very code (same PTX) or names the build, method and date it came from.
    """
    where = str(directory or SAMPLES_DIR)
    if (kernel.name, kernel.source_hash) not in _kernels(where):
        return None
    recorded = _index(where).get((kernel.name, kernel.source_hash, config.key(), arch))
    if not recorded:
        return None
    choice = chosen_gpu(gpu)
    m = next((m for device, m in recorded.items() if _recorded_on(choice, device)), next(iter(recorded.values())))
    return replace(m, source=sample_label(m, ptx_sha256))


def same_code(sample: Measurement, ptx_sha256: str | None) -> bool:
    """Did ``sample`` run the code whose PTX hash is ``ptx_sha256``? (Unknown on either side: no.)"""
    return bool(sample.ptx_sha256) and bool(ptx_sha256) and sample.ptx_sha256 == ptx_sha256


def sample_label(sample: Measurement, ptx_sha256: str | None) -> str:
    """Where a sample shown beside a variant came from, in words: its GPU and date where it ran this variant's
    PTX; else also the build and timing method, and whether its code differs or is not known to match."""
    method = sample.timing_name() or "method not recorded"
    when = sample.date or "date not recorded"
    if same_code(sample, ptx_sha256):
        return f"{sample.device} sample, this PTX, {method}, {when}"
    build = f"Triton {sample.triton}" if sample.triton else "build not recorded"
    if sample.ptx_sha256 and ptx_sha256:
        why = "other code"
    elif sample.ptx_sha256:
        why = "code not compared"  # this variant's PTX is not known here (an old session's entry)
    else:
        why = "code unverified"  # recorded before samples kept the PTX's hash
    return f"{sample.device} sample, {why}: {build}, {method}, {when}"


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
        "ptx_sha256",
        "triton",
        "date",
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
