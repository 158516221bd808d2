"""Where a variant's measurement time goes (issue 12's speed target): each phase of the cupti method, timed.

python tests/perf/probe_bench_time.py
"""

from __future__ import annotations

import statistics
import time


def main() -> None:
    import torch

    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import resolve_config
    from irscope.measure.l2 import L2Sweep
    from irscope.measure.timing import _estimate_ms, _profile, time_launches

    ref = resolve_kernel("square_kernel")
    launch = ref.launch(resolve_config(ref, {"BLOCK_SIZE": 1024, "num_warps": 4}))

    def timed(what, fn):
        torch.cuda.synchronize()
        start = time.perf_counter()
        out = fn()
        torch.cuda.synchronize()
        print(f"  {what}: {1e3 * (time.perf_counter() - start):.1f} ms")
        return out

    print(f"device: {torch.cuda.get_device_name(0)}")
    timed("first launch (JIT from cache)", launch.first)
    sweep = timed("L2 sweep buffer + first sweep", lambda: (L2Sweep.for_device()(), L2Sweep.for_device())[1])
    timed("estimate (5 launches, events)", lambda: _estimate_ms(launch.run))
    for n in (30, 300, 1000):
        timed(f"profile {n} launches (isolated)", lambda n=n: _profile(launch.run, sweep, n, True))
        timed(f"profile {n} launches (back to back)", lambda n=n: _profile(launch.run, sweep, n, False))
    for n in (300, 1000):
        t = time_launches(launch.run, "cupti", max_launches=n)
        print(
            f"  median over {n} launches: {1e3 * statistics.median(t.times_ms):.2f} us, "
            f"p80/p20 {statistics.quantiles(t.times_ms, n=10)[7] / statistics.quantiles(t.times_ms, n=10)[1]:.3f}"
        )
    timed("whole time_launches (default)", lambda: time_launches(launch.run, "cupti"))


if __name__ == "__main__":
    main()
