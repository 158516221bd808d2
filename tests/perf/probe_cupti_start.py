"""What a process's first CUPTI session costs, and whether it can overlap other start-up work.

Each case runs in a fresh process. ``torch``: torch.profiler's first session after a CUDA
context exists; ``before-context``: the same, started before any CUDA context; ``cprofile``:
where torch.profiler's first session spends its time; ``kineto``: the autograd profiler's
calls underneath torch.profiler, as irscope's timing makes them; ``proton``: Triton's own
profiler (CUPTI backend).

Seen on an H200 (torch 2.11): torch.profiler's first session 3.45 s, of which ~3.1 s is
importing torch._dynamo, sympy and FSDP on its way; kineto directly 0.03 s; proton 0.13 s
(proton records kernels only, not memcpy).

    python tests/perf/probe_cupti_start.py
"""

from __future__ import annotations

import subprocess
import sys

COMMON = r"""
import time, threading, warnings
warnings.simplefilter("default")
import torch
def session():
    from torch.profiler import ProfilerActivity, profile
    x = torch.zeros(1, device="cuda")
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        x.add_(1)
        torch.cuda.synchronize()
    return len(list(prof.profiler.kineto_results.events()))
"""

CASES = {
    "torch": r"""
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
t = time.perf_counter(); n = session(); first = time.perf_counter() - t
t = time.perf_counter(); session(); second = time.perf_counter() - t
print(f"first session {first:.2f} s ({n} GPU records), second {1e3 * second:.1f} ms")
""",
    "before-context": r"""
t = time.perf_counter(); n = session(); first = time.perf_counter() - t
print(f"first session, CUDA context made inside it: {first:.2f} s ({n} GPU records)")
""",
    "cprofile": r"""
import cProfile, pstats
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
pr = cProfile.Profile(); pr.enable(); session(); pr.disable()
pstats.Stats(pr).sort_stats("cumulative").print_stats(12)
""",
    "kineto": r"""
from irscope.measure.timing import _kineto
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
x = torch.zeros(1, device="cuda")
t = time.perf_counter()
with _kineto() as records:
    x.add_(1); torch.cuda.synchronize()
print(f"first kineto session {time.perf_counter() - t:.3f} s ({len(records)} GPU records)")
""",
    "proton": r"""
import triton.profiler as proton, tempfile, os
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
x = torch.zeros(1, device="cuda")
with tempfile.TemporaryDirectory() as d:
    t = time.perf_counter()
    proton.start(os.path.join(d, "p"), backend="cupti")
    x.add_(1); torch.cuda.synchronize()
    proton.finalize()
    print(f"proton first session {time.perf_counter() - t:.2f} s")
""",
}


def main() -> None:
    for name, body in CASES.items():
        out = subprocess.run([sys.executable, "-c", COMMON + body], capture_output=True, text=True)
        lines = (out.stdout + out.stderr).strip().splitlines()
        print(f"{name}:")
        for line in lines[-(30 if name == "cprofile" else 6) :]:
            print(f"  {line[:300]}")


if __name__ == "__main__":
    main()
