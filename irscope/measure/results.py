"""Timing maths: per-call times to the figures a Measurement (irscope.records) reports."""

from __future__ import annotations

import statistics


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

