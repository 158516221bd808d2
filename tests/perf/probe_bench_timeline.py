"""When each of the 21 square variants is compiled and measured in `irscope bench` (issues 12 and 32).

One GPU, empty caches, then the same again with the caches the first run filled (``--warm``: also the
second run; imports are not paid twice, the GPU worker's start-up is). Prints, per variant, the seconds
from the start at which its compile finished and its measurement came back, so the slower pipeline shows.

    python tests/perf/probe_bench_timeline.py [--warm]
"""

from __future__ import annotations

import os
import tempfile
import time


def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["IRSCOPE_CACHE_DIR"] = f"{tmp}/irscope"
        os.environ["TRITON_CACHE_DIR"] = f"{tmp}/triton"
        for run in range(runs):
            print("empty caches:" if run == 0 else "warm caches (same process: imports already paid):")
            timeline()


def timeline() -> None:
    start = time.perf_counter()
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import sweep_configs
    from irscope.measure import bench as bench_module
    from irscope.session import sweep as sweep_module

    ref = resolve_kernel("square_kernel")
    configs = sweep_configs(
        ref.parameter_table(),
        ref.name,
        {"BLOCK_SIZE": [128, 256, 512, 1024, 2048, 4096, 8192], "num_warps": [1, 4, 8]},
        {},
    )
    print(f"imports and kernel: {time.perf_counter() - start:.2f} s")
    compiled = {}
    original = sweep_module.run_sweep

    def timed_sweep(*args, **kwargs):
        for result in original(*args, **kwargs):
            compiled[result.index] = time.perf_counter() - start
            yield result

    bench_module.run_sweep = timed_sweep
    measured = {}
    for result in bench_module.bench(ref, configs):
        measured[result.index] = (
            time.perf_counter() - start,
            result.measurement.status.value,
            result.measurement.median_us,
        )
    total = time.perf_counter() - start
    for i in sorted(measured):
        at, status, us = measured[i]
        print(
            f"  {configs[i].label():40s} compiled at {compiled.get(i, float('nan')):6.2f} s, measured at {at:6.2f} s "
            f"({status}, {us or float('nan'):.2f} us)"
        )
    gaps = sorted(measured[i][0] for i in measured)
    print(
        f"total {total:.2f} s; last compile at {max(compiled.values()):.2f} s; first measurement at {gaps[0]:.2f} s; "
        f"mean gap between measurements {(gaps[-1] - gaps[0]) / max(len(gaps) - 1, 1):.3f} s"
    )


if __name__ == "__main__":
    import sys

    main(2 if "--warm" in sys.argv else 1)
