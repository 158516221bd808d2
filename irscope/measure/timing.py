"""How long a launch takes on the GPU: three methods, each named for what it measures.

``cupti`` (the default): the GPU's own start and end of every kernel a launch
runs, from CUPTI activity records (through torch.profiler/kineto), so neither
the CPU's launch overhead nor an event pair's own cost is inside the figure.
Before each timed launch the L2 cache is swept by a read-only kernel
(``l2.L2Sweep``): the kernel finds none of its data in L2 and, unlike after a
memset, no dirty lines whose write-back would land inside it. That is the state
Nsight Compute's cache control leaves. The sweep is waited for on the host, so
each launch starts on an idle GPU, as ncu's serialised replay does. A kernel of
20 us or more is also given an idle gap of twice its time before each launch:
back to back, a compute-bound kernel heats the GPU into lower clocks (on an
H200, matmul_kernel read 228.5 us back to back, 201 us with 0.5 ms gaps, 198 us
over 30 launches; ncu 199 us), while ncu times each launch alone.

``events``: CUDA events around each call with the L2 flushed by a memset between
calls (``triton.testing.do_bench``): it includes launch overhead, which for
kernels of a few microseconds is most of the figure.

``graph``: CUDA graph replays (``do_bench_cudagraph``): no launch overhead, no
L2 flush, so the inputs of a small kernel stay in L2 and it reads fast.

A launch may run several kernels (an Inductor function, a split reduction):
``cupti`` reports each kernel and the sum per launch.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

METHODS = ("cupti", "events", "graph")
DESCRIPTIONS = {
    "cupti": "CUPTI kernel durations, L2 swept clean (read-only) before each launch, each launch on an idle GPU "
    "(long kernels: after an idle gap of twice their time)",
    "events": "CUDA events per call, L2 flushed (memset) before each",
    "graph": "CUDA graph replays (no L2 flush, no launch overhead)",
}
MIN_LAUNCHES = 30
MAX_LAUNCHES = 300  # 300 and 1000 launches gave the same median and p80/p20 on an H200 (RESULTS.md)
COOL_FROM_MS = 0.02  # kernels this long get an idle gap of COOL_RATIO times their time before each launch
COOL_RATIO = 2.0


@dataclass
class Timing:
    """Per-launch times (ms), and for ``cupti`` each GPU kernel's median (us) by name, in launch order."""

    method: str
    times_ms: list[float]
    kernels: list[dict[str, Any]] = field(default_factory=list)  # [{"name", "median_us", "count"}]


def time_launches(
    run: Callable[[], Any],
    method: str = "cupti",
    *,
    min_time_ms: float = 100.0,
    warmup_ms: float = 25.0,
    isolate: bool = True,
    gap_ms: float | None = None,
    max_launches: int | None = None,
) -> Timing:
    """Time ``run`` (which launches one variant once) by ``method``; it has been launched once already.

    ``isolate`` (cupti): wait for the L2 sweep on the host before each launch, so the
    launch starts on an idle GPU; False launches back to back behind the sweep.
    ``gap_ms`` (cupti): leave the GPU idle this long before each launch (None: twice the
    kernel's time for kernels of 20 us or more, none for shorter ones).
    """
    if method == "events":
        from triton.testing import do_bench

        return Timing(method, list(do_bench(run, warmup=warmup_ms, rep=min_time_ms, return_mode="all")))
    if method == "graph":
        from triton.testing import do_bench_cudagraph

        return Timing(method, list(do_bench_cudagraph(run, rep=min_time_ms, return_mode="all")))
    if method == "cupti":
        return _cupti(run, min_time_ms, isolate, gap_ms, max_launches or MAX_LAUNCHES)
    raise ValueError(f"unknown timing method {method!r}; known: {', '.join(METHODS)}")


def warm_up() -> None:
    """Pay the cupti method's one-time costs now: CUPTI's first session and the L2 sweep's
    buffer and compile (1.3 s on an H200 from an empty Triton cache)."""
    import torch

    from ..processes.timeline import mark
    from .l2 import L2Sweep

    sweep = L2Sweep.for_device()
    x = torch.zeros(1, device="cuda")
    sweep()
    torch.cuda.synchronize()
    mark("GPU worker: the L2 sweep's buffer and kernel ready")
    _profile(lambda: x.add_(1), sweep, 3, True)


