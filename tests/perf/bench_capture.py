"""Capture speed (issue 2): 21 square_kernel variants for sm_90, cold and cached, and `irscope --help`.

Prints each figure and, for the cold capture, its ratio to a bare `triton.compile`
loop over the same 21 configs with the same specialization (no SASS). Each
measurement runs in a fresh process with empty Triton and irscope caches; the
median of --repeat runs is reported.

    python tests/perf/bench_capture.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

CONFIGS = [(b, w) for b in (128, 256, 512, 1024, 2048, 4096, 8192) for w in (1, 4, 8)]

BASELINE = r"""
import json, sys, time
import triton
from triton.backends.compiler import GPUTarget
from irscope.frontends import resolve_kernel
from irscope.frontends.config import resolve_config
from irscope.frontends.triton.specialize import specialize
ref = resolve_kernel("square_kernel")
jobs = [specialize(ref, resolve_config(ref, {"BLOCK_SIZE": b, "num_warps": w}), 90)[:2] for b, w in CONFIGS]
target = GPUTarget("cuda", 90, 32)
start = time.perf_counter()
for src, options in jobs:
    triton.compile(src, target=target, options=options)
print(json.dumps({"seconds": time.perf_counter() - start}))
"""

IRSCOPE = r"""
import json, sys, time
from irscope.frontends import resolve_kernel
from irscope.frontends.config import resolve_config
from irscope.capturing import capture_many
ref = resolve_kernel("square_kernel")
configs = [resolve_config(ref, {"BLOCK_SIZE": b, "num_warps": w}) for b, w in CONFIGS]
out = {}
for label in ("cold", "cached"):
    start = time.perf_counter()
    got = list(capture_many(ref, configs, "sm_90"))
    out[label] = time.perf_counter() - start
    assert len(got) == 21 and all(c.variant.ok and "sass" in {s.value for s in c.variant.listings} for c in got)
    out[label + "_hits"] = sum(c.cached for c in got)
print(json.dumps(out))
"""


def run(code: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "TRITON_CACHE_DIR": f"{tmp}/triton", "IRSCOPE_CACHE_DIR": f"{tmp}/irscope"}
        out = subprocess.run(
            [sys.executable, "-c", f"CONFIGS = {CONFIGS!r}\n{code}"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    bare, cold, cached = [], [], []
    for _ in range(args.repeat):
        bare.append(run(BASELINE)["seconds"])
        result = run(IRSCOPE)
        assert result["cold_hits"] == 0 and result["cached_hits"] == 21
        cold.append(result["cold"])
        cached.append(result["cached"])
    helps = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "irscope", "--help"], capture_output=True, check=True)
        helps.append(time.perf_counter() - start)
    b, c = statistics.median(bare), statistics.median(cold)
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}")
    print(f"bare triton.compile loop, 21 configs, cold:   {b:.2f} s (runs: {', '.join(f'{x:.2f}' for x in bare)})")
    print(f"irscope capture incl. SASS, 21 configs, cold: {c:.2f} s (runs: {', '.join(f'{x:.2f}' for x in cold)})")
    print(f"  ratio irscope / bare: {c / b:.2f}x   (target <= 1.25x)")
    print(f"irscope capture again, cached:                {statistics.median(cached):.3f} s   (target <= 0.3 s)")
    print(f"irscope --help:                               {statistics.median(helps):.3f} s   (target <= 0.3 s)")


if __name__ == "__main__":
    main()
