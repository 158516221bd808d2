"""Triton's proton (CUPTI backend) as the source of per-launch kernel durations: its formats and its figures.

Prints what proton's trace and tree outputs hold for a few launches, and the median of
square_kernel at 4096x781 from proton and from torch.profiler (each in its own process).

    python tests/perf/probe_proton.py
"""

from __future__ import annotations

import subprocess
import sys

PROTON = r"""
import json, os, statistics, tempfile, time
t0 = time.perf_counter()
import torch
import triton.profiler as proton
from irscope.frontends.config import resolve_config
from irscope.frontends import resolve_kernel
from irscope.measure.l2 import L2Sweep
ref = resolve_kernel("square_kernel")
launch = ref.launch(resolve_config(ref, {"BLOCK_SIZE": 1024, "num_warps": 4}))
launch.first(); sweep = L2Sweep.for_device(); sweep(); torch.cuda.synchronize()
print(f"ready at {time.perf_counter() - t0:.2f} s")
d = tempfile.mkdtemp()
t = time.perf_counter()
proton.start(os.path.join(d, "trace"), data="trace", backend="cupti")
for i in range(300):
    sweep(); torch.cuda.synchronize(); launch.run()
torch.cuda.synchronize()
proton.finalize(output_format="chrome_trace")
print(f"proton trace session: {time.perf_counter() - t:.3f} s; files {os.listdir(d)}")
for f in os.listdir(d):
    text = open(os.path.join(d, f)).read()
    print(f"{f}: {len(text)} chars; head: {text[:700]!r}")
    data = json.loads(text)
    events = data["traceEvents"] if isinstance(data, dict) else data
    mine = [e for e in events if "square" in e.get("name", "")]
    print(f"  {len(events)} events, {len(mine)} square; sample {mine[:2]}")
    if mine:
        print(f"  median dur {statistics.median(float(e['dur']) for e in mine):.3f}")
t = time.perf_counter()
proton.start(os.path.join(d, "tree"), data="tree", backend="cupti")
for i in range(300):
    sweep(); torch.cuda.synchronize()
    with proton.scope(f"launch{i}"):
        launch.run()
torch.cuda.synchronize()
proton.finalize()
print(f"proton tree session: {time.perf_counter() - t:.3f} s; files {os.listdir(d)}")
text = open(os.path.join(d, "tree.hatchet")).read()
print(f"tree: {len(text)} chars; head: {text[:900]!r}")
"""

TORCH = r"""
import statistics, time
t0 = time.perf_counter()
import torch
from irscope.frontends.config import resolve_config
from irscope.frontends import resolve_kernel
from irscope.measure.timing import time_launches
ref = resolve_kernel("square_kernel")
launch = ref.launch(resolve_config(ref, {"BLOCK_SIZE": 1024, "num_warps": 4}))
launch.first()
for _ in range(2):
    t = time_launches(launch.run, "cupti")
    print(f"torch.profiler: median {1e3 * statistics.median(t.times_ms):.3f} us over {len(t.times_ms)}; at {time.perf_counter() - t0:.2f} s")
"""


def main() -> None:
    for name, body in (("proton", PROTON), ("torch", TORCH)):
        out = subprocess.run([sys.executable, "-c", body], capture_output=True, text=True)
        print(f"== {name} (rc {out.returncode})")
        print(out.stdout[-6000:])
        if out.returncode:
            print(out.stderr[-3000:])


if __name__ == "__main__":
    main()