def _cupti(
    run: Callable[[], Any], min_time_ms: float, isolate: bool, gap_ms: float | None, max_launches: int
) -> Timing:
    import torch

    from .l2 import L2Sweep

    sweep = L2Sweep.for_device()
    for _ in range(3):  # warm: the sweep kernel compiled, clocks up
        sweep()
        run()
    torch.cuda.synchronize()
    estimate_ms = max(_estimate_ms(run), 1e-3)
    launches = int(min(max_launches, max(MIN_LAUNCHES, min_time_ms / estimate_ms)))
    if gap_ms is None:
        gap_ms = COOL_RATIO * estimate_ms if estimate_ms >= COOL_FROM_MS else 0.0
    totals, per_kernel = _profile(run, sweep, launches, isolate, gap_ms)
    kernels = [
        {"name": name, "median_us": 1e3 * statistics.median(ms), "count": len(ms)} for name, ms in per_kernel.items()
    ]
    return Timing("cupti", totals, kernels)


def _estimate_ms(run: Callable[[], Any]) -> float:
    """A launch's time from an event pair around a few back-to-back launches: only to size the run."""
    import torch

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        run()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / 5


def _profile(
    run: Callable[[], Any], sweep: Any, launches: int, isolate: bool, gap_ms: float = 0.0
) -> tuple[list[float], dict[str, list[float]]]:
    """Per launch: the summed duration (ms) of every GPU activity between two sweeps; and per kernel name."""
    import torch

    with _kineto() as records:
        for _ in range(launches):
            sweep()
            if isolate:
                torch.cuda.synchronize()  # the launch starts on an idle GPU, as in ncu's replay
            if gap_ms:
                time.sleep(gap_ms * 1e-3)
            run()
        torch.cuda.synchronize()
    activities = sorted(records, key=lambda a: a[1])
    totals: list[float] = []
    per_kernel: dict[str, list[float]] = {}
    current: float | None = None
    for name, _start, duration_ms in activities:
        if name.startswith(sweep.kernel_name):
            if current is not None:
                totals.append(current)
            current = 0.0
            continue
        if current is None:
            continue  # before the first sweep: not ours
        current += duration_ms
        per_kernel.setdefault(name, []).append(duration_ms)
    if current is not None:
        totals.append(current)
    totals = [t for t in totals if t > 0]
    if not totals:
        raise RuntimeError("CUPTI recorded no kernel for the launch (is the profiler available to this process?)")
    return totals, per_kernel


@contextmanager
def _kineto() -> Iterator[list[tuple[str, float, float]]]:
    """CUPTI's records of every GPU kernel, memcpy and memset run inside the block, through kineto.

    torch.profiler's ``profile`` would do the same, but its first use in a process
    imports torch._dynamo, sympy and FSDP (3.4 s on an H200, measured with cProfile in
    ``tests/perf/probe_cupti_start.py``); the autograd profiler's own calls underneath it
    take 0.03 s. (Triton's proton starts as fast but records kernels only, not the
    memcpy that is the bandwidth reference.)
    """
    from torch._C._profiler import ProfilerActivity, _ExperimentalConfig
    from torch.autograd.profiler import (
        ProfilerConfig,
        ProfilerState,
        _disable_profiler,
        _enable_profiler,
        _prepare_profiler,
    )

    config = ProfilerConfig(ProfilerState.KINETO, False, False, False, False, False, _ExperimentalConfig())
    activities = {ProfilerActivity.CUDA}
    records: list[tuple[str, float, float]] = []
    _prepare_profiler(config, activities)
    _enable_profiler(config, activities)
    try:
        yield records
    finally:
        result = _disable_profiler()
    records.extend(_gpu_activities(result))


def _gpu_activities(result: Any) -> list[tuple[str, float, float]]:
    """(name, start ns, duration ms) of every GPU kernel, memcpy and memset in kineto's result."""
    from torch.autograd import DeviceType

    out = []
    for event in result.events():
        if event.device_type() != DeviceType.CUDA:
            continue
        start = event.start_ns() if hasattr(event, "start_ns") else 1e3 * event.start_us()
        duration = event.duration_ns() if hasattr(event, "duration_ns") else 1e3 * event.duration_us()
        out.append((event.name(), float(start), float(duration) * 1e-6))
    return out
