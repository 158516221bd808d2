"""What a measurement found, and where a variant's runtime comes from when it is shown.

A Measurement is stored as JSON in a session entry (and in samples/), so it is a
plain record with ``to_json``/``from_json``. Its status says whether the timing
can be trusted as a result: only OK runs are ranked; WRONG runs are timed too
but never count as a win.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ..types import Status


@dataclass(frozen=True)
class Measurement:
    status: Status
    median_us: float | None = None
    p20_us: float | None = None
    p80_us: float | None = None
    min_us: float | None = None
    repetitions: int = 0
    method: str = ""  # "events, L2 flushed before each call" or "CUDA graph"
    gbps: float | None = None
    tflops: float | None = None
    pct_copy: float | None = None  # of the device's measured device-to-device copy bandwidth
    pct_datasheet: float | None = None  # of the datasheet memory bandwidth, where known
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    error: str | None = None
    device: str = ""
    driver: str = ""
    torch: str = ""
    triton: str = ""
    date: str = ""
    ncu: dict[str, Any] | None = None  # gpu_time_us, dram_pct, occupancy_pct, registers
    source: str = "measured"  # or "sample: <device>, <date>"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ranked(self) -> bool:
        """May this runtime compete for fastest? (Correct, and timed.)"""
        return self.status is Status.OK and self.median_us is not None

    def label(self) -> str:
        if self.median_us is None:
            return self.status.value
        return f"{self.median_us:.1f} us"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        return {k: v for k, v in data.items() if v not in (None, "", {}) or k in ("status", "median_us")}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Measurement":
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["status"] = Status(values.get("status", "ok"))
        return cls(**values)


def summarize(times_ms: list[float]) -> dict[str, float]:
    """Median, p20, p80 and min of per-call times, in microseconds."""
    us = sorted(t * 1e3 for t in times_ms)
    q = statistics.quantiles(us, n=10, method="inclusive") if len(us) > 1 else [us[0]] * 9
    return {"median_us": statistics.median(us), "p20_us": q[1], "p80_us": q[7], "min_us": us[0]}


def derived(median_us: float, bytes_moved: float | None, flops: float | None, copy_gbps: float | None,
            datasheet_gbps: float | None) -> dict[str, float | None]:
    """GB/s and TFLOP/s from the declared bytes and flops; percent of the copy rate and datasheet."""
    seconds = median_us * 1e-6
    gbps = bytes_moved / seconds / 1e9 if bytes_moved and seconds > 0 else None
    return {
        "gbps": gbps,
        "tflops": flops / seconds / 1e12 if flops and seconds > 0 else None,
        "pct_copy": 100 * gbps / copy_gbps if gbps and copy_gbps else None,
        "pct_datasheet": 100 * gbps / datasheet_gbps if gbps and datasheet_gbps else None,
    }


@dataclass(frozen=True)
class Runtime:
    median_us: float
    device: str = ""
    source: str = ""


def runtime_for(variant, session) -> Runtime | None:
    """The runtime to show for ``variant``: measured in its session, else recorded in samples/."""
    m = None
    if session is not None:
        entry = session.find(variant.config, variant.arch)
        if entry is not None and entry.measurement:
            m = Measurement.from_json(entry.measurement)
    if m is None:
        from .samples import sample_measurement

        m = sample_measurement(variant.kernel, variant.config, variant.arch)
    if m is None or m.median_us is None:
        return None
    return Runtime(m.median_us, m.device, m.source)
