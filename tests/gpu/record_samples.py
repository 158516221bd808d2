"""Record samples/runtimes/: every built-in kernel's declared sweep, checked, timed and profiled
with ncu on this GPU. Run on the GPU machine from the repository root:

    python tests/gpu/record_samples.py [OUT_DIR [KERNEL ...]]   (default: samples/runtimes, every built-in kernel)
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent


def main() -> None:
    from irscope.frontends import builtin_kernels
    from irscope.frontends.config import sweep_configs
    from irscope.measure.bench import bench
    from irscope.measure.hardware import current_device, device_json
    from irscope.measure.samples import write_samples

    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "samples" / "runtimes"
    device = device_json(current_device())
    slug = re.sub(r"[^A-Za-z0-9]+", "-", device["name"]).strip("-").lower()
    only = set(sys.argv[2:])
    for ref in builtin_kernels():
        if only and ref.name not in only:
            continue
        start = time.perf_counter()
        configs = sweep_configs(ref.parameter_table(), ref.name, {}, {})
        latest = {}
        for r in bench(ref, configs, ncu=True, min_time_ms=100, on_note=print):
            latest[r.index] = r
        rows = [(latest[i].variant.config, latest[i].variant.arch, latest[i].measurement) for i in sorted(latest)]
        path = out_dir / f"{ref.name}.{slug}.json"
        write_samples(path, ref.identity(), REPO, device, rows)
        ok = sum(m.ranked for _, _, m in rows)
        best = min((m.median_us for _, _, m in rows if m.ranked and m.median_us is not None), default=float("nan"))
        print(
            f"{ref.name}: {len(rows)} variants, {ok} ok, best {best:.1f} us, {time.perf_counter() - start:.0f} s -> {path}"
        )


if __name__ == "__main__":
    main()
