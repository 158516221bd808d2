"""Nsight Compute figures per variant: kernel duration, DRAM throughput, occupancy, registers.

One ncu run covers a whole sweep: a small target program launches each variant
twice (the first launch compiles and warms up, the second is profiled), and ncu,
filtered to the kernel's name, profiles every launch. Clocks are left as they are
(``--clock-control none``) so the duration compares with irscope's own timing.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..frontends import KernelHandle
from ..processes import own_python
from ..types import Config, Variant

METRICS = {
    "gpu__time_duration.sum": "gpu_time_us",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occupancy_pct",
    "launch__registers_per_thread": "registers",
}
TARGET = "from irscope.measure.ncu import target; target()"  # the program ncu profiles: see target()
_TIME_UNITS = {
    "ns": 1e-3,
    "nsecond": 1e-3,
    "usecond": 1.0,
    "us": 1.0,
    "msecond": 1e3,
    "ms": 1e3,
    "second": 1e6,
    "s": 1e6,
}


def ncu_path() -> str | None:
    found = shutil.which("ncu")
    if found:
        return found
    for candidate in (
        "/usr/local/cuda/bin/ncu",
        *sorted(Path("/opt/nvidia").glob("nsight-compute/*/ncu"), reverse=True),
    ):
        if Path(str(candidate)).exists():
            return str(candidate)
    return None


def parse_csv(text: str) -> list[dict[str, Any]]:
    """ncu's ``--csv`` output (one row per metric) -> one dict per profiled launch, in launch order."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return []
    launches: dict[str, dict[str, Any]] = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        launch = launches.setdefault(
            row["ID"],
            {
                "kernel": row.get("Kernel Name", ""),
                "grid": row.get("Grid Size", ""),
                "block": row.get("Block Size", ""),
            },
        )
        key = METRICS.get(row.get("Metric Name", ""))
        if key is None:
            continue
        value = _number(row.get("Metric Value", ""))
        if value is not None and key == "gpu_time_us":
            value *= _TIME_UNITS.get(row.get("Metric Unit", "").strip().lower(), 1e-3)
        launch[key] = value
    return [launches[k] for k in sorted(launches, key=lambda x: int(x) if x.isdigit() else 0)]


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def kernel_filter(functions: Sequence[str]) -> list[str]:
    """ncu's filter for the kernels named by their functions' names in the cubin: C++ and Numba names are
    mangled (``_Z16gelu_tanh_kernelPKfPfi``, ``_ZN10gelu_numba...``), and the name ncu matches by default
    drops namespaces and parameters, so the mangled names are matched exactly, escaped."""
    names = sorted(set(functions))
    return ["--kernel-name-base", "mangled", "--kernel-name", "regex:^(?:" + "|".join(map(re.escape, names)) + ")$"]


def profile(
    handle: KernelHandle,
    configs: Sequence[Config],
    functions: Sequence[str],
    timeout: float = 600,
    repeats: int = 5,
) -> list[dict[str, Any] | None]:
    """ncu figures for each config, the median of ``repeats`` profiled launches (None where ncu has no row).
    ``functions``: the kernels' names in the cubin (``function_name`` of each variant)."""
    tool = ncu_path()
    if tool is None:
        raise FileNotFoundError("ncu (Nsight Compute) not found on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job.json"
        job.write_text(
            json.dumps({"kernel": asdict(handle), "configs": [c.to_json() for c in configs], "repeats": repeats})
        )
        cmd = [
            tool,
            "--csv",
            "--clock-control",
            "none",
            *kernel_filter(functions),
            "--metrics",
            ",".join(METRICS),
            *own_python.command(TARGET, str(job)),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=own_python.environment())
        launched_path = Path(tmp) / "launched.json"
        launched = json.loads(launched_path.read_text()) if launched_path.exists() else [True] * len(configs)
    launches = parse_csv(proc.stdout)
    if proc.returncode != 0 and not launches:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        raise RuntimeError(f"ncu failed: {tail[0]}")
    # 1 + repeats launches per config that ran: the warm-up (which compiled), then the profiled ones
    out: list[dict[str, Any] | None] = []
    n = 0
    for ran in launched + [False] * (len(configs) - len(launched)):
        rows = launches[n + 1 : n + 1 + repeats] if ran else []
        out.append(_median_row(rows) if rows else None)
        n += 1 + repeats if ran else 0
    return out


# What a saved report holds: ncu's full set, whose SourceCounters and warp-state sampling give the
# per-instruction counters (a handful of named sections gave none on Nsight Compute 2025.3.1)
REPORT_SET = "full"


def save_report(handle: KernelHandle, config: Config, function: str, path: Path, timeout: float = 600) -> Path:
    """Profile ``config``'s second launch (the first compiles) into the Nsight Compute report ``path``
    (``.ncu-rep``), with the per-instruction counters, for ncu's own UI and for ncu_report.py."""
    tool = ncu_path()
    if tool is None:
        raise FileNotFoundError("ncu (Nsight Compute) not found on PATH")
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job.json"
        job.write_text(json.dumps({"kernel": asdict(handle), "configs": [config.to_json()], "repeats": 1}))
        cmd = [
            tool,
            "--clock-control",
            "none",
            "--set",
            REPORT_SET,
            "--import-source",
            "no",
            *kernel_filter([function]),
            "--launch-skip",
            "1",
            "--launch-count",
            "1",
            "-f",
            "-o",
            str(path.with_suffix("")),
            *own_python.command(TARGET, str(job)),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=own_python.environment())
    report = path.with_suffix(".ncu-rep")
    if not report.exists():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        raise RuntimeError(f"ncu wrote no report: {tail[0]}")
    return report


def function_name(variant: Variant) -> str:
    """The kernel's function as the cubin names it: the entry nvcc and Numba record (mangled), else the
    kernel's own name (Triton's entry is the Python function's name)."""
    info = variant.compile_info
    entry = info.options.get("entry") if info else None
    return entry if isinstance(entry, str) and entry else variant.kernel.name


def _median_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Each numeric figure's median over the profiled launches (one launch is noisy for small kernels)."""
    import statistics

    out = dict(rows[0])
    for key, value in rows[0].items():
        values: list[float] = [r[key] for r in rows if isinstance(r.get(key), (int, float))]
        if isinstance(value, (int, float)) and values:
            out[key] = statistics.median(values)
    out["launches"] = len(rows)
    return out


def target() -> None:
    """Run under ncu: launch every config of a job twice."""
    import torch

    from .. import frontends

    job_path = Path(sys.argv[-1])
    job = json.loads(job_path.read_text())
    kernel = frontends.load(frontends.KernelHandle(**job["kernel"]))
    launched = []
    for data in job["configs"]:
        config = Config.from_json(data)
        try:
            launch = kernel.launch(config, device="cuda")
            launch.first()  # compiles; a compile error launches nothing
            for _ in range(job.get("repeats", 1)):
                launch.run()
            torch.cuda.synchronize()
            launched.append(True)
        except Exception:
            launched.append(False)
        (job_path.parent / "launched.json").write_text(json.dumps(launched))
