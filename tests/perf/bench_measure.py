"""Measurement accuracy and speed (issue 5). Needs a CUDA GPU and Nsight Compute.

1. square_kernel at BLOCK_SIZE 128, 1024 and 8192 (num_warps=4) on 2^26 float32
   (65536 x 1024, 512 MB moved): irscope's median against ncu's gpu__time_duration
   (--clock-control none), target within 5%; and p80/p20, target <= 1.03 for
   kernels of 50 us or more.
2. The best of the 21 declared square_kernel variants on that input, against a
   device-to-device copy of the same bytes timed the same way: target >= 90%.
3. `irscope bench` of the 21 declared variants at the default input, from a fresh
   process with empty caches: compiled, checked and timed, target <= 15 s.

    python tests/perf/bench_measure.py [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIG = {"n_rows": 65536, "n_cols": 1024}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    import torch
    from triton.testing import do_bench

    from irscope.kernel import resolve_config, resolve_kernel
    from irscope.measure.bench import bench
    from irscope.session import sweep_configs

    ref = resolve_kernel("square_kernel")
    out: dict = {"device": torch.cuda.get_device_name(0)}

    # 1. accuracy against ncu
    configs = [resolve_config(ref, {"BLOCK_SIZE": b, "num_warps": 4, **BIG}) for b in (128, 1024, 8192)]
    latest = {}
    for r in bench(ref, configs, ncu=True, min_time_ms=300):
        latest[r.index] = r
    rows = []
    for i, config in enumerate(configs):
        m = latest[i].measurement
        ncu_us = (m.ncu or {}).get("gpu_time_us")
        rows.append({"BLOCK_SIZE": config.constexprs["BLOCK_SIZE"], "median_us": m.median_us, "p20_us": m.p20_us,
                     "p80_us": m.p80_us, "min_us": m.min_us, "ncu_us": ncu_us, "status": m.status.value,
                     "error_pct": None if not ncu_us else 100 * abs(m.median_us - ncu_us) / ncu_us,
                     "spread": m.p80_us / m.p20_us if m.p20_us else None, "gbps": m.gbps})
    out["accuracy"] = rows

    # 2. best variant against a copy of the same bytes
    sweep = sweep_configs(ref.parameter_table(), ref.name, {}, BIG)
    best = None
    for r in bench(ref, sweep, min_time_ms=100):
        if r.measurement.ranked and (best is None or r.measurement.median_us < best.measurement.median_us):
            best = r
    x = torch.randn(65536 * 1024, device="cuda")
    y = torch.empty_like(x)
    copy_ms = do_bench(lambda: y.copy_(x), warmup=25, rep=300, return_mode="median")
    copy_gbps = 2 * x.numel() * 4 / (copy_ms * 1e-3) / 1e9
    out["best"] = {"config": best.variant.config.label(), "median_us": best.measurement.median_us,
                   "gbps": best.measurement.gbps, "copy_us": copy_ms * 1e3, "copy_gbps": copy_gbps,
                   "pct_of_copy": 100 * best.measurement.gbps / copy_gbps}

    # 3. 21 variants compiled, checked and timed, from a fresh process and empty caches
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "IRSCOPE_CACHE_DIR": f"{tmp}/irscope", "TRITON_CACHE_DIR": f"{tmp}/triton"}
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "irscope", "bench", "square_kernel", "-s",
                               "BLOCK_SIZE=128,256,512,1024,2048,4096,8192", "-s", "num_warps=1,4,8", "--json"],
                              env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    out["sweep21"] = {"seconds": wall, "variants": len(results), "ok": sum(r["status"] == "ok" for r in results),
                      "returncode": proc.returncode}

    print(f"device: {out['device']}")
    print("square_kernel, 2^26 float32 (512 MB moved), num_warps=4, against ncu --clock-control none:")
    for row in rows:
        print(f"  BLOCK_SIZE={row['BLOCK_SIZE']:5}: median {row['median_us']:.1f} us (p20 {row['p20_us']:.1f}, "
              f"p80 {row['p80_us']:.1f}, min {row['min_us']:.1f}), ncu {row['ncu_us'] or float('nan'):.1f} us, "
              f"off by {row['error_pct'] or float('nan'):.1f}% (target <= 5%), p80/p20 {row['spread']:.3f} "
              f"(target <= 1.03), {row['gbps']:.0f} GB/s")
    b = out["best"]
    print(f"best of 21 variants: {b['config']}: {b['median_us']:.1f} us, {b['gbps']:.0f} GB/s; copy of the same bytes "
          f"{b['copy_us']:.1f} us, {b['copy_gbps']:.0f} GB/s -> {b['pct_of_copy']:.1f}% (target >= 90%)")
    s = out["sweep21"]
    print(f"irscope bench, 21 variants, fresh caches: {s['seconds']:.1f} s, {s['ok']}/{s['variants']} ok, "
          f"exit {s['returncode']} (target <= 15 s)")
    if proc.returncode:
        print(proc.stderr[-2000:])
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
