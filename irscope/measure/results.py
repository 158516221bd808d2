"""Timing maths: per-call times to the figures a Measurement (irscope.records) reports."""

from __future__ import annotations

import statistics


def summarize(times_ms: list[float]) -> dict[str, float]:
    """Median, p20, p80 and min of per-call times, in microseconds."""
    us = sorted(t * 1e3 for t in times_ms)
    q = statistics.quantiles(us, n=10, method="inclusive") if len(us) > 1 else [us[0]] * 9
    return {"median_us": statistics.median(us), "p20_us": q[1], "p80_us": q[7], "min_us": us[0]}


def derived(
    median_us: float,
    bytes_moved: float | None,
    flops: float | None,
    *,
    copy_us: float | None = None,
    ceiling_gbps: float | None = None,
    peak_gbps: float | None = None,
    peak_tflops: float | None = None,
) -> dict[str, float | str | None]:
    """GB/s and TFLOP/s from the declared bytes and flops, and how close they are to the hardware.

    ``copy_us``: a device-to-device copy of the same bytes, timed the same way: the
    memory-bound reference at this size (small copies do not reach the big copy's
    rate either). ``ceiling_gbps``: the device's 1 GiB copy rate. ``peak_gbps`` and
    ``peak_tflops``: the device's peaks (Triton's table); from them the ridge point
    says whether the kernel is memory- or compute-bound.
    """
    seconds = median_us * 1e-6
    gbps = bytes_moved / seconds / 1e9 if bytes_moved and seconds > 0 else None
    tflops = flops / seconds / 1e12 if flops and seconds > 0 else None
    bound = None
    if bytes_moved and flops and peak_gbps and peak_tflops:
        ridge = peak_tflops * 1e12 / (peak_gbps * 1e9)  # flops per byte where the two roofs meet
        bound = "compute" if flops / bytes_moved > ridge else "memory"
    elif bytes_moved:
        bound = "memory"
    return {
        "gbps": gbps,
        "tflops": tflops,
        "pct_copy": 100 * copy_us / median_us if copy_us and median_us > 0 and gbps else None,
        "pct_ceiling": 100 * gbps / ceiling_gbps if gbps and ceiling_gbps else None,
        "pct_datasheet": 100 * gbps / peak_gbps if gbps and peak_gbps else None,
        "pct_flops": 100 * tflops / peak_tflops if tflops and peak_tflops else None,
        "bound": bound,
    }
