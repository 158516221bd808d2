"""Where a GPU measurement worker's start-up goes, step by step (issue 12's speed target).

From empty Triton and irscope caches (the state of `irscope bench` on a fresh machine),
a fresh process runs the worker's steps in their order and prints each one's time.
Then the same again with the caches the first run left, and the compile of one square
variant beside it for scale.

    python tests/perf/probe_worker_start.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

STEPS = r"""
import time
t0 = time.perf_counter()
last = t0
def step(what):
    global last
    now = time.perf_counter()
    print(f"  {what:58s} {1e3 * (now - last):8.1f} ms   (at {now - t0:5.2f} s)", flush=True)
    last = now

import torch
step("import torch")
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
step("CUDA context (first tensor on the GPU)")
import triton
from triton.runtime import driver
driver.active.utils.get_device_properties(0)
step("Triton's driver utils (cuda_utils build on an empty cache)")
from irscope.measure.hardware import peaks
peaks(torch.cuda.get_device_capability()[0] * 10 + torch.cuda.get_device_capability()[1])
step("peaks from triton.profiler.specs")
from irscope.measure.l2 import L2Sweep
sweep = L2Sweep.for_device()
step("L2 sweep buffer")
sweep(); torch.cuda.synchronize()
step("first L2 sweep launch (Triton compile + launcher build)")
from irscope.measure.timing import _kineto
with _kineto() as records:
    sweep()
    torch.cuda.synchronize()
step(f"first CUPTI session, as the worker runs it ({len(records)} records)")
with _kineto() as records:
    sweep()
    torch.cuda.synchronize()
step("second CUPTI session")
from irscope.measure.hardware import copy_bandwidth, current_device
import re
device = current_device()
step(f"current_device(): copy rate {device.copy_gbps:.0f} GB/s (measured on an empty cache)")
from irscope import frontends
from irscope.frontends.config import resolve_config
from irscope.frontends import resolve_kernel
ref = resolve_kernel("square_kernel")
step("irscope frontends + resolve square_kernel")
config = resolve_config(ref, {"BLOCK_SIZE": 1024, "num_warps": 4})
launch = frontends.load(ref.handle()).launch(config, device="cuda")
step("example inputs + torch reference")
launch.first(); torch.cuda.synchronize()
step("first square launch (JIT cache hit + launcher build)")
from irscope.measure.worker import MeasureState, measure
state = MeasureState()
m = measure(state, ref, config, {})
step(f"first measure() of the variant ({m.median_us:.2f} us, {m.repetitions} launches)")
config2 = resolve_config(ref, {"BLOCK_SIZE": 256, "num_warps": 1})
m = measure(state, ref, config2, {})
step(f"measure() of a second variant, compiled now by the JIT ({m.median_us:.2f} us)")
m = measure(state, ref, config2, {})
step(f"measure() of it again ({m.median_us:.2f} us)")
"""


def run(env: dict[str, str], title: str) -> None:
    print(title, flush=True)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", STEPS], env=env, check=True)
    print(f"  whole process: {time.perf_counter() - start:.2f} s", flush=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "IRSCOPE_CACHE_DIR": f"{tmp}/irscope", "TRITON_CACHE_DIR": f"{tmp}/triton"}
        env.pop("CUDA_VISIBLE_DEVICES", None)
        env["CUDA_VISIBLE_DEVICES"] = "0"
        run(env, "worker start-up, empty caches:")
        run(env, "worker start-up again, caches warm:")


if __name__ == "__main__":
    main()
