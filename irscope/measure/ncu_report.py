"""Nsight Compute reports (``.ncu-rep``), read through NVIDIA's own ``ncu_report`` module.

A report holds, per profiled kernel, its metrics and, with the SourceCounters section, counters per
SASS instruction: instructions executed, warp-state samples by stall reason, memory sectors. Those
are keyed by the instruction's program counter; irscope's SASS listing is keyed by the offset from
the kernel's first instruction (``/*0220*/``), so each PC becomes ``pc - launch__function_pcs``.

``ncu_report`` ships with Nsight Compute (``extras/python`` of its install, a module file beside its
compiled companion) and, since 2026.3, as NVIDIA's ``ncu-report`` wheel on PyPI (``pip install
ncu-report``, or ``irscope[ncu]``), which installs a package of the same name. Where neither is
found, reading a report says so in one line. What is read is kept as JSON
(``KernelCounters.to_json``) beside the report, so the counters join the SASS and Python lines on
any machine, with or without Nsight Compute.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError

# The figures shown per kernel: ncu's metric -> irscope's name
KEY_METRICS = {
    "gpu__time_duration.sum": "gpu_time_us",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram_pct",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed": "dram_pct",  # the name on Hopper
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occupancy_pct",
    "launch__registers_per_thread": "registers",
    "launch__occupancy_limit_registers": "blocks_by_registers",
    "launch__occupancy_limit_shared_mem": "blocks_by_shared_memory",
    "launch__occupancy_limit_warps": "blocks_by_threads",
    "launch__grid_size": "grid_size",
    "launch__block_size": "block_size",
}
# Per-instruction counters of the SourceCounters section, by the name irscope gives them
EXECUTED = "inst_executed"
SAMPLES = "smsp__pcsamp_sample_count"  # warp-state samples at this instruction: where warps spend time
STALL_PREFIX = "smsp__pcsamp_warps_issue_stalled_"
SECTORS = "memory_l2_theoretical_sectors_global"
IDEAL_SECTORS = "memory_l2_theoretical_sectors_global_ideal"


class NcuReportUnavailable(UsageError):
    """NVIDIA's ncu_report module is not installed here (the ncu-report wheel, or Nsight Compute's own)."""


def _candidates() -> list[str]:
    """Nsight Compute's extras/python folders, newest first."""
    found = []
    from .ncu import ncu_path

    tool = ncu_path()
    if tool:
        root = Path(os.path.realpath(tool)).parent  # .../cuda-13.0/bin: Nsight Compute sits beside or above
        found += glob.glob(str(root.parent / "nsight-compute*" / "extras" / "python"))
        found += glob.glob(str(root / "extras" / "python"))
    found += sorted(glob.glob("/opt/nvidia/nsight-compute/*/extras/python"), reverse=True)
    found += sorted(glob.glob("/usr/local/cuda*/nsight-compute*/extras/python"), reverse=True)
    return found


def ncu_report_module():
    """NVIDIA's ncu_report module: from $IRSCOPE_NCU_REPORT_PATH, else as installed (the ncu-report
    wheel), else from Nsight Compute's install."""
    if "ncu_report" in sys.modules:
        return sys.modules["ncu_report"]
    named = os.environ.get("IRSCOPE_NCU_REPORT_PATH")
    module = (_from_folder(named) if named else None) or _installed()
    for folder in _candidates():
        module = module or _from_folder(folder)
    if module is None:
        raise NcuReportUnavailable(
            "NVIDIA's Python module ncu_report is not available here: pip install ncu-report, or set "
            "IRSCOPE_NCU_REPORT_PATH to Nsight Compute's extras/python folder"
        )
    sys.modules["ncu_report"] = module
    return module


def _installed():
    """The ncu_report package on the import path, as the ncu-report wheel installs it; None if absent or broken."""
    try:
        if importlib.util.find_spec("ncu_report") is None:
            return None
        return importlib.import_module("ncu_report")
    except Exception:  # a broken install (its compiled part missing): Nsight Compute's own may still serve
        sys.modules.pop("ncu_report", None)
        return None


def _from_folder(folder: str):
    """``ncu_report`` from a folder holding ``ncu_report.py`` (Nsight Compute) or ``ncu_report/`` (the wheel's)."""
    package = Path(folder, "ncu_report", "__init__.py")
    file = package if package.exists() else Path(folder, "ncu_report.py")
    if not file.exists():
        return None
    locations = [str(package.parent)] if file == package else None
    spec = importlib.util.spec_from_file_location("ncu_report", file, submodule_search_locations=locations)
    if spec is None or spec.loader is None:
        return None
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)  # Nsight Compute's compiled companion (_ncu_report.so) sits beside the module
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception:
        if added:
            sys.path.remove(folder)
        return None
    return module


