"""What recording every TIR pass of a TileLang compile costs: the compile with TileLang's pass instrumentation
(``TileLangKernel.compile_passes``, what ``irscope passes`` and ``sweep --passes`` run) against the plain
compile of the same kernel and parameters, in one process (TileLang imported and warmed once), alternating,
--repeat times each; medians of the wall time and of this process's CPU time (the lowering and the recording
run here; nvcc in processes of its own, so the CPU time is the part the recording can add to, and the one a
loaded machine disturbs least). The kernels of examples/tilelang_kernels.py, for sm_90a.

    python tests/perf/bench_tilelang_passes.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "tilelang_kernels.py"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from irscope.capturing.pipeline import choose_target
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import resolve_config

    target = choose_target("sm_90")
    print(f"load before: {os.getloadavg()[0]:.2f}")
    for name in ("add", "matmul"):
        kernel = resolve_kernel(f"{KERNELS}:{name}")
        config = resolve_config(kernel, {})
        kernel.compile(config, target)  # imports TileLang, warms TVM
        wall: dict[str, list[float]] = {"plain": [], "passes": []}
        cpu: dict[str, list[float]] = {"plain": [], "passes": []}
        steps = 0
        for _ in range(args.repeat):
            for way in ("plain", "passes"):
                start, start_cpu = time.perf_counter(), time.process_time()
                done = kernel.compile_passes(config, target) if way == "passes" else kernel.compile(config, target)
                wall[way].append(time.perf_counter() - start)
                cpu[way].append(time.process_time() - start_cpu)
                assert done.error is None, done.error
                steps = len(done.passes.steps) if done.passes else steps
        for label, times in (("wall", wall), ("CPU (this process)", cpu)):
            plain, passes = statistics.median(times["plain"]), statistics.median(times["passes"])
            print(
                f"{name}: {steps} passes; {label}: {plain:.2f} s plain, {passes:.2f} s recording them: "
                f"{passes - plain:+.2f} s ({passes / plain:.2f}x)"
            )
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
