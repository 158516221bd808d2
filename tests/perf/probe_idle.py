"""Why irscope's runtime and ncu's differ where they do (issue 12): idle time before a launch.

ncu replays each kernel alone, after saving and restoring memory: the GPU sits idle
for milliseconds before every profiled launch. irscope's cupti method waits for
the L2 sweep and launches at once. This probe times the same kernels with a host
sleep of 0, 0.5, 2 and 10 ms before each launch, and a long kernel with few and
with many launches (sustained load), so the effect of idle time and of heat on the
GPU's clocks can be read off the figures.

    python tests/perf/probe_idle.py
"""

from __future__ import annotations

import statistics


def main() -> None:
    import torch

    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import resolve_config
    from irscope.measure.timing import time_launches

    square, matmul = resolve_kernel("square_kernel"), resolve_kernel("matmul_kernel")
    cases = [(square, {"BLOCK_SIZE": b, "num_warps": 4}) for b in (128, 1024, 8192)] + [(matmul, {})]
    print(f"device: {torch.cuda.get_device_name(0)}")
    for ref, overrides in cases:
        launch = ref.launch(resolve_config(ref, overrides))
        launch.first()
        row = []
        for gap in (0.0, 0.5, 2.0, 10.0):
            t = time_launches(launch.run, "cupti", min_time_ms=1e9, gap_ms=gap, max_launches=200 if gap else 1000)
            row.append(f"gap {gap:>4} ms: {1e3 * statistics.median(t.times_ms):8.2f} us")
        few = time_launches(launch.run, "cupti", min_time_ms=1e9, max_launches=30)
        row.append(f"30 launches: {1e3 * statistics.median(few.times_ms):8.2f} us")
        print(f"{ref.name} {overrides}: " + "; ".join(row))


if __name__ == "__main__":
    main()
