"""On a GPU: each timing method measures what its name says; launches of several kernels; several GPUs.

Kernels written for these tests, launched for real; figures checked against each other
and against what the hardware must give (a copy of the same bytes, twice the data).
"""

from __future__ import annotations

import statistics

import pytest
import torch
import triton
import triton.language as tl

from irscope.measure.timing import time_launches
from irscope.nvidia.device import visible_gpus


@triton.jit
def _triple(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3.0, mask=mask)


def _triple_launch(n: int):
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    run = lambda: _triple[grid](x, y, n, BLOCK=1024)  # noqa: E731
    run()
    torch.cuda.synchronize()
    return run


def test_cupti_times_the_kernel_not_the_launch():
    run = _triple_launch(1 << 16)  # ~ a microsecond of work: launch overhead dominates an event pair
    cupti = statistics.median(time_launches(run, "cupti", min_time_ms=20).times_ms)
    events = statistics.median(time_launches(run, "events", min_time_ms=20).times_ms)
    assert 0 < cupti < events
    assert cupti * 1e3 < 20  # a 512 KB kernel is microseconds on the GPU


def test_cupti_time_scales_with_the_data_of_a_bandwidth_bound_kernel():
    small = statistics.median(time_launches(_triple_launch(1 << 25), "cupti", min_time_ms=50).times_ms)
    large = statistics.median(time_launches(_triple_launch(1 << 26), "cupti", min_time_ms=50).times_ms)
    assert 1.8 < large / small < 2.2, (small, large)


def test_a_launch_of_several_kernels_reports_each_and_their_sum():
    triple = _triple_launch(1 << 24)
    x = torch.randn(1 << 24, device="cuda")

    def two_kernels():
        triple()
        x.mul_(0.5)  # a torch kernel in the same launch

    timing = time_launches(two_kernels, "cupti", min_time_ms=50)
    names = [k["name"] for k in timing.kernels]
    assert len(names) == 2 and any("_triple" in n for n in names), names
    summed = sum(k["median_us"] for k in timing.kernels)
    total = 1e3 * statistics.median(timing.times_ms)
    assert abs(total - summed) / total < 0.05, (total, summed)


def test_graph_replays_skip_launch_overhead():
    run = _triple_launch(1 << 12)
    graph = statistics.median(time_launches(run, "graph", min_time_ms=20).times_ms)
    events = statistics.median(time_launches(run, "events", min_time_ms=20).times_ms)
    assert graph < events


@pytest.mark.skipif(len(visible_gpus()) < 2, reason="needs two GPUs")
def test_bench_spreads_variants_over_every_gpu_and_labels_each():
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import resolve_config
    from irscope.measure.bench import bench

    ref = resolve_kernel("square_kernel")
    configs = [resolve_config(ref, {"BLOCK_SIZE": b, "num_warps": 4}) for b in (128, 256, 512, 1024, 2048, 4096)]
    latest = {r.index: r for r in bench(ref, configs, min_time_ms=30)}
    used = {r.measurement.gpu_index for r in latest.values()}
    assert len(latest) == 6 and all(r.measurement.status.value == "ok" for r in latest.values())
    assert used == {int(g) for g in visible_gpus()}, used