@dataclass
class KernelCounters:
    """One profiled kernel of a report: its key metrics and its counters per SASS offset."""

    name: str
    metrics: dict[str, float] = field(default_factory=dict)
    per_offset: dict[int, dict[str, float]] = field(default_factory=dict)  # SASS offset -> counter -> value

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "metrics": self.metrics,
            "per_offset": {f"{offset:#06x}": counters for offset, counters in sorted(self.per_offset.items())},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KernelCounters:
        per_offset = {}
        for key, counters in (data.get("per_offset") or {}).items():
            per_offset[int(key, 16)] = {str(k): float(v) for k, v in counters.items() if isinstance(v, (int, float))}
        metrics = {str(k): float(v) for k, v in (data.get("metrics") or {}).items() if isinstance(v, (int, float))}
        return cls(str(data.get("name", "")), metrics, per_offset)

    def samples(self, offset: int) -> float:
        """Warp-state samples at ``offset``: its stall samples where the report has no total."""
        counters = self.per_offset.get(offset, {})
        if SAMPLES in counters:
            return counters[SAMPLES]
        return sum(v for k, v in counters.items() if k.startswith("stall_"))

    def stalls(self, offset: int) -> dict[str, float]:
        """Samples at ``offset`` by stall reason (``long_scoreboard``, ``barrier``...), most first."""
        counters = self.per_offset.get(offset, {})
        found = {k[len("stall_") :]: v for k, v in counters.items() if k.startswith("stall_")}
        return dict(sorted(found.items(), key=lambda kv: -kv[1]))


def session_counters(session_path: Path, entry_id: str) -> KernelCounters | None:
    """The counters ``bench --ncu -o`` kept for a session's variant (None where it kept none). Read as the
    session's other files are: inside its folder only (no link out), as JSON data; damage is a SessionError."""
    from ..errors import SessionError
    from ..storage.files import contained, read_json, safe_name

    path = contained(session_path, Path("ncu") / f"{safe_name(entry_id, 'variant id')}.counters.json")
    if not path.exists() and not path.is_symlink():
        return None
    try:
        return KernelCounters.from_json(read_json(path))
    except (ValueError, AttributeError, TypeError) as exc:
        raise SessionError(f"{path}: unreadable counters ({exc})") from None


UNAVAILABLE_EXIT = 3  # the reading process's exit status when ncu_report is not here


def read_report(path: Path, timeout: float = 300) -> list[KernelCounters]:
    """Every profiled kernel launch in the report at ``path``, in profiling order.

    Read in a process of its own: NVIDIA's module is a compiled extension, and loaded beside torch in
    one process it crashed it (H100 host, Nsight Compute 2025.3.1); a crash there costs only the read."""
    import json
    import subprocess

    from ..processes import own_python

    proc = subprocess.run(
        own_python.command("from irscope.measure.ncu_report import main; main()", str(path)),
        capture_output=True,
        text=True,
        timeout=timeout,
        env=own_python.environment(),
    )
    if proc.returncode == UNAVAILABLE_EXIT:
        raise NcuReportUnavailable(proc.stderr.strip().splitlines()[-1])
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        raise UsageError(f"{path}: the report could not be read ({last})")
    return [KernelCounters.from_json(k) for k in json.loads(proc.stdout)]


def _read_here(path: Path) -> list[KernelCounters]:
    ncu_report = ncu_report_module()
    try:
        context = ncu_report.load_report(str(path))
    except Exception as exc:
        raise UsageError(f"{path}: not a readable Nsight Compute report ({exc})") from None
    out = []
    for r in range(context.num_ranges()):
        profiled = context.range_by_idx(r)
        for a in range(profiled.num_actions()):
            out.append(_kernel(profiled.action_by_idx(a)))
    return out


def _kernel(action) -> KernelCounters:
    counters = KernelCounters(action.name())
    for name, key in KEY_METRICS.items():
        metric = action.metric_by_name(name)
        if metric is None:
            continue
        value = metric.as_double()
        if name == "gpu__time_duration.sum":
            value = value / 1000.0 if metric.unit() == "ns" else value  # microseconds
        counters.metrics[key] = value
    start_metric = action.metric_by_name("launch__function_pcs")  # one instance: the kernel's first PC
    start = 0
    if start_metric is not None:
        start = int(start_metric.as_uint64(0)) if start_metric.num_instances() else int(start_metric.as_uint64())
    for name in action.metric_names():
        stall = name.startswith(STALL_PREFIX) and not name.endswith("_not_issued")  # (those are a subset)
        if not (name in (EXECUTED, SAMPLES, SECTORS, IDEAL_SECTORS) or stall):
            continue
        metric = action.metric_by_name(name)
        if metric is None or not metric.has_correlation_ids():
            continue
        ids = metric.correlation_ids()
        for i in range(metric.num_instances()):
            value = metric.as_double(i)
            if not value:
                continue
            offset = int(ids.as_uint64(i)) - start
            if 0 <= offset < 1 << 32:
                key = f"stall_{name[len(STALL_PREFIX) :]}" if stall else name
                counters.per_offset.setdefault(offset, {})[key] = value
    return counters


def main() -> None:
    """``REPORT``: the counters as JSON on stdout (read_report's process)."""
    import json

    try:
        found = _read_here(Path(sys.argv[1]))
    except NcuReportUnavailable as exc:
        print(exc, file=sys.stderr)
        raise SystemExit(UNAVAILABLE_EXIT) from None
    except UsageError as exc:
        print(exc, file=sys.stderr)
        raise SystemExit(2) from None
    print(json.dumps([k.to_json() for k in found]))


if __name__ == "__main__":
    main()
